// Path canonicalisation for add/remove reconciliation and the outside-root check.
// A log path is a URI (RFC 2396): URL-decode it; `file:` URIs and plain absolute paths that name
// the same file are the same file; a path that resolves outside the table root is flagged so the
// reader can refuse it (naming it) unless the user allowed outside paths for this table.
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';

export interface CanonicalPath {
  /** Reconciliation key: relative to the root when inside it, else the absolute path or full URI. */
  key: string;
  /** Absolute local path, or null for another scheme (s3:, abfss:, ...) that cannot be read here. */
  absolute: string | null;
  /** True when the file is not under the table root (absolute elsewhere, `..`, another scheme). */
  outside: boolean;
  /** The raw path as written in the log. */
  raw: string;
}

/** URL-decode a log path; a malformed escape is kept literally rather than failing the whole log. */
export function decodeLogPath(p: string): string {
  if (!p.includes('%')) return p;
  try {
    return decodeURIComponent(p);
  } catch {
    return p.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

const schemeRe = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * Strip a `file:` scheme: file:/a, file:///a and file://localhost/a all mean /a. Any other host
 * (file://otherhost/a) is another machine's file: null, never read as the local /a.
 */
export function fileUriToPath(p: string): string | null {
  let rest = p.slice('file:'.length);
  if (rest.startsWith('//')) {
    rest = rest.slice(2);
    const slash = rest.indexOf('/');
    const host = slash < 0 ? rest : rest.slice(0, slash);
    if (host !== '' && host.toLowerCase() !== 'localhost') return null;
    rest = slash < 0 ? '/' : rest.slice(slash);
  }
  return rest;
}

/**
 * The common case: a plain relative name written by the engine (no escapes, scheme, backslash,
 * empty, `.` or `..` segment) needs no resolution. Checked with indexOf, not a regex: a 300k-file
 * log calls this once per action.
 */
export function isPlainRelative(p: string): boolean {
  if (p.length === 0 || p.charCodeAt(0) === 47 /* / */) return false;
  if (p.indexOf('%') >= 0 || p.indexOf(':') >= 0 || p.indexOf('\\') >= 0 || p.indexOf('//') >= 0) return false;
  if (p.indexOf('.') < 0) return true;
  if (p.startsWith('./') || p.startsWith('../') || p === '.' || p === '..') return false;
  return p.indexOf('/./') < 0 && p.indexOf('/../') < 0 && !p.endsWith('/.') && !p.endsWith('/..');
}

export function canonicalisePath(rawPath: string, root: string): CanonicalPath {
  if (isPlainRelative(rawPath)) {
    return { key: rawPath, absolute: root.endsWith(sep) ? root + rawPath : root + sep + rawPath, outside: false, raw: rawPath };
  }
  const absRoot = resolve(root);
  const m = schemeRe.exec(rawPath);
  // A Windows drive letter (C:\...) is not a scheme.
  const isDrive = m !== null && m[1].length === 1 && /^[A-Za-z]:[\\/]/.test(rawPath);
  if (m && !isDrive) {
    if (m[1].toLowerCase() !== 'file') {
      return { key: rawPath, absolute: null, outside: true, raw: rawPath };
    }
    const local = fileUriToPath(rawPath);
    if (local === null) return { key: rawPath, absolute: null, outside: true, raw: rawPath };
    return fromAbsolute(decodeLogPath(local), absRoot, rawPath);
  }
  const decoded = decodeLogPath(rawPath);
  if (isAbsolute(decoded) || decoded.startsWith('/')) return fromAbsolute(decoded, absRoot, rawPath);
  const abs = resolve(absRoot, decoded);
  return fromAbsolute(abs, absRoot, rawPath);
}

function fromAbsolute(absPath: string, absRoot: string, raw: string): CanonicalPath {
  const abs = resolve(absPath);
  const rel = relative(absRoot, abs);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  if (!inside) return { key: abs, absolute: abs, outside: true, raw };
  // Keys use '/' whatever the platform, so the same log gives the same keys everywhere.
  return { key: rel.split(sep).join(posix.sep), absolute: abs, outside: false, raw };
}
