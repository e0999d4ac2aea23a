import type { LakerecErrorData } from '../../shared/errors';
import { errorHint, errorTitle } from './errors';

export function ErrorPanel({ error, onRetry, onDismiss }: { error: LakerecErrorData; onRetry?: () => void; onDismiss?: () => void }) {
  // A pushed side's engine failed: the folder and source wording of the code would not be true.
  const warehouse = error.detail?.reason === 'warehouse';
  const hint = warehouse ? 'Check the connection (lakerec warehouse check NAME runs a small self-test) and that the engine is reachable from this machine.' : errorHint(error.code);
  return (
    <section className="error-panel" role="alert" data-testid="error-panel" data-code={error.code}>
      <div className="error-icon" aria-hidden="true">!</div>
      <div className="error-body">
        <h2>{warehouse ? 'The warehouse could not run the query' : errorTitle(error.code)}</h2>
        <p className="error-message" data-testid="error-message">{error.message}</p>
        {hint && <p className="error-hint">{hint}</p>}
        <div className="error-meta">
          <code>{error.code}</code>
        </div>
        {(onRetry || onDismiss) && (
          <div className="error-actions">
            {onRetry && <button type="button" className="btn" data-testid="error-retry" onClick={onRetry}>{error.code === 'disconnected' ? 'Reconnect' : 'Try again'}</button>}
            {onDismiss && <button type="button" className="btn btn-quiet" onClick={onDismiss}>Close</button>}
          </div>
        )}
      </div>
    </section>
  );
}
