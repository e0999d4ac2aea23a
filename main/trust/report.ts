// Text, markdown and HTML of the trust results. One result object feeds all of them (and JSON).
import type { RowDiff } from '../../shared/reconcile';
import type { KeysResult, LawsResult, MutationResult, RowProvenance } from '../../shared/trust';
import { commitText } from './provenance';

const pct = (x: number | null): string => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`);
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Markdown table cell: pipes and line breaks would end the cell. */
const cell = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function provenanceText(p: RowProvenance): string {
  return `${p.file}${p.row === null ? '' : `#${p.row}`} (${commitText(p.commit)})`;
}

// ---- mutation ----

export function mutationLines(r: MutationResult): string[] {
  const o = r.overall;
  const lines = [
    `Mutation score of ${r.contract.path ?? r.contract.name} on ${r.table} @ v${r.version} (seed ${r.seed})`,
    `  ${o.headline}; ${o.notApplicable} not applicable, ${o.equivalent} equivalent; ${o.silentChecks - o.falseAlarms} of ${o.silentChecks} silent check(s) stayed silent`,
    '',
    '  level      named  caught  survived  score   named',
  ];
  for (const l of r.perLevel) lines.push(`  ${l.level.padEnd(9)}  ${String(l.named).padStart(5)}  ${String(l.caught).padStart(6)}  ${String(l.survived).padStart(8)}  ${pct(l.score).padStart(6)}  ${pct(l.namedScore).padStart(6)}`);
  lines.push('', '  mutant                     status           notices   names     note');
  for (const m of r.mutants) {
    const status = m.status === 'run' ? (m.expectedMode === null ? (m.firstNotices ? 'FALSE ALARM' : 'silent (ok)') : m.firstNames ? 'named' : m.firstNotices ? 'caught' : 'SURVIVED') : m.status.replace('_', ' ');
    lines.push(`  ${m.corruption.padEnd(25)}  ${status.padEnd(15)}  ${(m.firstNotices ?? '-').padEnd(8)}  ${(m.firstNames ?? '-').padEnd(8)}  ${m.note}`);
    for (const s of m.suggestions) {
      const chk = s.checked ? (s.checked.names ? `checked: then named at ${s.checked.firstNames}` : s.checked.kills ? `checked: then caught at ${s.checked.firstNotices}, still not named` : 'checked: still survives') : 'not checked';
      lines.push(`      suggestion: ${s.change} (${chk})`);
      if (s.yaml) for (const y of s.yaml.split('\n')) lines.push(`        ${y}`);
    }
  }
  for (const n of r.notes) lines.push(`  note: ${n}`);
  lines.push(`  sandbox: ${r.sandbox.filesReferenced} data file(s) referenced read-only, removed; ${(r.durationMs / 1000).toFixed(1)} s`);
  return lines;
}

export function mutationMarkdown(r: MutationResult): string {
  const o = r.overall;
  const out = [
    '## Mutation score',
    '',
    `**${cell(o.headline)}**; ${o.notApplicable} not applicable, ${o.equivalent} equivalent. Seed ${r.seed}, table version ${r.version}.`,
    '',
    '| level | named | caught | survived | score | named |',
    '|---|---|---|---|---|---|',
    ...r.perLevel.map((l) => `| ${l.level} | ${l.named} | ${l.caught} | ${l.survived} | ${pct(l.score)} | ${pct(l.namedScore)} |`),
    '',
    '| mutant | status | first notices | first names | suggestion |',
    '|---|---|---|---|---|',
    ...r.mutants.map((m) => `| ${m.corruption} | ${m.status === 'run' ? (m.firstNames ? 'named' : m.firstNotices ? (m.expectedMode ? 'caught' : 'false alarm') : (m.expectedMode ? 'survived' : 'silent')) : m.status.replace('_', ' ')} | ${m.firstNotices ?? '-'} | ${m.firstNames ?? '-'} | ${cell(m.status !== 'run' ? m.note : m.suggestions.map((s) => `${s.change}${s.checked?.names ? ' (checked: named)' : ''}`).join('; ') || '-')} |`),
    '',
  ];
  return out.join('\n');
}

export function mutationHtml(r: MutationResult): string {
  const o = r.overall;
  return `<h2>Mutation score</h2>
