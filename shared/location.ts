// Where a table lives: one type for every way a user names a table (a folder, file://, s3://,
// abfss:// / az://, gs://), parsed once at the edge and shown by one function. A location never
// holds a secret: credentials come from the engine's environment and credential chains, so a
// location string that carries one (user:password@, a SAS query) is refused, not stored, and the
// display string can go anywhere (header, reports, runs, recent tables, error lines).
import { LakerecError } from './errors';

export type Location =
  /** A folder on this machine, as the user named it (the engine resolves it). */
  | { kind: 'local'; path: string }
  | { kind: 's3'; bucket: string; prefix: string }
  /**
   * Azure Blob Storage / ADLS Gen2, read through the Blob endpoint. `account` is null for az://
   * (the account comes from the connection string or AZURE_STORAGE_ACCOUNT).
   */
  | { kind: 'azure'; account: string | null; container: string; prefix: string; scheme: 'abfss' | 'abfs' | 'az' | 'wasbs' }
  | { kind: 'gcs'; bucket: string; prefix: string };

export type LocationKind = Location['kind'];

const usage = (raw: string, why: string): LakerecError =>
  // The raw text is not echoed back: it may hold the very secret the parser refuses.
  new LakerecError('usage', `the table location ${safeEcho(raw)} is not valid: ${why}`);

/** The part of a refused location that can be shown: scheme and host only, never userinfo or query. */
function safeEcho(raw: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(raw);
  if (!m) return raw.length > 200 || /[\u0000-\u001f\u007f]/.test(raw) ? '(given)' : `"${raw}"`;
  const host = m[2].includes('@') && /:/.test(m[2].slice(0, m[2].lastIndexOf('@'))) ? '…@' + m[2].slice(m[2].lastIndexOf('@') + 1) : m[2];
  return `"${m[1]}://${host}/…"`;
}

// S3: 3-63 characters, lowercase letters, digits, dots and hyphens, starting and ending alphanumeric.
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// GCS allows underscores too (and dotted names up to 222, each part at most 63).
const GCS_BUCKET = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;
// Azure: a container is 3-63 lowercase letters, digits and single hyphens; an account 3-24 lowercase alphanumerics.
const AZ_CONTAINER = /^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const AZ_ACCOUNT = /^[a-z0-9]{3,24}$/;

/** Normalises a key prefix: no leading or trailing '/', no '.', '..' or empty segment, no control characters. */
function cleanPrefix(raw: string, prefix: string): string {
  let p = prefix;
  while (p.startsWith('/')) p = p.slice(1);
  while (p.endsWith('/')) p = p.slice(0, -1);
  if (p === '') return '';
  for (const seg of p.split('/')) {
    if (seg === '') throw usage(raw, 'the path has an empty segment ("//")');
    if (seg === '.' || seg === '..') throw usage(raw, `the path has a "${seg}" segment`);
  }
  return p;
}

/** Splits `scheme://authority/rest`; refuses query strings, fragments and user:password. */
function splitUrl(raw: string): { scheme: string; authority: string; path: string } {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)(\/.*)?$/.exec(raw);
  if (!m) throw usage(raw, 'expected scheme://bucket/path');
  const [, scheme, authority, path = ''] = m;
  if (raw.includes('?')) throw usage(raw, 'a location takes no query string (a SAS token or key goes in AZURE_STORAGE_SAS_TOKEN or the connection string, never in the location)');
  if (raw.includes('#')) throw usage(raw, 'a location takes no "#" fragment');
  return { scheme: scheme.toLowerCase(), authority, path };
}

const noSecret = (raw: string, authority: string): void => {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && authority.slice(0, at).includes(':')) {
    throw usage(raw, 'credentials in a location ("user:secret@") are refused; use the environment or a profile');
  }
};

/**
 * Parses a table location. Plain paths and `file://` URLs (host empty or localhost) are local;
 * `s3://` (and Spark's `s3a://`, `s3n://`), `abfss://` / `abfs://` / `wasbs://` (container@account
 * .dfs|blob.core.windows.net), `az://container/prefix`, `gs://`. Anything else: a `usage` error.
 */
