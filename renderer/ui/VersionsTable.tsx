import type { VersionRow } from '../../shared/api';
import { WindowedList } from './WindowedList';
import { whoLine } from './who';
import { formatParams, formatUtc, operationKind } from './format';

/** Above this many versions only the rows in view are in the DOM (a 10,000-version tab switch stays fast). */
const WINDOW_ABOVE = 200;
const ROW = 28;

export function VersionsTable({ versions }: { versions: VersionRow[] }) {
  if (versions.length > WINDOW_ABOVE) return <WindowedVersions versions={versions} />;
  return (
    <div className="grid-wrap">
      <table className="grid" data-testid="versions-table">
        <thead>
          <tr>
            <th className="num">Version</th>
            <th>Committed (UTC)</th>
            <th>Operation</th>
            <th>Parameters</th>
            <th className="num" title="files added">+ files</th>
            <th className="num" title="files removed">− files</th>
            <th>Who</th>
            <th>Engine</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => {
            const params = formatParams(v.operationParameters);
            const who = whoLine(v.who);
            return (
              <tr key={v.version} data-testid="version-row" data-version={v.version}>
                <td className="num mono strong">{v.version}</td>
                <td className="mono">{formatUtc(v.timestamp)}</td>
                <td>
                  <span className={`op op-${operationKind(v.operation)}`}>{v.operation ?? 'no commitInfo'}</span>
                </td>
                <td className="mono muted params" title={params}>{params || '—'}</td>
                <td className="num mono add">{v.addedFiles > 0 ? `+${v.addedFiles}` : '0'}</td>
                <td className="num mono remove">{v.removedFiles > 0 ? `−${v.removedFiles}` : '0'}</td>
                <td className="muted ellipsis" data-testid="version-who" title={who}>{who || '—'}</td>
                <td className="muted ellipsis" title={v.writer ?? ''}>{v.writer ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The same columns as a windowed grid of rows. */
function WindowedVersions({ versions }: { versions: VersionRow[] }) {
  return (
    <div className="grid-wrap vgrid-wrap" data-testid="versions-table" data-windowed="true">
      <div className="vgrid-row vgrid-head">
        <span className="num">Version</span><span>Committed (UTC)</span><span>Operation</span><span>Parameters</span>
        <span className="num">+ files</span><span className="num">− files</span><span>Who</span><span>Engine</span>
      </div>
      <WindowedList
        items={versions}
        rowHeight={ROW}
        className="vgrid-list"
        testId="versions-window"
        row={(v) => {
          const params = formatParams(v.operationParameters);
          const who = whoLine(v.who);
          return (
            <div key={v.version} className="vgrid-row" data-testid="version-row" data-version={v.version} style={{ height: ROW }}>
              <span className="num mono strong">{v.version}</span>
              <span className="mono">{formatUtc(v.timestamp)}</span>
              <span className="ellipsis"><span className={`op op-${operationKind(v.operation)}`}>{v.operation ?? 'no commitInfo'}</span></span>
              <span className="mono muted ellipsis" title={params}>{params || '—'}</span>
              <span className="num mono add">{v.addedFiles > 0 ? `+${v.addedFiles}` : '0'}</span>
              <span className="num mono remove">{v.removedFiles > 0 ? `−${v.removedFiles}` : '0'}</span>
              <span className="muted ellipsis" title={who}>{who || '—'}</span>
              <span className="muted ellipsis" title={v.writer ?? ''}>{v.writer ?? '—'}</span>
            </div>
          );
        }}
      />
    </div>
  );
}