<p><strong>${esc(o.headline)}</strong>; ${o.notApplicable} not applicable, ${o.equivalent} equivalent; seed ${r.seed}.</p>
<table><thead><tr><th>level</th><th>named</th><th>caught</th><th>survived</th><th>score</th></tr></thead><tbody>
${r.perLevel.map((l) => `<tr><td>${esc(l.level)}</td><td>${l.named}</td><td>${l.caught}</td><td>${l.survived}</td><td>${pct(l.score)}</td></tr>`).join('\n')}
</tbody></table>
<table><thead><tr><th>mutant</th><th>status</th><th>notices</th><th>names</th><th>note / suggestion</th></tr></thead><tbody>
${r.mutants.map((m) => `<tr><td>${esc(m.corruption)}</td><td>${esc(m.status === 'run' ? (m.firstNames ? 'named' : m.firstNotices ? 'caught' : 'survived') : m.status.replace('_', ' '))}</td><td>${esc(m.firstNotices ?? '-')}</td><td>${esc(m.firstNames ?? '-')}</td><td>${esc(m.status !== 'run' ? m.note : m.suggestions.map((s) => `${s.change}${s.checked?.names ? ' (checked: named)' : ''}`).join('; ') || '-')}</td></tr>`).join('\n')}
</tbody></table>`;
}

export function renderMutationHtmlPage(r: MutationResult): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>lakerec mutation score</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}</style></head>
<body><h1>lakerec mutation score: ${esc(r.table)}</h1>${mutationHtml(r)}</body></html>\n`;
}

// ---- keys ----

export function keysLines(r: KeysResult): string[] {
  const s = r.summary;
  const lines = [`Keys of ${r.table} @ v${r.version}: ${s.keysConfirmed} confirmed, ${s.keysFailed} failed; relationships: ${s.relationshipsConfirmed} confirmed, ${s.relationshipsFailed} failed; ${s.notChecked} not checked`];
  for (const k of r.keys) {
    lines.push(`  key (${k.columns.join(', ')}) on the ${k.side}: ${k.status.replace('_', ' ')}: ${k.rows} row(s), ${k.distinct} distinct, ${k.nullRows} null, ${k.repeatedKeys} repeated key(s) (${k.extraRows} extra row(s))${k.note ? `; ${k.note}` : ''}`);
    for (const e of k.examples) {
      lines.push(`    ${e.key}: ${e.rows} rows`);
      for (const w of e.where) lines.push(`      ${provenanceText(w)}`);
    }
    for (const w of k.nullExamples) lines.push(`    null key at ${provenanceText(w)}`);
  }
  if (r.candidates) {
    lines.push(r.candidates.length ? `  candidate keys (no key declared): ${r.candidates.map((c) => `(${c.columns.join(', ')})`).join(', ')}` : '  candidate keys: none (no column or pair is unique and never null)');
  }
  for (const rel of r.relationships) {
    lines.push(`  ${rel.column} -> ${rel.references.path} ${rel.references.column} (${rel.declared.replace(/_/g, '-')}${rel.observed && rel.observed !== rel.declared ? `, found ${rel.observed.replace(/_/g, '-')}` : ''}): ${rel.status.replace('_', ' ')}: ${rel.rows} row(s), ${rel.nullRows} null, ${rel.danglingRows} dangling row(s) in ${rel.danglingValues} value(s)${rel.examples.length ? `: ${rel.examples.join(', ')}` : ''}${rel.note ? `; ${rel.note}` : ''}`);
  }
  return lines;
}

export function keysMarkdown(r: KeysResult): string {
  const out = ['## Keys and relationships', '', '| check | status | evidence |', '|---|---|---|'];
  for (const k of r.keys) out.push(`| key (${cell(k.columns.join(', '))}) on the ${k.side} | ${k.status.replace('_', ' ')} | ${k.rows} rows, ${k.nullRows} null, ${k.repeatedKeys} repeated${k.examples.length ? `: ${cell(k.examples.map((e) => `${e.key} x${e.rows} in ${e.where.map(provenanceText).join(', ')}`).join('; '))}` : ''} |`);
  for (const rel of r.relationships) out.push(`| ${cell(rel.column)} -> ${cell(rel.references.column)} | ${rel.status.replace('_', ' ')} | ${rel.danglingRows} dangling${rel.examples.length ? `: ${cell(rel.examples.join(', '))}` : ''}${rel.note ? `; ${cell(rel.note)}` : ''} |`);
  if (r.candidates) out.push(`| candidate keys | inferred | ${cell(r.candidates.map((c) => `(${c.columns.join(', ')})`).join(', ') || 'none')} |`);
  out.push('');
  return out.join('\n');
}

