// The lineage result as text (the CLI) and as markdown (the report file): the same object the
// JSON and the window show, in words.
import { ROWS, sqlFromLabel, type LineageCounts, type LineageResult, type ModelResult } from '../../shared/lineage';

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${Math.round((n / d) * 100)}%`);
const countsLine = (c: LineageCounts) =>
  `${c.claimed} claimed column edges: ${c.confirmed} confirmed (${pct(c.confirmed, c.claimed)}), ${c.notExercised} not exercised; `
  + `${c.viaJoinsAndFilters} influences via joins and filters, ${c.unexplained} unexplained`;
const out = (o: string) => (o === ROWS ? 'the row count' : o);

export function lineageLines(r: LineageResult, opts: { detail?: boolean } = {}): string[] {
  const lines: string[] = [];
  lines.push(`Lineage of ${r.project} (${r.kind === 'dbt' ? 'dbt project' : 'DuckDB file'}), verified by perturbation: seed ${r.seed}, at most ${r.rows} rows per input`);
  lines.push(`${r.totals.models} models (${r.totals.verified} verified, ${r.totals.skipped} skipped); ${countsLine(r.totals)}`);
  lines.push('');
  const w = Math.max(5, ...r.models.map((m) => m.name.length));
  lines.push(`${'model'.padEnd(w)}  claimed  confirmed  not exercised  via joins and filters  unexplained`);
  for (const m of r.models) {
    if (m.status === 'skipped') { lines.push(`${m.name.padEnd(w)}  skipped: ${m.skipReason}`); continue; }
    const c = m.counts;
    lines.push(`${m.name.padEnd(w)}  ${String(c.claimed).padStart(7)}  ${String(c.confirmed).padStart(9)}  ${String(c.notExercised).padStart(13)}  ${String(c.viaJoinsAndFilters).padStart(21)}  ${String(c.unexplained).padStart(11)}`);
  }
  for (const m of r.models) {
    const problems = m.edges.filter((e) => e.verdict === 'not_exercised');
    const gaps = m.influences.filter((x) => x.verdict === 'unexplained');
    if (!opts.detail && problems.length === 0 && gaps.length === 0 && m.claims?.notes.length === 0) continue;
    if (m.status === 'skipped') continue;
    lines.push('');
    lines.push(`${m.name} (${sqlFromLabel(m.sqlFrom)}${m.path ? `, ${m.path}` : ''}; ${m.outputRows} output rows${m.rowKey ? `, rows matched by ${m.rowKey}` : ''}; ${m.runs} runs)`);
    for (const e of m.edges) {
      if (!opts.detail && e.verdict === 'confirmed') continue;
      lines.push(`  ${e.verdict === 'confirmed' ? 'confirmed    ' : 'not exercised'}  ${e.output} <- ${e.input}.${e.column}${e.verdict === 'confirmed' ? `  (${e.by.join(', ')})` : `: ${e.reason}`}`);
    }
    for (const x of m.influences) {
      if (!opts.detail && x.verdict !== 'unexplained') continue;
      lines.push(`  ${x.verdict === 'unexplained' ? 'UNEXPLAINED  ' : 'via joins    '}  ${out(x.output)} <- ${x.input}.${x.column}  (${x.by.join(', ')})`);
    }
    for (const n of m.claims?.notes ?? []) lines.push(`  note: ${n}`);
  }
  return lines;
}

export function lineageMarkdown(r: LineageResult): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const md: string[] = [];
  md.push(`# Lineage verified by perturbation`, '');
  md.push(`Project \`${esc(r.project)}\` (${r.kind === 'dbt' ? 'dbt project' : 'DuckDB file'}); seed ${r.seed}; at most ${r.rows} rows per input; `
    + `shift x * ${r.shift.a} + ${r.shift.b} on numbers, suffix \`${r.shift.suffix}\` on strings, ${r.shift.days} days on dates.`, '');
  md.push('| Models | Claimed column edges | Confirmed | Not exercised | Influences via joins and filters | Unexplained |', '|---|---|---|---|---|---|');
  const t = r.totals;
  md.push(`| ${t.models} (${t.verified} verified) | ${t.claimed} | ${t.confirmed} (${pct(t.confirmed, t.claimed)}) | ${t.notExercised} | ${t.viaJoinsAndFilters} | ${t.unexplained} |`, '');
  md.push('| Model | Claimed | Confirmed | Not exercised | Via joins and filters | Unexplained |', '|---|---|---|---|---|---|');
  for (const m of r.models) {
    if (m.status === 'skipped') md.push(`| ${esc(m.name)} | skipped: ${esc(m.skipReason ?? '')} | | | | |`);
    else md.push(`| ${esc(m.name)} | ${m.counts.claimed} | ${m.counts.confirmed} | ${m.counts.notExercised} | ${m.counts.viaJoinsAndFilters} | ${m.counts.unexplained} |`);
  }
  for (const m of r.models) md.push('', ...modelMarkdown(m, esc));
  return md.join('\n') + '\n';
}

function modelMarkdown(m: ModelResult, esc: (s: string) => string): string[] {
  const md = [`## ${esc(m.name)}`, ''];
  if (m.status === 'skipped') return [...md, `Skipped: ${esc(m.skipReason ?? '')}`];
  md.push(`${sqlFromLabel(m.sqlFrom)}${m.path ? ` (\`${esc(m.path)}\`)` : ''}; inputs ${m.inputs.map((i) => `${esc(i.name)} (${i.kind}, ${i.rows} rows)`).join(', ')}; `
    + `${m.outputRows} output rows${m.rowKey ? `, matched by \`${esc(m.rowKey)}\`` : ''}; ${m.runs} runs.`, '');
  md.push('| Output | Input column | Verdict | By |', '|---|---|---|---|');
  for (const e of m.edges) md.push(`| ${esc(e.output)} | ${esc(`${e.input}.${e.column}`)} | ${e.verdict === 'confirmed' ? 'confirmed' : `not exercised: ${esc(e.reason ?? '')}`} | ${e.by.join(', ')} |`);
  for (const x of m.influences) md.push(`| ${esc(out(x.output))} | ${esc(`${x.input}.${x.column}`)} | ${x.verdict === 'unexplained' ? '**unexplained**' : 'via joins and filters'} | ${x.by.join(', ')} |`);
  for (const n of m.claims?.notes ?? []) md.push('', `Note: ${esc(n)}`);
  return md;
}
