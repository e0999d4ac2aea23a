// The Trust tab: how far the open table's reconciliation can be trusted. For the table, the source
// and the contract chosen on the Reconcile screen: the mutation score (each corruption injected into
// a sandbox over the table's files, per level: named, caught, survived; the checked suggestion for
// each survivor), the keys and relationships verified on the data, and the data laws.
import { useEffect, useState } from 'react';
import type { TrustRequest } from '../../shared/api';
import { LEVELS, type Level } from '../../shared/reconcile';
import type { KeysResult, LawsResult, MutantResult, MutationResult, RowProvenance } from '../../shared/trust';
import { useNav } from '../app/nav';
import { useReconcile } from '../state/reconcile';
import { useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { PathInput } from '../ui/PathInput';
import { useTrust } from './store';
import './trust.css';

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`);

function outcomeWord(m: MutantResult): { word: string; cls: string } {
  if (m.status === 'not_applicable') return { word: 'not applicable', cls: 'na' };
  if (m.status === 'equivalent') return { word: 'equivalent', cls: 'na' };
  if (m.expectedMode === null) return m.firstNotices ? { word: 'false alarm', cls: 'bad' } : { word: 'stayed silent', cls: 'ok' };
  if (m.firstNames) return { word: 'named', cls: 'ok' };
  if (m.firstNotices) return { word: 'caught, not named', cls: 'warn' };
  return { word: 'survived', cls: 'bad' };
}

function provenance(p: RowProvenance): string {
  const c = p.commit;
  return `${p.file.split('/').slice(-2).join('/')}${p.row === null ? '' : `#${p.row}`}${c ? ` · v${c.version}${c.operation ? ` ${c.operation}` : ''}${c.timestamp ? ` ${new Date(c.timestamp).toISOString().slice(0, 16).replace('T', ' ')}` : ''}` : ''}`;
}

function LevelTable({ r }: { r: MutationResult }) {
  return (
    <table className="tr-table" data-testid="trust-levels">
      <thead><tr><th>level</th><th>named</th><th>caught</th><th>survived</th><th>score</th><th>named</th></tr></thead>
      <tbody>
        {r.perLevel.map((l) => (
          <tr key={l.level} data-testid={`trust-level-${l.level}`}>
            <td className="mono">{l.level}</td>
            <td className="num">{l.named}</td>
            <td className="num">{l.caught}</td>
            <td className="num">{l.survived}</td>
            <td className="num"><span className="score-bar"><span style={{ width: `${Math.round((l.score ?? 0) * 100)}%` }} /></span>{pct(l.score)}</td>
            <td className="num">{pct(l.namedScore)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MutantRows({ mutants, levels }: { mutants: MutantResult[]; levels: Level[] }) {
  return (
    <table className="tr-table tr-mutants" data-testid="trust-mutants">
      <thead><tr><th>mutant</th><th>outcome</th>{levels.map((l) => <th key={l}>{l}</th>)}<th>what it did · suggestion</th></tr></thead>
      <tbody>
        {mutants.map((m) => {
          const o = outcomeWord(m);
          return (
            <tr key={m.corruption} data-testid={`mutant-${m.corruption}`}>
              <td className="mono">{m.corruption}</td>
              <td><span className={`pill ${o.cls}`}>{o.word}</span></td>
              {levels.map((l) => {
                const c = m.levels.find((x) => x.level === l);
                return <td key={l} className={`lv ${c ? c.outcome : 'none'}`} title={c ? (c.modes.join(', ') || c.verdict) : ''}>{c ? (c.outcome === 'named' ? '●' : c.outcome === 'caught' ? '◐' : '○') : '·'}</td>;
              })}
              <td className="note">
                {m.note}
                {m.suggestions.map((s) => (
                  <div key={s.change} className="suggestion" data-testid="suggestion">
                    <b>Suggestion:</b> {s.change}
                    {s.checked && <span className={s.checked.names ? 'ok-text' : 'muted'}> — checked: {s.checked.names ? `then named at ${s.checked.firstNames}` : s.checked.kills ? `then caught at ${s.checked.firstNotices}` : 'still survives'}</span>}
                    {s.yaml && <pre>{s.yaml}</pre>}
                  </div>
                ))}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function MutationPanel({ req }: { req: TrustRequest | null }) {
  const m = useTrust((s) => s.mutation);
  const levels = useTrust((s) => s.levels);
  const setLevels = useTrust((s) => s.setLevels);
  const seed = useTrust((s) => s.seed);
  const setSeed = useTrust((s) => s.setSeed);
  const run = useTrust((s) => s.runMutation);
  const cancel = useTrust((s) => s.cancelMutation);
  const deepest = levels[levels.length - 1] ?? 'rows';
  const p = m.progress;
  const done = m.mutants.length;
  const total = m.total ?? 13;
  return (
    <section className="tr-section" data-testid="trust-mutation">
      <div className="tr-section-head">
        <h2>Mutation score</h2>
        <span className="muted">each corruption injected into a sandbox over the table’s files (the table is never written), then reconciled with your contract</span>
      </div>
      <div className="tr-controls">
        <label>up to level{' '}
          <select value={deepest} data-testid="trust-level-select" onChange={(e) => setLevels(LEVELS.slice(0, LEVELS.indexOf(e.target.value as Level) + 1))}>
            {LEVELS.map((l) => <option key={l} value={l}>{l}</option>)}
          </select>
        </label>
        <label>seed <input className="seed" type="number" value={seed} onChange={(e) => setSeed(Number(e.target.value) || 0)} /></label>
        <button type="button" className="btn btn-primary" data-testid="run-mutation" disabled={!req || m.status === 'running'} onClick={() => req && void run(req)}>Run mutation score</button>
      </div>
      {m.status === 'running' && (
        <JobProgress
          progress={{ phase: `mutants run${p?.message ? ` (${p.message})` : ''}`, done, total }}
          waiting="Building the sandbox…" onCancel={cancel} testId="trust-progress" cancelTestId="cancel-mutation" className="rc-progress"
        />
      )}
      {m.status === 'error' && m.error && <ErrorPanel error={m.error} onRetry={req ? () => void run(req) : undefined} />}
      {m.status === 'done' && m.result && (
        <div className="tr-score" data-testid="trust-score">
          <div className="big">{m.result.overall.refused === null ? pct(m.result.overall.score) : 'No score'}</div>
          <div>
            <span data-testid="trust-headline">{m.result.overall.headline}.</span>
            {' '}{m.result.overall.notApplicable} not applicable, {m.result.overall.equivalent} equivalent; {m.result.overall.silentChecks - m.result.overall.falseAlarms} of {m.result.overall.silentChecks} silent checks stayed silent.
            <div className="muted">{m.result.sandbox.filesReferenced} data files referenced read-only; sandbox removed; {(m.result.durationMs / 1000).toFixed(1)} s; seed {m.result.seed}</div>
            {m.result.notes.map((n) => <div key={n} className="muted">{n}</div>)}
          </div>
        </div>
      )}
      {m.status === 'done' && m.result && <LevelTable r={m.result} />}
      {m.mutants.length > 0 && <MutantRows mutants={m.mutants} levels={m.result?.levels ?? levels} />}
      {m.status === 'idle' && (
        <div className="rc-empty inline" data-testid="trust-empty">
          {req ? <>Run the mutation score to see, level by level, which corruptions your contract catches on this table.</> : <>Choose the source of truth and the contract on the <b>Reconcile</b> tab (or type the source below) first.</>}
        </div>
      )}
    </section>
  );
}

function KeysView({ r }: { r: KeysResult }) {
  return (
    <table className="tr-table" data-testid="trust-keys-result">
      <thead><tr><th>check</th><th>status</th><th>evidence</th></tr></thead>
      <tbody>
        {r.keys.map((k) => (
          <tr key={k.side + k.columns.join()}>
            <td>key ({k.columns.join(', ')}) on the {k.side}</td>
            <td><span className={`pill ${k.status === 'confirmed' ? 'ok' : k.status === 'failed' ? 'bad' : 'na'}`}>{k.status.replace('_', ' ')}</span></td>
            <td className="note">
              {k.rows.toLocaleString('en-US')} rows, {k.distinct.toLocaleString('en-US')} distinct, {k.nullRows} null, {k.repeatedKeys} repeated{k.note ? `; ${k.note}` : ''}
              {k.examples.map((e) => <div key={e.key} className="mono small">{e.key} ×{e.rows}{e.where.length ? `: ${e.where.map(provenance).join('; ')}` : ''}</div>)}
            </td>
          </tr>
        ))}
        {r.relationships.map((rel) => (
          <tr key={rel.column + rel.references.column}>
            <td>{rel.column} → {rel.references.path} {rel.references.column}</td>
            <td><span className={`pill ${rel.status === 'confirmed' ? 'ok' : rel.status === 'failed' ? 'bad' : 'na'}`}>{rel.status.replace('_', ' ')}</span></td>
            <td className="note">{rel.danglingRows} dangling row(s){rel.examples.length ? `: ${rel.examples.join(', ')}` : ''}; {rel.observed?.replace(/_/g, '-') ?? ''}{rel.note ? `; ${rel.note}` : ''}</td>
          </tr>
        ))}
        {r.candidates && <tr><td>candidate keys</td><td><span className="pill na">inferred</span></td><td>{r.candidates.map((c) => `(${c.columns.join(', ')})`).join(', ') || 'none'}</td></tr>}
      </tbody>
    </table>
  );
}

function LawsView({ r }: { r: LawsResult }) {
  return (
    <table className="tr-table" data-testid="trust-laws-result">
      <thead><tr><th>law</th><th>holds</th><th>days</th><th>first failing days</th></tr></thead>
      <tbody>
        {r.laws.map((l) => (
          <tr key={l.law}>
            <td>{l.law}{l.proposed ? <span className="muted"> (proposed)</span> : null}</td>
            <td><span className={`pill ${l.holds ? 'ok' : 'bad'}`}>{l.holds ? 'holds' : 'broken'}</span></td>
            <td className="num">{l.days - l.failedDays} / {l.days}</td>
            <td className="note mono small">{l.failures.map((f) => `${f.day ?? '(null)'}: ${f.source} → ${f.target} (${f.difference})`).join('; ') || '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChecksPanel({ req }: { req: TrustRequest | null }) {
  const keys = useTrust((s) => s.keys);
  const laws = useTrust((s) => s.laws);
  const runKeys = useTrust((s) => s.runKeys);
  const runLaws = useTrust((s) => s.runLaws);
  return (
    <div className="tr-two">
      <section className="tr-section" data-testid="trust-keys">
        <div className="tr-section-head"><h2>Keys and relationships</h2>
          <button type="button" className="btn btn-small" data-testid="run-keys" disabled={!req || keys.status === 'running'} onClick={() => req && void runKeys(req)}>Verify keys</button></div>
        {keys.status === 'running' && <JobProgress progress={keys.progress} waiting="Checking the keys…" testId="keys-progress" />}
        {keys.status === 'error' && keys.error && <ErrorPanel error={keys.error} />}
        {keys.status === 'done' && keys.result && <KeysView r={keys.result} />}
        {keys.status === 'idle' && <div className="muted">A key is confirmed when no value repeats and none is null, on the table and the source.</div>}
      </section>
      <section className="tr-section" data-testid="trust-laws">
        <div className="tr-section-head"><h2>Data laws</h2>
          <button type="button" className="btn btn-small" data-testid="run-laws" disabled={!req || laws.status === 'running'} onClick={() => req && void runLaws(req)}>Check laws</button></div>
        {laws.status === 'running' && <JobProgress progress={laws.progress} waiting="Summing per day…" testId="laws-progress" />}
        {laws.status === 'error' && laws.error && <ErrorPanel error={laws.error} />}
        {laws.status === 'done' && laws.result && <LawsView r={laws.result} />}
        {laws.status === 'idle' && <div className="muted">Totals of additive measures and row counts per day, source against table.</div>}
      </section>
    </div>
  );
}

export function TrustView() {
  const table = useWorkbench((s) => s.table);
  const tablePath = table?.summary?.path ?? table?.path ?? null;
  const source = useReconcile((s) => s.source);
  const setSourcePath = useReconcile((s) => s.setSourcePath);
  const clearSource = useReconcile((s) => s.clearSource);
  const contractText = useReconcile((s) => s.contractText);
  const contractOrigin = useReconcile((s) => s.contractOrigin);
  const contractPath = useReconcile((s) => s.contractPath);
  const check = useReconcile((s) => s.check);
  const loadContract = useReconcile((s) => s.loadContract);
  const setScreen = useNav((s) => s.setScreen);
  const [path, setPath] = useState('');

  useEffect(() => {
    if (tablePath) void loadContract(tablePath);
  }, [tablePath, loadContract]);
  if (!tablePath) return null;
  const req: TrustRequest | null = source && contractText.trim() && check?.ok !== false ? { table: tablePath, source: source.path, contract: contractText } : null;

  return (
    <div className="reconcile-view trust-view" data-testid="trust-view">
      <header className="rc-header">
        <h1>Trust</h1>
        <span className="muted">table</span>
        <code className="rc-target" title={tablePath}>{table?.summary?.name ?? tablePath}</code>
        <span className="muted">source</span>
        {source ? (
          <>
            <code className="rc-target" data-testid="trust-source" title={source.path}>{source.label}</code>
            <button type="button" className="btn btn-quiet btn-small" data-testid="trust-source-clear" aria-label="Choose another source" onClick={clearSource}>×</button>
          </>
        ) : (
          <form className="source-form inline" onSubmit={(e) => { e.preventDefault(); setSourcePath(path, 'path'); }}>
            <PathInput value={path} onChange={setPath} placeholder="/path/to/source.parquet" label="Source of truth" testId="trust-source-path" />
            <button type="submit" className="btn btn-small">Use</button>
          </form>
        )}
        <span className="muted">contract</span>
        <code className="rc-target" title={contractPath ?? ''}>{contractOrigin === 'file' ? contractPath?.split(/[\\/]/).slice(-2).join('/') : contractOrigin ?? '…'}</code>
        {check?.ok === false && <span className="field-error">the contract has problems</span>}
        <span className="spacer" />
        <button type="button" className="btn btn-quiet btn-small" onClick={() => setScreen('reconcile')}>Edit on Reconcile</button>
      </header>
      <div className="tr-body">
        <MutationPanel req={req} />
        <ChecksPanel req={req} />
      </div>
    </div>
  );
}