export function keysHtml(r: KeysResult): string {
  const rows = [
    ...r.keys.map((k) => `<tr><td>key (${esc(k.columns.join(', '))}) on the ${k.side}</td><td>${esc(k.status.replace('_', ' '))}</td><td>${k.rows} rows, ${k.nullRows} null, ${k.repeatedKeys} repeated${esc(k.examples.length ? ': ' + k.examples.map((e) => `${e.key} x${e.rows} in ${e.where.map(provenanceText).join(', ')}`).join('; ') : '')}</td></tr>`),
    ...r.relationships.map((rel) => `<tr><td>${esc(rel.column)} &rarr; ${esc(rel.references.column)}</td><td>${esc(rel.status.replace('_', ' '))}</td><td>${rel.danglingRows} dangling${esc(rel.examples.length ? ': ' + rel.examples.join(', ') : '')}${esc(rel.note ? '; ' + rel.note : '')}</td></tr>`),
  ];
  return `<h2>Keys and relationships</h2><table><thead><tr><th>check</th><th>status</th><th>evidence</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

// ---- laws ----

export function lawsLines(r: LawsResult): string[] {
  const lines = [`Data laws, ${r.source} -> ${r.table} @ v${r.version}: ${r.summary.held} held, ${r.summary.broken} broken (per ${r.day.column ?? 'table'}${r.day.sourceExpression ? `; source day = ${r.day.sourceExpression}` : ''})`];
  for (const l of r.laws) {
    lines.push(`  ${l.holds ? 'holds ' : 'BROKEN'}  ${l.law}${l.proposed ? ' (proposed)' : ''}${l.tolerance !== null ? ` (tolerance ${l.tolerance} x the day's sum of magnitudes)` : ''}: ${l.days - l.failedDays} of ${l.days} day(s)`);
    for (const f of l.failures) lines.push(`          ${f.day ?? '(null)'}: source ${f.source}, target ${f.target}, difference ${f.difference}`);
  }
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return lines;
}

export function lawsMarkdown(r: LawsResult): string {
  const out = ['## Data laws', '', `Per ${cell(r.day.column ?? 'table')}: ${r.summary.held} held, ${r.summary.broken} broken.`, '', '| law | holds | days | first failing days |', '|---|---|---|---|'];
  for (const l of r.laws) out.push(`| ${cell(l.law)}${l.proposed ? ' (proposed)' : ''} | ${l.holds ? 'yes' : '**no**'} | ${l.days - l.failedDays} of ${l.days} | ${cell(l.failures.map((f) => `${f.day ?? '(null)'}: ${f.source} -> ${f.target} (${f.difference})`).join('; ') || '-')} |`);
  if (r.notes.length) out.push('', ...r.notes.map((n) => `- ${cell(n)}`));
  out.push('');
  return out.join('\n');
}

export function lawsHtml(r: LawsResult): string {
  return `<h2>Data laws</h2><p>Per ${esc(r.day.column ?? 'table')}: ${r.summary.held} held, ${r.summary.broken} broken.</p><table><thead><tr><th>law</th><th>holds</th><th>days</th><th>first failing days</th></tr></thead><tbody>
${r.laws.map((l) => `<tr><td>${esc(l.law)}${l.proposed ? ' (proposed)' : ''}</td><td>${l.holds ? 'yes' : '<strong>no</strong>'}</td><td>${l.days - l.failedDays} of ${l.days}</td><td>${esc(l.failures.map((f) => `${f.day ?? '(null)'}: ${f.source} -> ${f.target} (${f.difference})`).join('; ') || '-')}</td></tr>`).join('\n')}
</tbody></table>${r.notes.length ? `<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}`;
}

// ---- rows behind the findings ----

/** Where a diff's target rows live: every row of a duplicated key, else the one row. */
function placesOf(d: RowDiff): RowProvenance[] {
  if (d.targetRows && d.targetRows.length > 0) return d.targetRows;
  return [{ file: d.targetFile ?? '', row: d.targetRow ?? null, commit: d.targetCommit ?? null }];
}

export function rowsBehindLines(diffs: RowDiff[]): string[] {
  const shown = diffs.filter((d) => d.targetFile);
  if (shown.length === 0) return [];
  const lines = ['Rows behind the findings (target side):'];
  for (const d of shown) {
    const key = Object.entries(d.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ');
    if (d.targetRows && d.targetRows.length > 0) {
      lines.push(`  ${d.kind.padEnd(9)} ${key}: ${d.targetRows.length} rows`);
      for (const p of d.targetRows) lines.push(`            ${provenanceText(p)}`);
    } else {
      lines.push(`  ${d.kind.padEnd(9)} ${key}: ${d.targetFile}${d.targetRow === null || d.targetRow === undefined ? '' : `#${d.targetRow}`}, ${commitText(d.targetCommit)}`);
    }
  }
  return lines;
}

export function rowsBehindMarkdown(diffs: RowDiff[]): string {
  const shown = diffs.filter((d) => d.targetFile);
  if (shown.length === 0) return '';
  return ['## Rows behind the findings', '', '| kind | key | target file | row | commit |', '|---|---|---|---|---|',
    ...shown.flatMap((d) => placesOf(d).map((p) => `| ${d.kind} | ${cell(Object.entries(d.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', '))} | ${cell(p.file)} | ${p.row ?? ''} | ${cell(commitText(p.commit))} |`)), ''].join('\n');
}

export function rowsBehindHtml(diffs: RowDiff[]): string {
  const shown = diffs.filter((d) => d.targetFile);
  if (shown.length === 0) return '';
  return `<h2>Rows behind the findings</h2><table><thead><tr><th>kind</th><th>key</th><th>target file</th><th>row</th><th>commit</th></tr></thead><tbody>
${shown.flatMap((d) => placesOf(d).map((p) => `<tr><td>${esc(d.kind)}</td><td>${esc(Object.entries(d.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', '))}</td><td>${esc(p.file)}</td><td>${p.row ?? ''}</td><td>${esc(commitText(p.commit))}</td></tr>`)).join('\n')}
</tbody></table>`;
}
