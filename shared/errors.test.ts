import { describe, expect, it } from 'vitest';
import { ExitCode, LakerecError, exitCodeFor, isLakerecErrorData, toErrorData } from './errors';
import { escapeControl, oneLine } from './escape';
import { httpStatusFor, isJobId } from './api/wire';

describe('any thrown value as typed error data', () => {
  it('a LakerecError keeps its code and detail; plain error data passes through', () => {
    expect(toErrorData(new LakerecError('not_found', 'gone', { path: '/t' }))).toEqual({ code: 'not_found', message: 'gone', detail: { path: '/t' } });
    expect(toErrorData(new LakerecError('usage', 'bad'))).toEqual({ code: 'usage', message: 'bad' });
    expect(toErrorData({ code: 'io_error', message: 'm' })).toEqual({ code: 'io_error', message: 'm', detail: undefined });
    expect(isLakerecErrorData({ code: 1, message: 'm' })).toBe(false);
    expect(isLakerecErrorData(null)).toBe(false);
  });

  it('DuckDB\'s message: its first line, as io_error', () => {
    expect(toErrorData(new Error('Binder Error: column "x" not found\nLINE 1: select x'))).toEqual({ code: 'io_error', message: 'DuckDB could not run the query: Binder Error: column "x" not found' });
    expect(toErrorData(new Error('INTERNAL Error: boom')).code).toBe('io_error');
  });

  it('a file-system error: its syscall, code and path, never its text', () => {
    const e = Object.assign(new Error('ENOENT: no such file or directory, open \'/x\''), { code: 'ENOENT', syscall: 'open', path: '/x' });
    expect(toErrorData(e)).toEqual({ code: 'io_error', message: 'open failed (ENOENT) /x' });
    expect(toErrorData(Object.assign(new Error('x'), { code: 'EACCES' }))).toEqual({ code: 'io_error', message: 'file access failed (EACCES)' });
  });

  it('a JavaScript runtime error says what failed without the engine\'s internals', () => {
    expect(toErrorData(new TypeError("Cannot read properties of undefined (reading 'x')")).message).toBe('unexpected failure (TypeError): the input has a shape this build does not recognise; LAKEREC_DEBUG=1 prints the trace');
    expect(toErrorData(new RangeError('Maximum call stack size exceeded')).message).toContain('nested or sized beyond');
    expect(toErrorData('just text')).toEqual({ code: 'internal', message: 'just text' });
    expect(toErrorData(new Error('x'.repeat(900))).message).toHaveLength(500);
  });

  it('exit codes and HTTP statuses by code', () => {
    expect([exitCodeFor('usage'), exitCodeFor('cancelled'), exitCodeFor('log_corrupt')]).toEqual([ExitCode.Usage, ExitCode.Usage, ExitCode.Unreadable]);
    expect(new LakerecError('contract_invalid', 'x').exitCode).toBe(2);
    expect(['usage', 'writer_misuse', 'cancelled', 'internal', 'not_found'].map((c) => httpStatusFor(c as 'usage'))).toEqual([400, 400, 409, 500, 422]);
    expect([isJobId('abcdefgh'), isJobId('short'), isJobId('a b c d e f'), isJobId(12345678)]).toEqual([true, false, false, false]);
  });
});

describe('text echoed to a terminal', () => {
  it('control, line-separator and bidi characters escaped; a long line cut with an ellipsis', () => {
    expect(escapeControl('a\nb\r\tc\0')).toBe('a\\nb\\r\\tc\\0');
    expect(escapeControl('\x1b[31m\x7f')).toBe('\\x1b[31m\\x7f');
    expect(escapeControl('evil\u202etxt.exe\u2028')).toBe('evil\\u{202e}txt.exe\\u{2028}');
    expect(oneLine('abcdef', 4)).toBe('abc…');
    expect(oneLine('abc', 4)).toBe('abc');
  });
});
