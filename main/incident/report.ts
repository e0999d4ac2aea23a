// The incident report: one self-contained HTML file (inline CSS and SVG, no script, no network)
// made of the reconcile report's own sections (main/reconcile/report.ts) plus a timeline excerpt
// from forensics, a bisect of the table's history, and the contract used. The window's "Export
// incident report" and the CLI's `--html` both call renderIncidentHtml, so the same inputs give
// the same file. Every value of a confidential column is masked before any section sees it.
import { NO_WHO, whoText } from '../../shared/forensics';
import { examinedText, type BisectResult, type PredicateSpec } from '../../shared/bisect';
import { toErrorData } from '../../shared/errors';
import type { ForensicsResult, VersionSummary } from '../../shared/forensics';
import { throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { ReconcileResult } from '../../shared/reconcile';
import { isCountsOnly, type Sensitivity } from '../../shared/sensitivity';
import { bisect } from '../bisect/bisect';
import { forensics } from '../forensics/forensics';
import { esc, reconcileHtmlSections, renderHtmlReport, type HtmlSection } from '../reconcile/report';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from './mask';
import type { KeysResult, LawsResult, MutationResult } from '../../shared/trust';
import { keysHtml, lawsHtml, mutationHtml, rowsBehindHtml } from '../trust/report';

export interface IncidentTrust {
  mutation?: MutationResult | null;
  keys?: KeysResult | null;
  laws?: LawsResult | null;
}

export interface IncidentInput {
  reconcile: ReconcileResult;
  /** Absolute table root (the report names it). */
  table: string;
  /** The contract's YAML text as it was used, when known. */
  contractText?: string | null;
  /** Column -> sensitivity, from the contract's tags and the table's schema (the stronger wins). */
  sensitivity?: Record<string, Sensitivity>;
  forensics?: ForensicsResult | null;
  /** Why there is no timeline (it failed, or was not asked for). */
  forensicsNote?: string | null;
  bisect?: BisectResult | null;
  bisectNote?: string | null;
  /** Trust results shown when present: the mutation score, keys and relationships, data laws. */
  trust?: IncidentTrust | null;
  toolVersion: string;
  /** ISO time the report was made. */
  generatedAt: string;
}

// ---------------------------------------------------------------------------------------------
// composing: the timeline and the bisect a reconcile result points at
// ---------------------------------------------------------------------------------------------

/** The bisect predicate the findings name, or null when none fits. */
export function bisectSpecFor(r: ReconcileResult, sourcePath: string | null): PredicateSpec | null {
  if (r.verdict === 'matches') return null;
  const modes = new Set(r.findings.filter((f) => f.blocking).map((f) => f.mode));
  const keys = r.contract.keys.map((k) => r.contract.renames[k] ?? k);
  if (modes.has('double_load')) return { predicate: 'unique-keys', keys };
  if (modes.has('null_keys')) return { predicate: 'no-null-keys', keys };
  // Otherwise: the first disagreeing partition against the source, when the source is a file.
  const bad = r.partitions.find((p) => p.state !== 'match' && p.state !== 'counts_match' && p.state !== 'late' && p.value !== null);
  if (bad && sourcePath && r.source.kind !== 'delta' && r.contract.partitionColumn) {
    return { predicate: 'matches-source', partition: bad.partition, source: sourcePath };
  }
  return null;
}

export interface ComposeOptions {
  result: ReconcileResult;
  table: string;
  /** The source path the reconcile read (for a matches-source bisect). */
  source: string | null;
  contractText?: string | null;
  trust?: IncidentTrust | null;
  toolVersion: string;
  ctx?: JobContext;
  /** Fixed time for reproducible files (tests); default now. */
  now?: Date;
}

/** Gathers everything the incident report shows: forensics and a bisect are run here. */
export async function composeIncident(o: ComposeOptions): Promise<IncidentInput> {
  const ctx = o.ctx;
  const input: IncidentInput = {
    reconcile: o.result,
    table: o.table,
    contractText: o.contractText ?? null,
    trust: o.trust ?? null,
    sensitivity: sensitivityOf(o.result, await schemaSensitivity(o.table, o.result.target.version)),
    toolVersion: o.toolVersion,
    generatedAt: (o.now ?? new Date()).toISOString(),
  };
  ctx?.progress?.({ phase: 'reading the timeline', done: 0, total: 2 });
  try {
    input.forensics = await forensics(o.table, { ctx });
  } catch (e) {
    const err = toErrorData(e);
    if (err.code === 'cancelled') throw e;
    input.forensicsNote = `The timeline could not be read: ${err.message}`;
  }
  throwIfCancelled(ctx);
  const spec = bisectSpecFor(o.result, o.source);
  if (!spec) {
    input.bisectNote = o.result.verdict === 'matches'
      ? 'Not run: the table matches its source, there is nothing to bisect.'
      : 'Not run: no finding names a predicate the history can be searched with (see the findings).';
  } else {
    ctx?.progress?.({ phase: `bisecting the history (${spec.predicate})`, done: 1, total: 2 });
    try {
      input.bisect = await bisect(o.table, spec, { signal: ctx?.signal });
    } catch (e) {
      const err = toErrorData(e);
      if (err.code === 'cancelled') throw e;
      input.bisectNote = `The bisect (${spec.predicate}) could not run: ${err.message}`;
    }
  }
  ctx?.progress?.({ phase: 'writing the report', done: 2, total: 2 });
  return input;
}

// ---------------------------------------------------------------------------------------------
// sections
// ---------------------------------------------------------------------------------------------

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '?' : n.toLocaleString('en-US'));

