// A small button that copies a value (a path, a version, a key, a checksum) and says so.
import { useState } from 'react';

function Icon({ done }: { done: 'idle' | 'copied' | 'failed' }) {
  if (done === 'copied') return <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true"><path d="M2 8.5 6 12l8-8" fill="none" stroke="currentColor" strokeWidth="2" /></svg>;
  return (
    <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true">
      <rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="M3 11V3.5C3 2.7 3.7 2 4.5 2H11" fill="none" stroke="currentColor" strokeWidth="1.4" />
    </svg>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone('idle'), 1500);
  };
  return (
    <button type="button" className="copy-btn" aria-label={label} title={done === 'failed' ? 'The clipboard is not available here (web mode needs a secure context)' : label}
      data-testid="copy" data-copy={text} onClick={(e) => { e.stopPropagation(); void copy(); }}>
      <Icon done={done} />
      <span className="sr-only" aria-live="polite">{done === 'copied' ? 'Copied' : done === 'failed' ? 'Could not copy' : ''}</span>
    </button>
  );
}
