// "Export incident report": the engine composes one self-contained HTML file (reconcile findings,
// timeline excerpt, bisect and culprit commit, contract, tool version). Where the engine has a save
// dialog (appInfo.canSaveFiles: the desktop app) it writes the file there; else the page downloads it.
import { ErrorPanel } from './ErrorPanel';
import { useWorkbench } from '../state/context';
import { useReconcile } from '../state/reconcile';

/** Saves text as a file from the page (web mode): a Blob and a download link, no network. */
export function downloadText(fileName: string, text: string, type = 'text/html;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ExportReport() {
  const report = useReconcile((s) => s.report);
  const resultId = useReconcile((s) => s.resultId);
  const exportReport = useReconcile((s) => s.exportReport);
  const saves = useWorkbench((s) => s.info?.canSaveFiles === true);
  if (!resultId) return null;

  const onExport = async () => {
    const r = await exportReport(saves);
    if (r && !saves) downloadText(r.fileName, r.html);
  };

  return (
    <div className="report-export" data-testid="report-export">
      <button type="button" className="btn btn-primary" data-testid="export-report" disabled={report.status === 'running'} onClick={() => void onExport()}>
        {report.status === 'running' ? 'Writing the report…' : 'Export incident report'}
      </button>
      {report.status === 'running' && (
        <span className="muted report-progress"><span className="spinner" aria-hidden="true" /> {report.progress?.phase ?? 'composing'}</span>
      )}
      {report.status === 'done' && report.exported && (
        <span className="report-done" data-testid="report-done">
          {report.exported.savedTo
            ? <>Saved to <code>{report.exported.savedTo}</code></>
            : saves ? 'Not saved (the dialog was cancelled).' : <>Downloaded <code>{report.exported.fileName}</code></>}
          <span className="muted"> · {report.exported.sections.join(' · ')}</span>
        </span>
      )}
      {report.status === 'error' && report.error && (
        <div className="report-error"><ErrorPanel error={report.error} onRetry={() => void onExport()} /></div>
      )}
    </div>
  );
}