export function parseLocation(input: string): Location {
  const raw = input;
  if (typeof raw !== 'string' || raw === '') throw new LakerecError('usage', 'the table location is empty');
  if (/^file:/i.test(raw)) return { kind: 'local', path: fileUrlPath(raw) };
  // Anything that is not scheme://... is a path on this machine, taken as given (a folder may be
  // named " x" or "a:b"; the local store resolves and checks it).
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw)) {
    if (raw.trim() === '') throw new LakerecError('usage', 'the table location is empty');
    return { kind: 'local', path: raw };
  }
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw usage(raw, 'it contains a control character');
  if (raw !== raw.trim()) throw usage(raw, 'it ends with white space');
  const u = splitUrl(raw);
  noSecret(raw, u.authority);
  switch (u.scheme) {
    case 's3': case 's3a': case 's3n': {
      if (!S3_BUCKET.test(u.authority) || u.authority.includes('..')) throw usage(raw, `"${u.authority.replace(/^.*@/, '')}" is not an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)`);
      return { kind: 's3', bucket: u.authority, prefix: cleanPrefix(raw, decodeKey(raw, u.path)) };
    }
    case 'gs': {
      if (!GCS_BUCKET.test(u.authority) || u.authority.includes('..')) throw usage(raw, `"${u.authority}" is not a GCS bucket name`);
      return { kind: 'gcs', bucket: u.authority, prefix: cleanPrefix(raw, decodeKey(raw, u.path)) };
    }
    case 'az': {
      if (!AZ_CONTAINER.test(u.authority)) throw usage(raw, `"${u.authority}" is not an Azure container name (3-63 lowercase letters, digits, single hyphens)`);
      return { kind: 'azure', account: null, container: u.authority, prefix: cleanPrefix(raw, decodeKey(raw, u.path)), scheme: 'az' };
    }
    case 'abfss': case 'abfs': case 'wasbs': {
      const m = /^([^@]+)@([^.:]+)\.(dfs|blob)\.core\.windows\.net$/i.exec(u.authority);
      if (!m) throw usage(raw, 'expected abfss://container@account.dfs.core.windows.net/path');
      const container = m[1];
      const account = m[2].toLowerCase();
      if (!AZ_CONTAINER.test(container)) throw usage(raw, `"${container}" is not an Azure container name`);
      if (!AZ_ACCOUNT.test(account)) throw usage(raw, `"${account}" is not an Azure storage account name (3-24 lowercase letters and digits)`);
      return { kind: 'azure', account, container, prefix: cleanPrefix(raw, decodeKey(raw, u.path)), scheme: u.scheme };
    }
    default:
      throw usage(raw, `the scheme "${u.scheme}:" is not supported (a folder, file://, s3://, abfss://, az:// or gs://)`);
  }
}

/** Percent-escapes in an object key are decoded once; a bad escape or an escaped '/' is refused. */
function decodeKey(raw: string, path: string): string {
  if (!path.includes('%')) return path;
  if (/%2f/i.test(path)) throw usage(raw, 'an escaped "/" (%2F) in the path is ambiguous');
  try {
    const d = decodeURIComponent(path);
    if (/[\u0000-\u001f\u007f]/.test(d)) throw usage(raw, 'it contains an escaped control character');
    return d;
  } catch (e) {
    if (e instanceof LakerecError) throw e;
    throw usage(raw, 'it has a malformed %-escape');
  }
}

/** file:/a, file:///a and file://localhost/a are the local /a; another host is refused. */
function fileUrlPath(raw: string): string {
  if (raw.includes('?') || raw.includes('#')) throw usage(raw, 'a file:// location takes no query or fragment');
  let rest = raw.slice('file:'.length);
  if (rest.startsWith('//')) {
    rest = rest.slice(2);
    const slash = rest.indexOf('/');
    const host = slash < 0 ? rest : rest.slice(0, slash);
    if (host !== '' && host.toLowerCase() !== 'localhost') throw usage(raw, `file:// names the machine "${host}"; only this machine's files (file:///path) can be opened`);
    rest = slash < 0 ? '/' : rest.slice(slash);
  }
  let p: string;
  try { p = decodeURIComponent(rest); } catch { throw usage(raw, 'it has a malformed %-escape'); }
  if (/[\u0000]/.test(p)) throw usage(raw, 'it contains an escaped NUL');
  // file:///C:/t on Windows.
  if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1);
  return p;
}

export const isRemote = (loc: Location): boolean => loc.kind !== 'local';

/** True when a string names a remote location (a scheme other than file: or a drive letter). */
export function looksRemote(input: string): boolean {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(input);
  return m !== null && m[1].toLowerCase() !== 'file';
}

/**
 * How a location (or a file under it, by its location-relative key) is shown: the one display
 * string, the same in the header, reports, runs and recent tables. It is built from the parsed
 * fields alone, so it cannot carry a secret.
 */
export function displayLocation(loc: Location, key = ''): string {
  const join = (base: string): string => (key === '' ? base : base.endsWith('/') ? base + key : `${base}/${key}`);
  switch (loc.kind) {
    case 'local': return join(loc.path);
    case 's3': return join(`s3://${loc.bucket}${loc.prefix ? '/' + loc.prefix : ''}`);
    case 'gcs': return join(`gs://${loc.bucket}${loc.prefix ? '/' + loc.prefix : ''}`);
    case 'azure': {
      const tail = loc.prefix ? '/' + loc.prefix : '';
      if (loc.account === null) return join(`az://${loc.container}${tail}`);
      const host = loc.scheme === 'wasbs' ? 'blob' : 'dfs';
      return join(`${loc.scheme}://${loc.container}@${loc.account}.${host}.core.windows.net${tail}`);
    }
  }
}

/** The object key of a location-relative key (prefix + '/' + key). */
export function objectKey(loc: Exclude<Location, { kind: 'local' }>, key: string): string {
  return loc.prefix === '' ? key : key === '' ? loc.prefix : `${loc.prefix}/${key}`;
}