/** The commit an incident is about: what the table looked like when it broke into today's state. */
export interface IncidentBreak {
  version: number;
  lastGood: number | null;
  /** Why this is not the bisect's first bad version (a history that was bad, recovered, broke again). */
  note: string | null;
}

/**
 * The break that leads to the latest state. A partition not loaded yet is "bad" against the
 * source in the first versions, then good once loaded; the incident is the last time it broke,
 * not version 0. An exhaustive walk knows every transition; a binary search has one.
 */
export function incidentBreak(b: BisectResult): IncidentBreak | null {
  const broke = b.transitions.filter((t) => t.kind === 'broke');
  const last = broke[broke.length - 1];
  if (last && b.latestState === 'bad' && last.to !== b.firstBad) {
    const recovered = b.transitions.filter((t) => t.kind === 'recovered').map((t) => `v${t.to}`);
    return {
      version: last.to, lastGood: last.from,
      note: `The first bad version is v${b.firstBad ?? '?'}, but the history recovered at ${recovered.join(', ') || '?'}; the break that leads to the latest version is v${last.from} → v${last.to}.`,
    };
  }
  if (b.firstBad === null) return null;
  return { version: b.firstBad, lastGood: b.lastGood, note: null };
}

function paramsText(p: Record<string, unknown>): string {
  return Object.entries(p).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
}

/** One commit as a small table: from the bisect's culprit when it is that version, else the timeline's summary. */
function commitTable(v: number, b: BisectResult, f: ForensicsResult | null | undefined): string {
  const c = b.culprit && b.culprit.version === v ? b.culprit : null;
  const s = f?.versions.find((x) => x.version === v) ?? null;
  if (!c && !s) return `<p>v${v} (the log's summary of this version is not available).</p>`;
  // The culprit is a pick of the same VersionSummary: either says the same of the commit.
  const sum = c ?? s!;
  const { when, operation: op, operationParameters: params } = sum;
  const files = `+${sum.addedFiles} / −${sum.removedFiles} (rows +${fmt(sum.addedRows)} / −${fmt(sum.removedRows)})`
    + (sum.rewrittenFiles ? `; ${sum.rewrittenFiles} rewritten in place (−${sum.dvDeletedRows} row(s) by deletion vectors)` : '');
  const parts = sum.partitions;
  return `<table class="kv"><tr><th>commit</th><td>v${v}, ${esc(when)}</td></tr><tr><th>operation</th><td><code>${esc(op ?? '(no commitInfo)')}</code> ${esc(paramsText(params))}</td></tr>`
    + `<tr><th>files</th><td>${files}</td></tr>`
    + `<tr><th>partitions</th><td>${esc(parts.join(', ') || '-')}</td></tr>`
    + (c?.addedPaths.length ? `<tr><th>added</th><td>${c.addedPaths.slice(0, 6).map((x) => `<code>${esc(x)}</code>`).join('<br>')}</td></tr>` : '')
    + (c?.removedPaths.length ? `<tr><th>removed</th><td>${c.removedPaths.slice(0, 6).map((x) => `<code>${esc(x)}</code>`).join('<br>')}</td></tr>` : '')
    + (c?.rewrittenPaths.length ? `<tr><th>rewritten in place</th><td>${c.rewrittenPaths.slice(0, 6).map((x) => `<code>${esc(x)}</code>`).join('<br>')}</td></tr>` : '')
    + (s?.writer ? `<tr><th>writer</th><td>${esc(s.writer)}</td></tr>` : '')
    + (whoText(c?.who ?? s?.who ?? NO_WHO) ? `<tr><th>who</th><td>${esc(whoText(c?.who ?? s?.who ?? NO_WHO))}</td></tr>` : '')
    + '</table>';
}

