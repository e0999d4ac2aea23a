// The Proof page: pick engine A and engine B, watch the five steps run with each fingerprint,
// then see the twelve checks. Needs no open table: the proof generates its own.
import { useEffect } from 'react';
import type { OdsFingerprint } from '../../shared/fingerprint';
import { PROOF_CHECKS, PROOF_MODES, proofsForMode, type ProofCheck, type ProofMode, type ProofStep, type ProofStepId } from '../../shared/proof';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useProof } from './store';

const STEP_ORDER: ProofStepId[] = ['generate', 'a_write', 'b_read', 'b_write', 'a_read'];

/** FNV-1a of the fingerprint's figures: a short mark that differs when any figure differs (display only). */
function markOf(fp: OdsFingerprint): string {
  const text = JSON.stringify(fp.columns.map((c) => [c.name, c.nulls, c.hash ?? null, c.nan ?? null, c.posinf ?? null, c.neginf ?? null, c.min ?? null, c.max ?? null, c.sum ?? null]));
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** Rows, columns and a mark of all the figures (hover for the whole fingerprint). */
function fingerprintMark(fp: OdsFingerprint | null): string {
  if (!fp) return '—';
  return `${fp.rows} rows · ${fp.columns.length} cols · #${markOf(fp)}`;
}

function StepRow({ id, step, a, b }: { id: ProofStepId; step: ProofStep | undefined; a: string; b: string }) {
  const status = step?.status ?? 'pending';
  const title = step?.title ?? { generate: 'Generate the table', a_write: `${a} writes table a`, b_read: `${b} reads table a`, b_write: `${b} writes table b`, a_read: `${a} reads table b back` }[id];
  const differs = (step?.differences.length ?? 0) > 0;
  return (
    <tr className={`step step-${status}${differs ? ' step-differs' : ''}`} data-testid="proof-step" data-step={id} data-status={status}>
      <td className="step-icon">
        {status === 'running' ? <span className="spinner" aria-label="running" /> : status === 'done' ? (differs ? '≠' : '✓') : status === 'failed' ? '✕' : '○'}
      </td>
      <td className="strong">{title}</td>
      <td className="mono muted">{step?.engine ?? '—'}</td>
      <td className="num mono">{step?.rows ?? '—'}</td>
      <td className="mono fp" title={step?.fingerprint ? JSON.stringify(step.fingerprint, null, 1) : ''}>
        {fingerprintMark(step?.fingerprint ?? null)}
        {step?.fingerprintBy && <span className="muted"> ({step.fingerprintBy}{step.fingerprintCheckBy ? `, checked by ${step.fingerprintCheckBy}` : ''})</span>}
      </td>
      <td className="num mono muted">{step && status !== 'pending' && status !== 'running' ? `${step.ms} ms` : ''}</td>
      <td className="step-note">
        {step?.error ? <span className="remove">{step.error}</span> : differs ? <span className="remove">{step!.differences.slice(0, 2).join('; ')}{step!.differences.length > 2 ? ` (+${step!.differences.length - 2})` : ''}</span> : status === 'done' ? <span className="add">same as generated</span> : ''}
      </td>
    </tr>
  );
}

function CheckRow({ c }: { c: ProofCheck }) {
  return (
    <tr className={`check check-${c.status}`} data-testid="proof-check" data-check={c.name} data-status={c.status}>
      <td><span className={`pill pill-${c.status === 'pass' ? 'ok' : c.status === 'fail' ? 'bad' : 'warn'}`}>{c.status}</span></td>
      <td className="mono strong">{c.name}</td>
      <td className="muted">{c.kind}</td>
      <td className="check-summary">
        {c.summary}
        {c.evidence.length > 0 && (
          <details><summary className="muted">evidence ({c.evidence.length})</summary><ul>{c.evidence.map((e, i) => <li key={i} className="mono">{e}</li>)}</ul></details>
        )}
      </td>
    </tr>
  );
}

export function ProofView() {
  const engines = useProof((s) => s.engines);
  const enginesError = useProof((s) => s.enginesError);
  const a = useProof((s) => s.a);
  const b = useProof((s) => s.b);
  const status = useProof((s) => s.status);
  const steps = useProof((s) => s.steps);
  const result = useProof((s) => s.result);
  const error = useProof((s) => s.error);
  const progress = useProof((s) => s.progress);
  const loadEngines = useProof((s) => s.loadEngines);
  const pick = useProof((s) => s.pick);
  const run = useProof((s) => s.run);
  const cancel = useProof((s) => s.cancel);
  const settings = useProof((s) => s.settings);
  const settingsFile = useProof((s) => s.settingsFile);
  const settingsError = useProof((s) => s.settingsError);
  const loadSettings = useProof((s) => s.loadSettings);
  const setMode = useProof((s) => s.setMode);
  const runDefault = useProof((s) => s.runDefault);
  const batch = useProof((s) => s.batch);

  useEffect(() => {
    if (!engines) void loadEngines();
  }, [engines, loadEngines]);
  useEffect(() => {
    if (!settings && !settingsError) void loadSettings();
  }, [settings, settingsError, loadSettings]);


  const running = status === 'running';
  const byId = new Map(steps.map((s) => [s.id, s]));
  const failed = result?.checks.filter((c) => c.status === 'fail').length ?? 0;

  return (
    <div className="proof-view" data-testid="proof-view">
      <header className="rc-header">
        <h1>Round-trip proof</h1>
        <span className="muted">a generated table built to break naive round trips, through two engines, fingerprinted at every step</span>
      </header>
      {enginesError ? (
        <div className="pad"><ErrorPanel error={enginesError} onRetry={() => void loadEngines()} /></div>
      ) : !engines ? (
        <div className="loading"><div className="loading-row"><span className="spinner" aria-hidden="true" /> Listing the engines…</div></div>
      ) : (
        <div className="proof-setup">
          {(['a', 'b'] as const).map((side) => (
            <label key={side} className="engine-pick">
              <span className="engine-label">Engine {side.toUpperCase()}</span>
              <select data-testid={`engine-${side}`} value={side === 'a' ? a : b} disabled={running} onChange={(e) => pick(side, e.target.value)}>
                {engines.map((e) => <option key={e.name} value={e.name} disabled={e.available === false} title={e.reason ?? e.description}>{e.name}{e.available === false ? ' (not available here)' : ''}</option>)}
              </select>
              <span className="engine-desc muted">{engines.find((e) => e.name === (side === 'a' ? a : b))?.description}</span>
            </label>
          ))}
          <label className="engine-pick" title={settingsFile ? `kept in ${settingsFile}` : undefined}>
            <span className="engine-label">Proofs by default</span>
            <select data-testid="proof-mode" value={settings?.mode ?? ''} disabled={!settings} onChange={(e) => void setMode(e.target.value as ProofMode)}>
              {!settings && <option value="">…</option>}
              {PROOF_MODES.map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
            <span className="engine-desc muted" data-testid="proof-mode-note">
              {settingsError ? settingsError.message : settings?.mode === 'off' ? 'no proof runs unless you start one' : settings?.mode === 'all' ? 'every pair of the engines available here' : 'the generated table, the first two engines'}
              {settings?.dagsterUrl ? ` · records posted to Dagster at ${settings.dagsterUrl}` : ''}
            </span>
          </label>
          <div className="proof-run">
            <button type="button" className="btn btn-primary" data-testid="run-proof" disabled={running || !a || !b} onClick={() => void run()}>Run proof</button>
            {settings && settings.mode !== 'off' && engines && (
              <button type="button" className="btn" data-testid="run-default-proofs" disabled={running} onClick={() => void runDefault()}>
                {`Run the default proofs (${proofsForMode(settings.mode, engines.filter((e) => e.available !== false).map((e) => e.name)).length})`}
              </button>
            )}
          </div>
        </div>
      )}

      {batch.length > 1 && (
        <div className="pad proof-batch" data-testid="proof-batch">
          {batch.map((x, i) => (
            <span key={i} className={`pill pill-${x.passed === null ? 'warn' : x.passed ? 'ok' : 'bad'}`} data-pair={`${x.a},${x.b}`} data-passed={x.passed === null ? '' : String(x.passed)}>
              {x.a} → {x.b}{x.passed === null ? '' : x.passed ? ' ✓' : ' ✕'}
            </span>
          ))}
        </div>
      )}
      {running && <JobProgress progress={progress} waiting="Starting…" onCancel={cancel} testId="proof-progress" cancelTestId="cancel-proof" />}

      {result && (
        <div className={`verdict-banner ${result.passed ? 'ok' : 'bad'}`} data-testid="proof-verdict" data-passed={String(result.passed)}>
          <div className="verdict-mark" aria-hidden="true">{result.passed ? '✓' : '✕'}</div>
          <div className="verdict-body">
            <div className="verdict-title">{result.passed ? 'The data survived the round trip' : `${failed} check${failed === 1 ? '' : 's'} failed`}</div>
            <div className="verdict-sub">{result.engines[0]} → {result.engines[1]} → {result.engines[0]} · {result.steps[0]?.rows ?? '?'} rows · {(result.ms / 1000).toFixed(2)} s · sandbox deleted</div>
          </div>
        </div>
      )}
      {status === 'error' && error && <div className="pad"><ErrorPanel error={error} onRetry={() => void run()} /></div>}

      {(running || steps.length > 0) && (
        <>
          <div className="section-bar">
            <h2>Steps</h2>
          </div>
          <div className="grid-wrap rc-grid">
            <table className="grid" data-testid="proof-steps">
              <thead><tr><th /><th>Step</th><th>Engine</th><th className="num">Rows</th><th>Fingerprint (ods v1)</th><th className="num">Time</th><th>vs the generated data</th></tr></thead>
              <tbody>{STEP_ORDER.map((id) => <StepRow key={id} id={id} step={byId.get(id)} a={a} b={b} />)}</tbody>
            </table>
          </div>
        </>
      )}

      {result && (
        <>
          <div className="section-bar"><h2>Checks</h2><span className="count">{result.checks.length}</span></div>
          <div className="grid-wrap rc-grid">
            <table className="grid checks-grid" data-testid="proof-checks">
              <thead><tr><th>Status</th><th>Check</th><th>Kind</th><th>What was seen</th></tr></thead>
              <tbody>{result.checks.map((c) => <CheckRow key={c.name} c={c} />)}</tbody>
            </table>
          </div>
        </>
      )}

      {status === 'idle' && engines && (
        <div className="rc-empty" data-testid="proof-empty">
          <p>Pick two engines and run: A writes the generated table as Delta, B reads it and writes it again, A reads B&apos;s table back. Each step is fingerprinted and compared; then {PROOF_CHECKS.length} checks.</p>
          <ul className="check-list">{PROOF_CHECKS.map((c) => <li key={c.name}><code>{c.name}</code> <span className="muted">{c.passesWhen}</span></li>)}</ul>
        </div>
      )}
    </div>
  );
}
