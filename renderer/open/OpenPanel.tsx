// Sidebar: open a table by path or dialog, recent tables, bundled sample lakes.
import { useState, type FormEvent } from 'react';
import { PathInput } from '../ui/PathInput';
import { NO_SAMPLES, useWorkbench } from '../state/context';

export function OpenPanel() {
  const info = useWorkbench((s) => s.info);
  const openTable = useWorkbench((s) => s.openTable);
  const pickFolder = useWorkbench((s) => s.pickFolder);
  const [path, setPath] = useState('');
  const [url, setUrl] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void openTable(path);
  };
  const submitUrl = (e: FormEvent) => {
    e.preventDefault();
    if (url.trim() !== '') void openTable(url.trim());
  };

  return (
    <section className="side-section">
      <h3 className="side-title">Open a table</h3>
      <form className="open-form" onSubmit={submit}>
        <PathInput testId="path-input" placeholder="/path/to/delta/table" label="Delta table folder path" value={path} onChange={setPath} />
        <div className="open-buttons">
          <button type="submit" className="btn btn-primary" data-testid="open-button">Open</button>
          {info?.canPickFolder && (
            <button type="button" className="btn" data-testid="browse-button" onClick={() => void pickFolder()}>Browse…</button>
          )}
        </div>
      </form>
      <p className="side-hint">or drop a table folder anywhere on the window</p>
      <form className="open-form" onSubmit={submitUrl}>
        <label className="side-hint" htmlFor="url-input">or a table in object storage</label>
        <input id="url-input" className="path-input" data-testid="url-input" type="text" spellCheck={false} autoComplete="off"
          placeholder="s3://bucket/table or abfss://container@account.dfs.core.windows.net/table"
          aria-label="Table location URL (s3://, abfss://, az://, gs://)" value={url} onChange={(e) => setUrl(e.target.value)} />
        <div className="open-buttons">
          <button type="submit" className="btn" data-testid="open-url-button" disabled={url.trim() === ''}>Open URL</button>
        </div>
        <p className="side-hint">Credentials come from the engine's environment (e.g. AWS_PROFILE), never from this field.</p>
      </form>
    </section>
  );
}

function shortPath(p: string): string {
  // A location in object storage is shown whole: its bucket or container is the useful part.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(p)) return p;
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-3, -1).join('/')}` : p.slice(0, p.length - (parts[parts.length - 1]?.length ?? 0)) || p;
}

export function RecentList() {
  const recent = useWorkbench((s) => s.recent);
  const openTable = useWorkbench((s) => s.openTable);
  const forget = useWorkbench((s) => s.forgetRecent);
  const current = useWorkbench((s) => s.table?.path);
  return (
    <section className="side-section grow">
      <h3 className="side-title">Recent tables</h3>
      {recent.length === 0 ? (
        <p className="side-empty">Tables you open are listed here.</p>
      ) : (
        <ul className="side-list" data-testid="recent-list">
          {recent.map((t) => (
            <li key={t.path} className={t.path === current ? 'active' : undefined}>
              <button type="button" className="side-item" title={t.path} onClick={() => void openTable(t.path)}>
                <span className="item-icon" aria-hidden="true">▦</span>
                <span className="item-text">
                  <span className="item-name">{t.name}</span>
                  <span className="item-path">{shortPath(t.path)}</span>
                </span>
              </button>
              <button type="button" className="item-remove" aria-label={`Forget ${t.name}`} title="Remove from recent" onClick={() => void forget(t.path)}>×</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function SampleList() {
  const samples = useWorkbench((s) => s.info?.sampleTables ?? NO_SAMPLES);
  const openTable = useWorkbench((s) => s.openTable);
  const current = useWorkbench((s) => s.table?.path);
  if (samples.length === 0) return null;
  return (
    <section className="side-section">
      <h3 className="side-title">Sample lakes</h3>
      <ul className="side-list" data-testid="sample-list">
        {samples.map((t) => (
          <li key={t.path} className={t.path === current ? 'active' : undefined}>
            <button type="button" className="side-item" title={t.path} onClick={() => void openTable(t.path)}>
              <span className="item-icon sample" aria-hidden="true">◇</span>
              <span className="item-text"><span className="item-name">{t.name}</span></span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
