// Content Security Policies. The page loads only its own bundle: no remote content, no inline
// script, no eval, no plugins, no frames. Electron's page has no network at all (it speaks IPC);
// web mode's page may call back to its own origin only.
const common = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
];

export const ELECTRON_CSP = [...common, "connect-src 'none'", "frame-ancestors 'none'"].join('; ');
export const WEB_CSP = [...common, "connect-src 'self'", "frame-ancestors 'none'"].join('; ');
