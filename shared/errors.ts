// Errors as data: every failure the user can cause has a code, one readable message and an
// exit code. The same object crosses IPC, HTTP and the CLI, so the window, a browser and a CI
// job all see the same words.

/** Fixed CLI exit codes (the public interface for CI). */
export const ExitCode = {
  /** Nothing blocking. */
  Ok: 0,
  /** A blocking finding (or a bad version found by bisect, a failed proof check). */
  Blocking: 1,
  /** The invocation was wrong: flags, contract, arguments. */
  Usage: 2,
  /** A side could not be read: missing table, broken log, unreadable file, refused path. */
  Unreadable: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorCode =
  // invocation (exit 2)
  | 'usage'
  | 'contract_invalid'
  | 'contract_mismatch'
  | 'predicate_refused'
  | 'writer_misuse'
  | 'cancelled'
  // unreadable (exit 3)
  | 'not_found'
  | 'not_a_folder'
  | 'not_a_delta_table'
  | 'log_corrupt'
  | 'version_missing'
  | 'version_not_found'
  | 'protocol_missing'
  | 'metadata_missing'
  | 'unsupported_feature'
  | 'checkpoint_corrupt'
  | 'path_outside_table'
  /** A FIFO, device, socket or folder where the log names a file: refused by name, never opened for reading. */
  | 'not_a_regular_file'
  /** A file or a decoded structure over one of the reader's size limits (the message names the knob). */
  | 'limit_exceeded'
  /** metaData invalid per the protocol (duplicate column names, an unknown partition column). */
  | 'metadata_invalid'
  | 'data_file_missing'
  | 'source_unreadable'
  | 'io_error'
  /** A writer lost the race for a version: another commit landed first; nothing was committed. */
  | 'commit_conflict'
  /** The window lost its engine: web mode's server stopped, or the connection dropped (never a table problem). */
  | 'disconnected'
  // the engine itself (exit 3: we could not produce an answer)
  | 'internal';

export interface LakerecErrorData {
  code: ErrorCode;
  message: string;
  /** Structured detail for the window (e.g. the refused path, the feature name, a contract line). */
  detail?: Record<string, string | number | boolean | null>;
}

const usageCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'usage', 'contract_invalid', 'contract_mismatch', 'predicate_refused', 'writer_misuse', 'cancelled',
]);

export function exitCodeFor(code: ErrorCode): ExitCode {
  return usageCodes.has(code) ? ExitCode.Usage : ExitCode.Unreadable;
}

export class LakerecError extends Error {
  readonly code: ErrorCode;
  readonly detail?: LakerecErrorData['detail'];
  constructor(code: ErrorCode, message: string, detail?: LakerecErrorData['detail']) {
    super(message);
    this.name = 'LakerecError';
    this.code = code;
    this.detail = detail;
  }
  toData(): LakerecErrorData {
    return this.detail ? { code: this.code, message: this.message, detail: this.detail } : { code: this.code, message: this.message };
  }
  get exitCode(): ExitCode {
    return exitCodeFor(this.code);
  }
}

export function isLakerecErrorData(v: unknown): v is LakerecErrorData {
  return typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'string'
    && typeof (v as { message?: unknown }).message === 'string';
}

/** DuckDB's messages start with their class: "Binder Error: ...", "IO Error: ...", "Out of Memory Error: ...". */
const DUCKDB_MESSAGE = /^(?:[A-Z][A-Za-z]*\s){1,4}Error: |^INTERNAL Error: /;

/** JavaScript's own failures on input it did not expect: their text names our code, not the input. */
const RUNTIME_ERRORS: ReadonlySet<string> = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'URIError', 'EvalError']);

/**
 * Any thrown value as typed error data. Failures that are not a LakerecError are still named:
 * a DuckDB error keeps its first line only (`io_error`), a file-system error its code and path
 * (`io_error`), a JavaScript runtime error says what failed without its internals (`internal`).
 */
export function toErrorData(e: unknown): LakerecErrorData {
  if (e instanceof LakerecError) return e.toData();
  // Error data as it crosses a process or the wire is a plain object; an Error with a string
  // `code` (every Node file-system error: "ENOENT") is not ours and is named below.
  if (!(e instanceof Error) && isLakerecErrorData(e)) return { code: e.code, message: e.message, detail: e.detail };
  const message = (e instanceof Error ? e.message : String(e)).split('\n')[0].trim().slice(0, 500);
  if (DUCKDB_MESSAGE.test(message)) return { code: 'io_error', message: `DuckDB could not run the query: ${message}` };
  const sys = e as { code?: unknown; syscall?: unknown; path?: unknown };
  if (e instanceof Error && typeof sys.code === 'string' && /^E[A-Z]+$/.test(sys.code)) {
    const path = typeof sys.path === 'string' ? ` ${sys.path}` : '';
    return { code: 'io_error', message: `${typeof sys.syscall === 'string' ? sys.syscall : 'file access'} failed (${sys.code})${path}` };
  }
  if (e instanceof Error && RUNTIME_ERRORS.has(e.name)) {
    const what = /Maximum call stack/.test(message) ? 'the input is nested or sized beyond what this build handles' : 'the input has a shape this build does not recognise';
    return { code: 'internal', message: `unexpected failure (${e.name}): ${what}; LAKEREC_DEBUG=1 prints the trace` };
  }
  return { code: 'internal', message };
}
