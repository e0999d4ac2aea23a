import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ELECTRON_CSP, WEB_CSP } from './csp';

describe('CSP', () => {
  it('the policy written out in electron.ts (for the scanner) is ELECTRON_CSP', () => {
    const src = readFileSync(new URL('./electron.ts', import.meta.url), 'utf8');
    expect(src).toContain(`'Content-Security-Policy': [${JSON.stringify(ELECTRON_CSP)}]`);
  });
  it('allows no inline script, no eval and no remote origin', () => {
    for (const csp of [ELECTRON_CSP, WEB_CSP]) {
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toMatch(/unsafe-(inline|eval)|https?:|\*/);
    }
  });
  it('index.html carries the same page policy as a meta tag', () => {
    const html = readFileSync(new URL('../../renderer/index.html', import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    // The meta cannot carry frame-ancestors; Electron's header also narrows connect-src to 'none'.
    expect(meta).toBe(WEB_CSP.replace("; frame-ancestors 'none'", ''));
  });
});
