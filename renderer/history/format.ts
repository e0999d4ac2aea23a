// Formatting shared by the history screens. Times are shown in UTC: a log's timestamps are
// compared across machines and time zones, and the CLI prints UTC too.
import type { OperationParameters } from '../../shared/forensics';
export function formatUtc(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

export function formatAgo(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return 'in the future';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** A colour family for an operation name, so a history reads at a glance. */
export function operationKind(op: string | null): 'create' | 'write' | 'delete' | 'merge' | 'maintenance' | 'schema' | 'other' {
  if (!op) return 'other';
  const o = op.toUpperCase();
  if (o.startsWith('CREATE') || o.startsWith('REPLACE TABLE')) return 'create';
  if (o.includes('DELETE') || o.includes('TRUNCATE')) return 'delete';
  if (o.includes('MERGE') || o.includes('UPDATE')) return 'merge';
  if (o.includes('OPTIMIZE') || o.includes('VACUUM') || o.includes('CHECKPOINT') || o.includes('RESTORE')) return 'maintenance';
  if (o.includes('COLUMN') || o.includes('SET TBLPROPERTIES') || o.includes('UPGRADE') || o.includes('CHANGE')) return 'schema';
  if (o.includes('WRITE') || o.includes('STREAMING') || o.includes('APPEND') || o.includes('INSERT')) return 'write';
  return 'other';
}

export function formatParams(p: OperationParameters): string {
  return Object.entries(p)
    .filter(([, v]) => v !== 'null' && v !== '' && v !== '[]')
    .map(([k, v]) => `${k}=${v}`)
    .join('  ');
}
