// The detection matrix verify re-measures, against the one docs/ publishes: every deterministic
// field (levels, names, rows read) must agree; timings (ms) and the date may differ.
import type { DetectionMatrix } from '../reconcile/matrix';

function stable(m: DetectionMatrix): Map<string, string> {
  const out = new Map<string, string>();
  out.set('rows', String(m.rows));
  out.set('summary', JSON.stringify(m.summary));
  for (const r of m.scenarios) {
    out.set(r.scenario, JSON.stringify({
      firstNotices: r.firstNotices, firstNames: r.firstNames, rowsReadToName: r.rowsReadToName, silentAsExpected: r.silentAsExpected, otherModes: r.otherModes,
      cells: r.cells.map((c) => [c.level, c.verdict, c.modes, c.unnamed, c.targetRowsRead, c.sourceRowsRead]),
    }));
  }
  return out;
}

export function compareMatrices(published: DetectionMatrix, fresh: DetectionMatrix): string[] {
  const a = stable(published);
  const b = stable(fresh);
  const out: string[] = [];
  for (const [k, v] of a) {
    if (!b.has(k)) out.push(`detection matrix: ${k} is published but not measured any more (run npm run matrix)`);
    else if (b.get(k) !== v) out.push(`detection matrix: ${k} is published as ${v} but measures ${b.get(k)} (run npm run matrix)`);
  }
  for (const k of b.keys()) if (!a.has(k)) out.push(`detection matrix: ${k} is measured but not published (run npm run matrix)`);
  return out;
}
