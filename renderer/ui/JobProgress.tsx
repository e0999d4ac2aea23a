// The one progress block of a running job: what it is doing, `done / total` and a determinate
// bar when the total is known (else a sliding bar), the time since it started, and Cancel.
import { useEffect, useState } from 'react';
import type { Progress } from '../../shared/jobs';

export interface JobProgressProps {
  progress: Progress | null;
  /** What to say before the first progress event arrives ("Reading the log…"). */
  waiting: string;
  /** Cancel the job (it is aborted in the engine); no button when absent. */
  onCancel?: () => void;
  testId?: string;
  cancelTestId?: string;
  /** Extra classes for the block (e.g. a border where it sits under a form). */
  className?: string;
}

/** "replaying log 3 / 10" or the phase alone while the total is unknown. */
export function progressText(p: Progress | null, waiting: string): string {
  if (!p) return waiting;
  return p.total !== null ? `${p.phase} ${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')}` : p.phase;
}

/** Seconds since the block appeared (the job started), ticking once a second. */
function useElapsed(): number {
  const [started] = useState(() => Date.now());
  const [now, setNow] = useState(started);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return Math.floor((now - started) / 1000);
}

export function JobProgress({ progress, waiting, onCancel, testId, cancelTestId, className }: JobProgressProps) {
  const elapsed = useElapsed();
  const pct = progress?.total ? Math.min(100, Math.round((100 * progress.done) / progress.total)) : null;
  return (
    <div className={`loading job-progress${className ? ` ${className}` : ''}`} data-testid={testId} role="status">
      <div className="loading-row">
        <span className="spinner" aria-hidden="true" />
        <span className="job-phase">{progressText(progress, waiting)}</span>
        <span className="job-elapsed mono" data-testid="job-elapsed">{elapsed} s</span>
        {onCancel && <button type="button" className="btn btn-quiet" data-testid={cancelTestId} onClick={onCancel}>Cancel</button>}
      </div>
      <div className="bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct ?? undefined}>
        <div className={`bar-fill${pct === null ? ' indeterminate' : ''}`} style={pct === null ? undefined : { width: `${pct}%` }} />
      </div>
    </div>
  );
}
