import type { VersionRow } from '../../shared/api';
import { formatParams, formatUtc, operationKind } from './format';

export function VersionsTable({ versions }: { versions: VersionRow[] }) {
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
            <th>Engine</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => {
            const params = formatParams(v.operationParameters);
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
                <td className="muted ellipsis" title={v.engineInfo ?? ''}>{v.engineInfo ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