function culpritLine(i: IncidentInput): string {
  const b = i.bisect;
  if (!b) return 'no bisect';
  const brk = incidentBreak(b);
  if (!brk) return `none (${b.headline})`;
  const c = b.culprit && b.culprit.version === brk.version ? b.culprit : null;
  const s = i.forensics?.versions.find((x) => x.version === brk.version) ?? null;
  return `v${brk.version} ${c?.operation ?? s?.operation ?? '(no commitInfo)'} at ${c?.when ?? s?.when ?? '?'}`;
}

/** The versions worth showing: around the culprit and the warnings, else the latest ones. */
export function timelineExcerpt(f: ForensicsResult, b: BisectResult | null, max = 14): VersionSummary[] {
  const vs = f.versions;
  if (vs.length <= max) return vs;
  const focus = new Set<number>();
  const brk = b ? incidentBreak(b) : null;
  if (brk) for (let v = brk.version - 3; v <= brk.version + 2; v++) focus.add(v);
  for (const h of f.heuristics) if (h.severity === 'warn') focus.add(h.version);
  for (let i = vs.length - 1; i >= 0 && focus.size < max; i--) focus.add(vs[i].version);
  return vs.filter((v) => focus.has(v.version)).slice(-max);
}

/** Rows of the table after each version, as bars; the culprit and warnings are marked. */
export function timelineSvg(vs: VersionSummary[], culprit: number | null, warned: Set<number>): string {
  const w = 720;
  const h = 150;
  const left = 56;
  const bottom = 28;
  const n = Math.max(1, vs.length);
  const slot = (w - left - 10) / n;
  const max = Math.max(1, ...vs.map((v) => v.tableRows ?? 0));
  const bars = vs.map((v, i) => {
    const rows = v.tableRows ?? 0;
    const bh = ((h - bottom - 18) * rows) / max;
    const x = left + i * slot + slot * 0.15;
    const cls = v.version === culprit ? 'bar culprit' : warned.has(v.version) ? 'bar warn' : 'bar';
    return `<rect x="${x.toFixed(1)}" y="${(h - bottom - bh).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${bh.toFixed(1)}" class="${cls}">`
      + `<title>v${v.version} ${esc(v.operation ?? '')}: ${fmt(v.tableRows)} rows</title></rect>`
      + `<text x="${(x + slot * 0.35).toFixed(1)}" y="${h - bottom + 14}" text-anchor="middle" class="num${v.version === culprit ? ' bad' : ''}">v${v.version}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="100%" role="img" aria-label="table rows after each version">`
    + `<text x="${left - 6}" y="14" text-anchor="end" class="num">${fmt(max)}</text><text x="${left - 6}" y="${h - bottom}" text-anchor="end" class="num">0</text>`
    + `<line x1="${left}" y1="${h - bottom}" x2="${w - 10}" y2="${h - bottom}" class="axis"/>`
    + bars.join('')
    + `<text x="${left}" y="${h - 2}" class="num">rows in the table after each version (from the log's stats); red: the bisect's culprit, amber: a heuristic warned</text>`
    + '</svg>';
}

/** The source as a reader can find it again: an upload by its name, size and sha256 (its temporary path is gone). */
function sourceOfTruth(s: ReconcileResult['source']): string {
  const rows = s.rows === null ? 'rows not read' : `${fmt(s.rows)} rows`;
  if (s.upload) {
    return `${esc(s.upload.name)}, uploaded in web mode: ${fmt(s.upload.bytes)} bytes, sha256 <code>${esc(s.upload.sha256)}</code> (${s.kind}, ${rows})`;
  }
  return `${esc(s.description)} (${s.kind}, ${rows})`;
}

function summarySection(i: IncidentInput): HtmlSection {
  const r = i.reconcile;
  const f = i.forensics;
  const b = i.bisect;
  const blocking = r.findings.filter((x) => x.blocking).map((x) => x.mode);
  const versions = f
    ? `v${f.versions[0]?.version ?? '?'} to v${f.latestVersion} (${f.versions.length} versions in the log)`
    : 'the timeline was not read';
  const rows: [string, string][] = [
    ['Table', `<code>${esc(i.table)}</code>`],
    ['Version reconciled', `v${r.target.version ?? '?'}`],
    ['Versions examined', esc(versions) + (b ? `; the bisect examined ${esc(examinedText(b))} (${esc(b.probes.map((p) => `v${p.version} ${p.state}`).join(', '))})` : '')],
    ['Verdict', `<b class="${r.verdict === 'matches' ? 'okc' : 'badc'}">${r.verdict}</b> (level ${esc(r.level)}, exit code ${r.exitCode})${blocking.length ? `: ${blocking.map((m) => `<code>${m}</code>`).join(', ')}` : ''}`],
    ['Culprit commit', esc(culpritLine(i))],
    ['Source of truth', sourceOfTruth(r.source)],
    ['Contract', `<code>${esc(r.contract.name)}</code>${r.contract.sha256 ? ` sha256 <code>${esc(r.contract.sha256.slice(0, 16))}</code>` : ''}`],
    ['Made by', `lakerec ${esc(i.toolVersion)} (DuckDB ${esc(r.engine.duckdb)}), ${esc(i.generatedAt)}`],
  ];
  const masked = Object.entries(i.sensitivity ?? {}).filter(([, s]) => isCountsOnly(s)).map(([c]) => c);
  return {
    id: 'incident', title: 'Incident',
    html: `<table class="kv">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>`
      + (masked.length ? `<p class="note">Values of ${masked.map((c) => `<code>${esc(c)}</code>`).join(', ')} are masked (sensitivity confidential or stronger): counts only.</p>` : ''),
  };
}

function timelineSection(i: IncidentInput): HtmlSection {
  const f = i.forensics;
  if (!f) return { id: 'timeline', title: 'Timeline excerpt', html: `<p>${esc(i.forensicsNote ?? 'Not read.')}</p>` };
  const culprit = i.bisect ? incidentBreak(i.bisect)?.version ?? null : null;
  const warned = new Set(f.heuristics.filter((h) => h.severity === 'warn').map((h) => h.version));
  const vs = timelineExcerpt(f, i.bisect ?? null);
  const table = `<table><tr><th>version</th><th>when (UTC)</th><th>operation</th><th>+ files</th><th>− files</th><th>+ rows</th><th>− rows</th><th>rows after</th><th>partitions</th></tr>`
    + vs.map((v) => `<tr class="${v.version === culprit ? 'badrow' : ''}"><td>v${v.version}</td><td>${esc(v.when)}</td><td>${esc(v.operation ?? '(none)')}</td>`
      + `<td>${v.addedFiles}</td><td>${v.removedFiles}</td><td>${fmt(v.addedRows)}</td><td>${fmt(v.removedRows)}</td><td>${fmt(v.tableRows)}</td>`
      + `<td>${esc(v.partitions.slice(0, 4).join(', '))}${v.partitions.length > 4 ? ` (+${v.partitions.length - 4})` : ''}</td></tr>`).join('')
    + '</table>';
  const shown = new Set(vs.map((v) => v.version));
  const hits = f.heuristics.filter((h) => shown.has(h.version));
  const heur = hits.length
    ? `<ul>${hits.map((h) => `<li><b>v${h.version}</b> <code>${h.name}</code> (${h.severity}): ${esc(h.message)}</li>`).join('')}</ul>`
    : '<p>No heuristic fired on these versions.</p>';
  const note = vs.length < f.versions.length ? `<p class="note">${vs.length} of ${f.versions.length} versions shown: those around the culprit and the warnings, then the latest.</p>` : '';
  return { id: 'timeline', title: 'Timeline excerpt', html: timelineSvg(vs, culprit, warned) + table + note + heur };
}

function bisectSection(i: IncidentInput): HtmlSection {
  const b = i.bisect;
  if (!b) return { id: 'bisect', title: 'Bisect', html: `<p>${esc(i.bisectNote ?? 'Not run.')}</p>` };
  const p = b.predicate;
  const spec = [p.predicate, p.keys ? `keys ${p.keys.join(', ')}` : '', p.partition ? `partition ${p.partition}` : '', p.expect !== undefined ? `expect ${p.expect}` : '', p.source ? 'against the source' : '']
    .filter(Boolean).join(', ');
  const brk = incidentBreak(b);
  // The same one-line answer the CLI prints first and the window's banner shows (bisectHeadline).
  const outcome = `<b>${esc(b.headline)}</b>`;
  const breakNote = brk?.note ? `<p><b>Culprit: v${brk.version}.</b> ${esc(brk.note)}</p>` : '';
  return {
    id: 'bisect', title: 'Bisect',
    html: `<p>Predicate <code>${esc(spec)}</code>: ${esc(b.semantics)}</p><p>${outcome} ${b.exhaustive ? 'Every version was walked.' : 'Binary search (assumes one transition).'} Examined ${esc(examinedText(b))}; ${b.filesRead} data file(s) opened.</p>`
      + breakNote
      + (brk ? `<h3>Culprit commit</h3>${commitTable(brk.version, b, i.forensics)}` : '')
      + (b.notes.length ? `<ul>${b.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''),
  };
}

function contractSection(i: IncidentInput): HtmlSection | null {
  if (!i.contractText) return null;
  return { id: 'contract-text', title: 'Contract used', html: `<pre>${esc(i.contractText)}</pre>` };
}

/** Rows behind the findings (with their commits), data laws, keys, the mutation score: each when present. */
function trustSections(r: ReconcileResult, t: IncidentTrust | null): HtmlSection[] {
  const body = (html: string) => html.replace(/^<h2>[^<]*<\/h2>/, '');
  const out: HtmlSection[] = [];
  const rows = rowsBehindHtml(r.rowDiffs);
  if (rows) out.push({ id: 'rows-behind', title: 'Rows behind the findings', html: body(rows) });
  if (t?.laws) out.push({ id: 'laws', title: 'Data laws', html: body(lawsHtml(t.laws)) });
  if (t?.keys) out.push({ id: 'keys', title: 'Keys and relationships', html: body(keysHtml(t.keys)) });
  if (t?.mutation) out.push({ id: 'mutation', title: 'Mutation score', html: body(mutationHtml(t.mutation)) });
  return out;
}

const EXTRA_CSS = `<style>.kv th{width:170px;background:#f6f8fa}.okc{color:#1a7f37}.badc{color:#cf222e}.note{color:#57606a}`
  + `pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.6rem;overflow-x:auto;font-size:12px}`
  + `svg .bar{fill:#0969da}svg .bar.culprit{fill:#cf222e}svg .bar.warn{fill:#bf8700}svg .axis{stroke:#8c959f}svg .num.bad{fill:#cf222e;font-weight:600}`
  // Printed (and PDF): nothing scrolls on paper, so wide tables wrap into the page width and
  // every column appears; landscape pages, long values broken anywhere.
  + `@media print{@page{size:A4 landscape;margin:10mm}body{max-width:none;margin:0;padding:0;font-size:10px}nav{display:none}`
  + `.scroll{overflow:visible}table{width:100%;table-layout:fixed}td,th{font-size:8.5px;padding:2px 3px;overflow-wrap:anywhere;word-break:break-word}`
  + `pre{white-space:pre-wrap;overflow:visible}.finding{break-inside:avoid}h2{break-after:avoid}}</style>`;

/** The sections in report order. */
export function incidentSections(i: IncidentInput): HtmlSection[] {
  const r = maskReconcileResult(i.reconcile, i.sensitivity ?? sensitivityOf(i.reconcile));
  const rec = reconcileHtmlSections(r);
  // The reconcile report ends with how it was compared; the history goes before that.
  const howIdx = rec.findIndex((s) => s.id === 'contract');
  const head = howIdx >= 0 ? rec.slice(0, howIdx) : rec;
  const tail = howIdx >= 0 ? rec.slice(howIdx) : [];
  const contract = contractSection(i);
  return [summarySection(i), ...head, ...trustSections(r, i.trust ?? null), timelineSection(i), bisectSection(i), ...tail, ...(contract ? [contract] : [])];
}

export function incidentTitle(i: IncidentInput): string {
  const name = i.table.split(/[\\/]/).filter(Boolean).slice(-2).join('/');
  return `lakerec incident report: ${name}, ${i.reconcile.verdict}`;
}

/** The whole document. */
export function renderIncidentHtml(i: IncidentInput): string {
  const html = renderHtmlReport({ title: incidentTitle(i), sections: incidentSections(i), generatedAt: i.generatedAt });
  // Our own styles for the added sections, inside the same head (still no external resource).
  return html.replace('</head>', `${EXTRA_CSS}</head>`);
}

/** `lakerec-incident-orders-20261129T171500Z.html` */
export function incidentFileName(i: IncidentInput): string {
  const parts = i.table.split(/[\\/]/).filter(Boolean);
  const base = (parts[parts.length - 1] === 'table' && parts.length > 1 ? parts[parts.length - 2] : parts[parts.length - 1] ?? 'table').replace(/[^A-Za-z0-9_.-]+/g, '_');
  const when = i.generatedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `lakerec-incident-${base}-${when}.html`;
}
