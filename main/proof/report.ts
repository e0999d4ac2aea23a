// The proof as text (the CLI) and as one self-contained HTML file. Both show only what the result
// holds, which is already masked: confidential values never reach a report.
import type { ProofResult } from '../../shared/proof';
import type { OdsFingerprint } from '../../shared/fingerprint';

const MARK = { pass: 'PASS', fail: 'FAIL', warn: 'WARN' } as const;

export function proofText(r: ProofResult, opts: { evidence?: boolean } = {}): string {
  const lines: string[] = [`round-trip proof: ${r.engines[0]} -> ${r.engines[1]}  (${r.ms} ms, sandbox ${r.sandbox}, deleted)`, '', 'steps'];
  for (const s of r.steps) {
    const state = s.status === 'done' ? (s.differences.length ? 'differs' : 'matches') : s.status;
    lines.push(`  ${s.id.padEnd(8)} ${s.title.padEnd(28)} ${String(s.rows ?? '-').padStart(6)} rows  ${state}${s.error ? `: ${s.error}` : ''}  (${s.ms} ms)`);
  }
  lines.push('', 'checks');
  for (const c of r.checks) {
    lines.push(`  ${MARK[c.status]}  ${c.name.padEnd(18)} ${c.summary}`);
    if (opts.evidence || c.status !== 'pass') for (const e of c.evidence) lines.push(`        ${e}`);
  }
  lines.push('', r.passed ? 'the proof passed' : `the proof FAILED: ${r.checks.filter((c) => c.status === 'fail').map((c) => c.name).join(', ')}`);
  return lines.join('\n') + '\n';
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function fpTable(fp: OdsFingerprint | null): string {
  if (!fp) return '<p>no fingerprint</p>';
  const rows = fp.columns.map((c) => {
    const figs = c.kind === 'hash' ? `hash ${c.hash}` : c.kind === 'float'
      ? `nan ${c.nan} · +inf ${c.posinf} · −inf ${c.neginf} · min ${String(c.min)} · max ${String(c.max)} · sum ${String(c.sum)}` : '';
    return `<tr><td>${esc(c.name)}</td><td>${c.kind}</td><td>${c.nulls}</td><td class="mono">${esc(figs)}</td></tr>`;
  }).join('');
  return `<table><thead><tr><th>column</th><th>kind</th><th>nulls</th><th>figures</th></tr></thead><tbody><tr><td>rows</td><td></td><td></td><td class="mono">${fp.rows}</td></tr>${rows}</tbody></table>`;
}

export function proofHtml(r: ProofResult): string {
  const steps = r.steps.map((s) => `<details${s.differences.length || s.error ? ' open' : ''}><summary><b>${esc(s.title)}</b> — ${s.status}, ${s.rows ?? '-'} rows, ${s.ms} ms${s.differences.length ? ` — <span class="fail">${s.differences.length} difference(s)</span>` : s.status === 'done' ? ' — <span class="pass">matches the generated data</span>' : ''}${s.error ? ` — <span class="fail">${esc(s.error)}</span>` : ''}</summary>
<p>fingerprint by ${esc(s.fingerprintBy ?? '-')}${s.fingerprintCheckBy ? `, checked by ${esc(s.fingerprintCheckBy)}` : ''}</p>
${s.differences.length ? `<ul>${s.differences.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>` : ''}${fpTable(s.fingerprint)}</details>`).join('\n');
  const checks = r.checks.map((c) => `<tr><td class="${c.status}">${MARK[c.status]}</td><td>${esc(c.name)}</td><td>${c.kind}</td><td>${esc(c.summary)}<ul>${c.evidence.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></td></tr>`).join('');
  const profiles = r.profiles.map((p) => `<tr><td>${esc(p.name)}</td><td>${esc(p.type)}</td><td>${esc(p.sensitivity ?? '')}</td><td>${p.rows}</td><td>${p.nulls}</td><td>${p.distinct}</td><td>${esc(p.min ?? '')}</td><td>${esc(p.max ?? '')}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>lakerec round-trip proof ${esc(r.engines.join(' -> '))}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}.mono{font-family:ui-monospace,monospace;font-size:12px}.pass{color:#176f2c;font-weight:bold}.fail{color:#b00020;font-weight:bold}.warn{color:#8a6100;font-weight:bold}ul{margin:.2em 0;padding-left:1.2em}</style></head>
<body><h1>Round-trip proof: ${esc(r.engines[0])} → ${esc(r.engines[1])}</h1>
<p class="${r.passed ? 'pass' : 'fail'}">${r.passed ? 'The proof passed.' : 'The proof failed.'}</p>
<p>${esc(r.startedAt)} · ${r.ms} ms · sandbox ${esc(r.sandbox)} (deleted)</p>
<h2>Checks</h2><table><tbody>${checks}</tbody></table>
<h2>Steps</h2>${steps}
<h2>Profiles of the read-back (confidential columns: counts only)</h2>
<table><thead><tr><th>column</th><th>type</th><th>sensitivity</th><th>rows</th><th>nulls</th><th>distinct</th><th>min</th><th>max</th></tr></thead><tbody>${profiles}</tbody></table>
</body></html>
`;
}
