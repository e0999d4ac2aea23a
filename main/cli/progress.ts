// `--progress`: a job's progress on stderr. On a terminal one line, rewritten in place ("hashing
// the target: 4,000,000 / 10,000,000 rows (40%)"); elsewhere (a CI log, a pipe) one line per
// phase and per quarter done, so the log stays short.
import type { Progress } from '../../shared/jobs';

export function progressPrinter(write: (text: string) => void, tty: boolean): { progress: (p: Progress) => void; end: () => void } {
  let lastPhase = '';
  let lastQuarter = -1;
  let open = false;
  const line = (p: Progress): string => {
    if (p.total === null || p.total <= 0) return `${p.phase}…`;
    const pct = Math.min(100, Math.round((p.done / p.total) * 100));
    if (p.message === 'percent of the scan') return `${p.phase}: ${pct}%`;
    return `${p.phase}: ${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')} rows (${pct}%)`;
  };
  return {
    progress(p) {
      if (tty) {
        write(`\r\x1b[2K${line(p)}`);
        open = true;
        return;
      }
      const quarter = p.total ? Math.floor((Math.min(p.done, p.total) / p.total) * 4) : -1;
      if (p.phase !== lastPhase || quarter > lastQuarter) write(line(p) + '\n');
      if (p.phase !== lastPhase) lastQuarter = -1;
      lastPhase = p.phase;
      lastQuarter = Math.max(lastQuarter, quarter);
    },
    end() {
      if (tty && open) write('\r\x1b[2K');
      open = false;
    },
  };
}
