// Reports from a ReconcileResult: the terminal text, markdown (fits $GITHUB_STEP_SUMMARY), one
// self-contained HTML file (no network; charts are inline SVG), and JSON. Pure string building
// (no node imports), so any face can use it. HTML and markdown are made of sections, so an
// incident report can add its own (a bisect result, a timeline excerpt) around these.
import { describeDigest } from '../../shared/digest';
import { escapeControl } from '../../shared/escape';
import { noPartitionsSentence, nothingFoundSentence, type Finding, type PartitionResult, type ReconcileResult, type RowDiff } from '../../shared/reconcile';

/** A count as text; null (a level that read none) is "not read", never 0. */
const fmt = (n: number | null) => (n === null ? 'not read' : n.toLocaleString('en-US'));
const short = (h: string | null) => (h ? h.slice(0, 16) : '-');

// ---------------------------------------------------------------------------------------------
// terminal
// ---------------------------------------------------------------------------------------------

export function renderTerminal(r: ReconcileResult): string {
  const disagreeing = r.partitions.filter((p) => p.state !== 'match' && p.state !== 'counts_match' && p.state !== 'late').length;
  const lines = [
    `verdict: ${r.verdict.padEnd(10)} (level ${r.level})`,
    // The schema level compares columns and types only: it reads no rows, so it shows no counts.
    r.level === 'schema'
      ? 'rows:    not read (the schema level compares columns and types only)'
      : `rows:    source ${fmt(r.source.rows)}  target ${fmt(r.target.rows)}  partitions ${r.partitions.length} (${disagreeing} disagreeing)`,
  ];
  if (r.source.checksum || r.target.checksum) lines.push(`hash:    source ${short(r.source.checksum)}  target ${short(r.target.checksum)}`);
  for (const f of r.findings) {
    lines.push(`${f.blocking ? '[x]' : '[i]'} ${f.mode}: ${f.summary}`);
    if (f.evidence.exampleKeys.length) lines.push(`    e.g. ${f.evidence.exampleKeys.slice(0, 3).join('; ')}`);
  }
  for (const u of r.unnamed) lines.push(`[?] diverges: ${u}`);
  lines.push(`reads:   target rows read ${fmt(r.reads.targetRowsRead)}, avoided ${fmt(r.reads.targetRowsAvoided)} (baseline); source rows read ${fmt(r.reads.sourceRowsRead)}`);
  if (r.baseline?.refused) lines.push(`baseline: not used: ${r.baseline.refused}`);
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// markdown
// ---------------------------------------------------------------------------------------------

export interface MarkdownSection {
  title: string;
  markdown: string;
}

/**
 * Text from a table or a contract as inert markdown: one line (control characters escaped), every
 * markdown and HTML metacharacter escaped, so a column name or a value cannot open a heading, a
 * link, an image, raw HTML or a new table cell in a GitHub step summary.
 */
export function mdEscape(s: string): string {
  return escapeControl(s)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~:=^$"']/g, (c) => `\\${c}`);
}

/** A code span that holds any text: fenced with more backticks than it contains, one line, `|` escaped for tables. */
export function mdCode(s: string): string {
  const t = escapeControl(s).replace(/\|/g, '\\|');
  const run = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(run + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || t.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * The partition cell of an example row: "a -> b" only when the row moved (the two sides' partitions
 * differ); otherwise the one partition it is in. Marks come from the run's comparison, not the text.
 */
export function rowDiffPartition(r: RowDiff, arrow = '->'): string {
  const s = r.sourcePartition;
  const t = r.targetPartition;
  if (s !== null && t !== null && s !== t) return `${s} ${arrow} ${t}`;
  return s ?? t ?? '-';
}

function mdRowDiffs(rows: RowDiff[]): string {
  if (!rows.length) return '';
  const cols = [...new Set(rows.flatMap((r) => [...Object.keys(r.source ?? {}), ...Object.keys(r.target ?? {})]))].sort();
  const out = [`| key | kind | partition | differing | ${cols.map(mdEscape).join(' | ')} |`, `|---|---|---|---|${cols.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const key = Object.entries(r.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ');
    const cell = (c: string) => {
      const s = r.source?.[c];
      const t = r.target?.[c];
      if (r.source && r.target && r.columns.includes(c)) return `${mdEscape(String(s))} -> **${mdEscape(String(t))}**`;
      return mdEscape(String((r.target ?? r.source)?.[c] ?? ''));
    };
    out.push(`| ${mdEscape(key)} | ${r.kind} | ${mdEscape(rowDiffPartition(r))} | ${r.columns.map(mdEscape).join(', ') || '-'} | ${cols.map(cell).join(' | ')} |`);
  }
  return out.join('\n');
}

export function reconcileMarkdownSections(r: ReconcileResult): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  const summary = [
    `**Verdict: ${r.verdict}** (level ${mdCode(r.level)}, exit code ${r.exitCode})`,
    '',
    `| | source | target |`,
    `|---|---|---|`,
    `| what | ${mdEscape(r.source.description)} (${r.source.kind}) | ${mdEscape(r.target.description)} @ v${r.target.version} |`,
    r.level === 'schema' ? '| rows | not read (schema level) | not read (schema level) |' : `| rows | ${fmt(r.source.rows)} | ${fmt(r.target.rows)} |`,
    `| checksum (sum mod 2^128) | \`${r.source.checksum ?? '-'}\` | \`${r.target.checksum ?? '-'}\` |`,
    `| rows read | ${fmt(r.reads.sourceRowsRead)} (in full: no log) | ${fmt(r.reads.targetRowsRead)} (avoided ${fmt(r.reads.targetRowsAvoided)}) |`,
  ];
  sections.push({ title: 'Reconcile', markdown: summary.join('\n') });

  const f: string[] = [];
  if (!r.findings.length && !r.unnamed.length) f.push(mdEscape(nothingFoundSentence(r)));
  for (const x of r.findings) f.push(mdFinding(x));
  if (r.unnamed.length) {
    f.push('**Divergence no finding names** (the evidence does not say which mode):', '', ...r.unnamed.map((u) => `- ${mdEscape(u)}`));
  }
  sections.push({ title: 'Findings', markdown: f.join('\n\n') });

  const parts = [`| partition | source rows | target rows | source checksum | target checksum | state |`, `|---|---|---|---|---|---|`];
  for (const p of r.partitions) {
    parts.push(`| ${mdEscape(p.partition)} | ${fmt(p.sourceRows)} | ${fmt(p.targetRows)} | \`${short(p.sourceChecksum)}\` | \`${short(p.targetChecksum)}\`${p.inherited ? ' (baseline)' : ''} | ${p.state === 'match' || p.state === 'counts_match' ? p.state : `**${p.state}**`} |`);
  }
  sections.push({ title: 'Partitions', markdown: r.partitions.length ? parts.join('\n') : mdEscape(noPartitionsSentence(r.level)) });

  if (r.columnDiffs.length || r.rowDiffs.length) {
    const rows: string[] = [];
    if (r.columnDiffs.length) rows.push(`Columns that differ on matched keys: ${r.columnDiffs.map((c) => `${mdCode(c.column)} (${fmt(c.rows)})`).join(', ')}`);
    if (r.rowDiffs.length) rows.push(mdRowDiffs(r.rowDiffs));
    sections.push({ title: 'Example rows', markdown: rows.join('\n\n') });
  }
  const c = r.contract;
  const contract = [
    `Contract ${mdCode(c.name)}${c.path ? ` (${mdEscape(c.path)})` : ''}: keys ${c.keys.map(mdCode).join(', ')}; partition ${c.partitionColumn ? `${mdCode(c.partitionColumn)}${c.partitionExpression ? ` = ${mdCode(c.partitionExpression)}` : ''}` : 'none'}; `
      + `floats ${Object.entries(c.floats).map(([k, v]) => `${mdCode(k)} ${v === 'exclude' ? 'excluded (exact sum)' : `tolerance ${v.tolerance}`}`).join(', ') || 'none'}; naive timestamps ${c.naiveIsUtc ? 'are UTC' : 'refused'}; `
      + `ignore ${c.ignore.map(mdEscape).join(', ') || 'nothing'}; ordering ${c.ordering === null ? 'none' : mdEscape(c.ordering)}.`,
    `Digest ${mdCode(r.digest)}: ${describeDigest(r.digest)}. DuckDB ${r.engine.duckdb}, lakerec ${r.engine.lakerec}; ${(r.durationMs / 1000).toFixed(2)} s.`,
    ...r.notes.map((n) => `- ${mdEscape(n)}`),
  ];
  sections.push({ title: 'How it was compared', markdown: contract.join('\n\n') });
  return sections;
}

function mdFinding(x: Finding): string {
  const ev = x.evidence;
  const lines = [
    `### ${x.blocking ? '❌' : 'ℹ️'} ${mdCode(x.mode)}: ${mdEscape(x.summary)}`,
    '',
    `*Meaning.* ${mdEscape(x.meaning)}`,
    '',
    `*Evidence* (level ${x.level}): ${Object.entries(ev.counts).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`
      + `${ev.partitions.length ? `; partitions ${ev.partitions.map(mdEscape).join(', ')}` : ''}${ev.exampleKeys.length ? `; e.g. ${ev.exampleKeys.slice(0, 5).map(mdCode).join(', ')}` : ''}`,
    ...ev.notes.map((n) => `- ${mdEscape(n)}`),
    '',
    `*Action.* ${mdEscape(x.action)}`,
  ];
  return lines.join('\n');
}

/** A whole markdown document; `extra` sections go after the reconcile ones. */
export function renderMarkdown(r: ReconcileResult, extra: MarkdownSection[] = []): string {
  const secs = [...reconcileMarkdownSections(r), ...extra];
  return secs.map((s, i) => `${i === 0 ? '#' : '##'} ${s.title}\n\n${s.markdown}\n`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------------

export interface HtmlSection {
  id: string;
  title: string;
  /** Trusted HTML (build it with `esc` for any text). */
  html: string;
}

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Bars of source vs target rows per partition; disagreeing partitions are marked. */
export function partitionChartSvg(parts: PartitionResult[]): string {
  const w = 720;
  const rowH = 26;
  const labelW = 170;
  const h = parts.length * rowH + 40;
  const max = Math.max(1, ...parts.map((p) => Math.max(p.sourceRows, p.targetRows)));
  const scale = (n: number) => ((w - labelW - 90) * n) / max;
  const bars = parts.map((p, i) => {
    const y = 30 + i * rowH;
    const bad = p.state !== 'match' && p.state !== 'counts_match';
    return `<g><text x="${labelW - 8}" y="${y + 13}" text-anchor="end" class="lbl${bad ? ' bad' : ''}">${esc(p.partition)}</text>`
      + `<rect x="${labelW}" y="${y}" width="${scale(p.sourceRows).toFixed(1)}" height="9" class="src"><title>source ${fmt(p.sourceRows)}</title></rect>`
      + `<rect x="${labelW}" y="${y + 10}" width="${scale(p.targetRows).toFixed(1)}" height="9" class="tgt${bad ? ' bad' : ''}"><title>target ${fmt(p.targetRows)}</title></rect>`
      + `<text x="${labelW + Math.max(scale(p.sourceRows), scale(p.targetRows)) + 6}" y="${y + 14}" class="num">${fmt(p.sourceRows)} / ${fmt(p.targetRows)}</text></g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="100%" role="img" aria-label="rows per partition, source and target">`
    + `<rect x="${labelW}" y="6" width="10" height="9" class="src"/><text x="${labelW + 14}" y="14" class="num">source</text>`
    + `<rect x="${labelW + 70}" y="6" width="10" height="9" class="tgt"/><text x="${labelW + 84}" y="14" class="num">target</text>`
    + `<rect x="${labelW + 140}" y="6" width="10" height="9" class="tgt bad"/><text x="${labelW + 154}" y="14" class="num">target, partition disagrees</text>`
    + bars.join('') + '</svg>';
}

function htmlRowDiffs(rows: RowDiff[]): string {
  const cols = [...new Set(rows.flatMap((r) => [...Object.keys(r.source ?? {}), ...Object.keys(r.target ?? {})]))].sort();
  const head = `<tr><th>key</th><th>kind</th><th>partition</th>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => {
    const key = Object.entries(r.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ');
    const cells = cols.map((c) => {
      const s = r.source?.[c];
      const t = r.target?.[c];
      if (r.source && r.target && r.columns.includes(c)) return `<td class="diff"><del>${esc(String(s))}</del><br><ins>${esc(String(t))}</ins></td>`;
      return `<td>${esc(String((r.target ?? r.source)?.[c] ?? ''))}</td>`;
    }).join('');
    return `<tr><td>${esc(key)}</td><td>${r.kind}</td><td>${esc(rowDiffPartition(r, '\u2192'))}</td>${cells}</tr>`;
  }).join('');
  return `<div class="scroll"><table>${head}${body}</table></div>`;
}

function htmlFinding(x: Finding): string {
  const ev = x.evidence;
  return `<div class="finding ${x.blocking ? 'blocking' : 'info'}"><h3><code>${x.mode}</code> ${esc(x.summary)}</h3>`
    + `<p><b>Meaning.</b> ${esc(x.meaning)}</p>`
    + `<p><b>Evidence</b> (level ${x.level}): ${esc(Object.entries(ev.counts).map(([k, v]) => `${k} ${fmt(v)}`).join(', '))}`
    + `${ev.partitions.length ? `; partitions ${esc(ev.partitions.join(', '))}` : ''}</p>`
    + (ev.exampleKeys.length ? `<p>Example keys: ${ev.exampleKeys.slice(0, 8).map((k) => `<code>${esc(k)}</code>`).join(' ')}</p>` : '')
    + (ev.notes.length ? `<ul>${ev.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '')
    + (ev.exampleRows.length ? htmlRowDiffs(ev.exampleRows.slice(0, 5)) : '')
    + `<p><b>Action.</b> ${esc(x.action)}</p></div>`;
}

export function reconcileHtmlSections(r: ReconcileResult): HtmlSection[] {
  const verdictClass = r.verdict === 'matches' ? 'ok' : 'bad';
  const summary = `<p class="verdict ${verdictClass}">${r.verdict === 'matches' ? 'Matches' : 'Diverges'} <small>level ${esc(r.level)} &middot; exit ${r.exitCode}</small></p>`
    + `<table><tr><th></th><th>source</th><th>target</th></tr>`
    + `<tr><th>what</th><td>${esc(r.source.description)} (${r.source.kind})</td><td>${esc(r.target.description)} @ v${r.target.version}</td></tr>`
    + (r.level === 'schema' ? '<tr><th>rows</th><td colspan="2">not read: the schema level compares columns and types only</td></tr>' : `<tr><th>rows</th><td>${fmt(r.source.rows)}</td><td>${fmt(r.target.rows)}</td></tr>`)
    + `<tr><th>checksum</th><td><code>${r.source.checksum ?? '-'}</code></td><td><code>${r.target.checksum ?? '-'}</code></td></tr>`
    + `<tr><th>rows read</th><td>${fmt(r.reads.sourceRowsRead)} (in full: a source has no log)</td><td>${fmt(r.reads.targetRowsRead)} (${fmt(r.reads.targetRowsAvoided)} avoided by the baseline)</td></tr></table>`;
  const findings = (r.findings.length || r.unnamed.length)
    ? r.findings.map(htmlFinding).join('') + (r.unnamed.length ? `<div class="finding blocking"><h3>Divergence no finding names</h3><ul>${r.unnamed.map((u) => `<li>${esc(u)}</li>`).join('')}</ul></div>` : '')
    : `<p>${esc(nothingFoundSentence(r))}</p>`;
  const partsTable = `<table><tr><th>partition</th><th>source rows</th><th>target rows</th><th>source checksum</th><th>target checksum</th><th>state</th></tr>`
    + r.partitions.map((p) => `<tr class="${p.state === 'match' || p.state === 'counts_match' ? '' : 'badrow'}"><td>${esc(p.partition)}</td><td>${fmt(p.sourceRows)}</td><td>${fmt(p.targetRows)}</td><td><code>${short(p.sourceChecksum)}</code></td><td><code>${short(p.targetChecksum)}</code>${p.inherited ? ' (baseline)' : ''}</td><td>${p.state}</td></tr>`).join('')
    + '</table>';
  const sections: HtmlSection[] = [
    { id: 'summary', title: 'Reconcile', html: summary },
    { id: 'findings', title: 'Findings', html: findings },
    { id: 'partitions', title: 'Partitions', html: r.partitions.length ? partitionChartSvg(r.partitions) + partsTable : `<p>${esc(noPartitionsSentence(r.level))}</p>` },
  ];
  if (r.rowDiffs.length || r.columnDiffs.length) {
    sections.push({
      id: 'rows', title: 'Example rows',
      html: (r.columnDiffs.length ? `<p>Columns that differ on matched keys: ${r.columnDiffs.map((c) => `<code>${esc(c.column)}</code> (${fmt(c.rows)})`).join(', ')}</p>` : '') + (r.rowDiffs.length ? htmlRowDiffs(r.rowDiffs) : ''),
    });
  }
  const c = r.contract;
  sections.push({
    id: 'contract', title: 'How it was compared',
    html: `<p>Contract <code>${esc(c.name)}</code>${c.path ? ` (${esc(c.path)}, sha256 <code>${esc((c.sha256 ?? '').slice(0, 16))}</code>)` : ''}: keys ${c.keys.map((k) => `<code>${esc(k)}</code>`).join(', ')}; partition ${c.partitionColumn ? `<code>${esc(c.partitionColumn)}</code>${c.partitionExpression ? ` = <code>${esc(c.partitionExpression)}</code>` : ''}` : 'none'}; ordering ${esc(c.ordering ?? 'none')}.</p>`
      + `<p>Digest <code>${esc(r.digest)}</code>: ${esc(describeDigest(r.digest))}. DuckDB ${esc(r.engine.duckdb)}, lakerec ${esc(r.engine.lakerec)}, ${(r.durationMs / 1000).toFixed(2)} s, started ${esc(r.startedAt)}.</p>`
      + (r.notes.length ? `<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''),
  });
  return sections;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1b1f24}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}.verdict{font-size:1.4rem;font-weight:600}.verdict.ok{color:#1a7f37}.verdict.bad{color:#cf222e}
.finding{border-left:4px solid #cf222e;padding:.2rem .8rem;margin:1rem 0;background:#fff8f8}.finding.info{border-color:#0969da;background:#f6f8fa}
.badrow td{background:#fff1f0}.diff del{color:#cf222e}.diff ins{color:#1a7f37;text-decoration:none;font-weight:600}.scroll{overflow-x:auto}
svg .src{fill:#8c959f}svg .tgt{fill:#0969da}svg .tgt.bad{fill:#cf222e}svg text{font-size:11px;fill:#1b1f24}svg .lbl.bad{fill:#cf222e;font-weight:600}
footer{margin-top:3rem;color:#57606a;font-size:.85rem}`;

/** One self-contained HTML document from sections (no script, no external resource). */
export function renderHtmlReport(opts: { title: string; sections: HtmlSection[]; generatedAt?: string }): string {
  const nav = opts.sections.map((s) => `<a href="#${esc(s.id)}">${esc(s.title)}</a>`).join(' &middot; ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`
    + `<title>${esc(opts.title)}</title><style>${CSS}</style></head><body><h1>${esc(opts.title)}</h1><nav>${nav}</nav>`
    + opts.sections.map((s) => `<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>${s.html}</section>`).join('')
    + `<footer>lakerec report${opts.generatedAt ? `, ${esc(opts.generatedAt)}` : ''}. Self-contained: no script, no network.</footer></body></html>\n`;
}

/** The reconcile report as one HTML file; `extra` sections (bisect, timeline) go after. */
export function renderReconcileHtml(r: ReconcileResult, extra: HtmlSection[] = []): string {
  return renderHtmlReport({
    title: `lakerec reconcile: ${r.verdict} (${r.contract.name}, level ${r.level})`,
    sections: [...reconcileHtmlSections(r), ...extra],
    generatedAt: r.startedAt,
  });
}

export function renderJson(r: ReconcileResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}
