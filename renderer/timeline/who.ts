// Who wrote a commit and why, in one short line (the CLI's whoText, for the window).
import type { CommitWho } from '../../shared/forensics';

export function whoLine(w: CommitWho | undefined): string {
  if (!w) return '';
  const parts: string[] = [];
  if (w.userName || w.userId) parts.push(`${w.userName ?? ''}${w.userName && w.userId ? ` (${w.userId})` : w.userId ?? ''}`);
  if (w.job) parts.push(`job ${[w.job.name, w.job.id && `#${w.job.id}`, w.job.run && `run ${w.job.run}`].filter(Boolean).join(' ')}`);
  if (w.notebook) parts.push(`notebook ${w.notebook}`);
  if (w.clusterId) parts.push(`cluster ${w.clusterId}`);
  if (w.txnId) parts.push(`txn ${w.txnId}`);
  if (w.userMetadata) parts.push(`“${w.userMetadata}”`);
  return parts.join(' · ');
}
