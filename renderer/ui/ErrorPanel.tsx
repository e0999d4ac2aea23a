import type { LakerecErrorData } from '../../shared/errors';
import { errorHint, errorTitle } from './errors';

export function ErrorPanel({ error, onRetry, onDismiss }: { error: LakerecErrorData; onRetry?: () => void; onDismiss?: () => void }) {
  const hint = errorHint(error.code);
  return (
    <section className="error-panel" role="alert" data-testid="error-panel" data-code={error.code}>
      <div className="error-icon" aria-hidden="true">!</div>
      <div className="error-body">
        <h2>{errorTitle(error.code)}</h2>
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
