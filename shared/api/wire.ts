// The wire constants of both transports: Electron IPC channel names, and web mode's HTTP paths,
// headers, upload limits and status codes.
import type { ErrorCode } from '../errors';
import type { ApiMethod } from './map';

/** IPC channel names (Electron). One channel per method, so main can allow-list them. */
export const ipcChannel = (method: ApiMethod): string => `lakerec:${method}`;
export const IPC_PROGRESS = 'lakerec:progress';
export const IPC_CANCEL = 'lakerec:cancel';

/** Web mode paths. */
export const HTTP_API_PREFIX = '/api/';
export const HTTP_EVENTS_PATH = '/api/events';
export const HTTP_CANCEL_PATH = '/api/cancel';
export const HTTP_TOKEN_HEADER = 'authorization';
/** Header carrying the job id of a call, so progress events can be matched to it. */
export const HTTP_JOB_HEADER = 'x-lakerec-job';
/** Web mode: POST a file's bytes (application/octet-stream) here with `?name=FILE`; answers `{ ok, value: { path } }`. */
export const HTTP_UPLOAD_PATH = '/api/upload';
/** Largest upload web mode accepts (a larger source is read by path). */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
/** Source files the workbench reads; an upload must have one of these names. */
export const SOURCE_FILE_PATTERN = /\.(parquet|csv|tsv|json|jsonl|ndjson)$/i;

/** A job id from a client: short, URL-safe, so it can live in a header and a log line. */
export function isJobId(v: unknown): v is string {
  return typeof v === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(v);
}

/** HTTP status for an error code in web mode (the body carries the typed error either way). */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'usage':
    case 'contract_invalid':
    case 'contract_mismatch':
    case 'predicate_refused':
    case 'writer_misuse':
      return 400;
    case 'cancelled':
      return 409;
    case 'internal':
      return 500;
    default:
      // The request was well formed but the thing it names could not be read.
      return 422;
  }
}
