// What crosses the boundary: each validator's refusals (a `usage` error naming the field) and
// what it passes on (trimmed, only the fields the engine takes).
import { describe, expect, it } from 'vitest';
import { apiMethods, isApiMethod, validateRequest } from './validate';
import type { ApiMethod } from './map';

const hex = 'a'.repeat(64);
const long = 'x'.repeat(4097);

// [method, request, what the refusal says]
const refused: Array<[ApiMethod, unknown, string]> = [
  ['appInfo', 'x', 'expected an object'],
  ['appInfo', { a: 1 }, 'unexpected field "a"'],
  ['openTable', null, 'expected an object with "path"'],
  ['openTable', { path: '/t', extra: 1 }, 'unexpected field "extra"'],
  ['openTable', { path: '  ' }, '"path" must be a non-empty string'],
  ['openTable', { path: long }, '"path" is longer than 4096 characters'],
  ['openTable', { path: 'a\0b' }, '"path" contains a NUL character'],
  ['commitDetail', [], 'expected an object with "path" and "version"'],
  ['commitDetail', { path: '/t', version: -1 }, '"version" must be a non-negative integer'],
  ['commitDetail', { path: '/t', version: 1.5 }, '"version" must be a non-negative integer'],
  ['commitDetail', { path: 7, version: 1 }, '"path" must be a non-empty string'],
  ['bisect', 1, 'expected an object with "path" and "predicate"'],
  ['bisect', { path: '/t', predicate: 'pretty' }, '"predicate" must be one of'],
  ['bisect', { path: '/t', predicate: 'unique-keys', keys: [] }, '"keys" must be a list of 1 to 32 column names'],
  ['bisect', { path: '/t', predicate: 'unique-keys', keys: ['a', ' '] }, '"keys" must hold non-empty column names'],
  ['bisect', { path: '/t', predicate: 'row-count', expect: -3 }, '"expect" must be a non-negative integer'],
  ['bisect', { path: '/t', predicate: 'no-null-keys', partition: 'dt' }, '"partition" must read col=value'],
  ['bisect', { path: '/t', predicate: 'no-null-keys', source: '' }, '"source" must be a non-empty string'],
  ['bisect', { path: '/t', predicate: 'no-null-keys', allowMoving: 'yes' }, '"allowMoving" must be true or false'],
  ['rows', { path: '/t', limit: 0 }, '"limit" must be an integer from 1 to 1000'],
  ['rows', { path: '/t', offset: -1 }, '"offset" must be an integer from 0 to'],
  ['rows', { path: '/t', sort: { column: 'a', direction: 'up' } }, '"sort.direction" must be asc or desc'],
  ['rows', { path: '/t', sort: { column: '', direction: 'asc' } }, '"sort.column" must be a column name'],
  ['rows', { path: '/t', sort: { column: 'a', direction: 'asc', nulls: 'first' } }, 'unexpected field "nulls"'],
  ['rows', { path: '/t', equals: {} }, '"equals" must be a list of at most 16'],
  ['rows', { path: '/t', equals: [{ column: 'a', value: 3 }] }, '"equals[].value" must be text or null'],
  ['rows', { path: '/t', where: 42 }, '"where" must be text of at most 4000 characters'],
  ['compareVersions', { path: '/t', to: 2 }, '"from" and "to" are required versions'],
  ['compareVersions', { path: '/t', from: 1, to: 2, keys: 'id' }, '"keys" must be a list of at most 32 column names'],
  ['checkContractColumns', { text: 5, table: '/t', source: '/s' }, 'the contract must be YAML text'],
  ['checkContractColumns', { text: 'x'.repeat(256 * 1024 + 1), table: '/t', source: '/s' }, 'the contract is longer than 256 KB'],
  ['partitionHealth', { path: '/t', smallFileBytes: 0 }, '"smallFileBytes" must be an integer from 1 to'],
  ['schemaAt', { path: '/t', version: 'latest' }, '"version" must be an integer from 0 to'],
  ['acceptContract', { path: '/c.yaml', sha256: 'ABC' }, '"sha256" must be 64 hex digits'],
  ['reconcile', { source: '/s', table: '/t', contract: '', level: 'deep' }, '"level" must be one of schema, counts, checksum, keys, rows'],
  ['reconcile', { source: '/s', table: '/t', contract: '', level: 'rows', baseline: 'yes' }, '"baseline" must be true or false'],
  ['exportReport', { resultId: 'short', save: true }, '"resultId" is missing or malformed'],
  ['exportReport', { resultId: 'abcdefgh12', save: 'no' }, '"save" must be true or false'],
  ['runProof', { engines: ['duckdb'] }, '"engines" must be two engine names'],
  ['runProof', { engines: ['duckdb', 'arrow'], rows: 5 }, '"rows" must be an integer from 6 to 20000'],
  ['setProofMode', { mode: 'some' }, '"mode" must be one of generic, off, all'],
  ['mutationScore', { table: '/t', source: '/s', contract: '', levels: [] }, '"levels" must list some of'],
  ['mutationScore', { table: '/t', source: '/s', contract: '', levels: ['rows', 'deep'] }, '"levels" must list some of'],
  ['mutationScore', { table: '/t', source: '/s', contract: '', only: ['Bad-Name'] }, '"only" must list mutant names'],
  ['mutationScore', { table: '/t', source: '/s', contract: '', seed: 2 ** 32 }, '"seed" must be an integer from'],
  ['verifyKeys', { table: '/t', source: '/s', contract: '', levels: ['rows'] }, 'unexpected field "levels"'],
  ['attachLineage', { table: '/t', model: 'a\0' }, '"model" must be a column name'],
  ['verifyLineage', { table: '/t', rows: 0 }, '"rows" must be an integer from 1 to 1000000'],
  ['getRun', { id: 'bad id!' }, '"id" is missing or malformed'],
  ['listRuns', { kind: 'deploy' }, '"kind" must be one of proof, reconcile, bisect, mutate'],
];

describe('a bad request is refused as usage, naming the method and the field', () => {
  it.each(refused)('%s %j', (method, request, why) => {
    let caught: unknown;
    try { validateRequest(method, request); } catch (e) { caught = e; }
    expect(caught).toMatchObject({ code: 'usage' });
    expect((caught as Error).message).toMatch(new RegExp(`^Bad request to ${method}: `));
    expect((caught as Error).message).toContain(why);
  });
});

describe('a good request passes on what the engine takes', () => {
  it('paths trimmed; empty requests empty', () => {
    expect(validateRequest('openTable', { path: '  /t  ' })).toEqual({ path: '/t' });
    expect(validateRequest('appInfo', undefined)).toEqual({});
    expect(validateRequest('appInfo', {})).toEqual({});
    expect(validateRequest('commitDetail', { path: ' /t', version: 0 })).toEqual({ path: '/t', version: 0 });
  });

  it('bisect: keys trimmed, allowMoving only when true, the optional fields only when given', () => {
    expect(validateRequest('bisect', { path: '/t', predicate: 'unique-keys', keys: [' id '], expect: 3, partition: ' dt=1 ', source: ' /s ', allowMoving: false }))
      .toEqual({ path: '/t', predicate: 'unique-keys', keys: ['id'], expect: 3, partition: 'dt=1', source: '/s' });
    expect(validateRequest('bisect', { path: '/t', predicate: 'no-null-keys', allowMoving: true })).toEqual({ path: '/t', predicate: 'no-null-keys', allowMoving: true });
  });

  it('rows: every option kept; a null sort is no sort', () => {
    expect(validateRequest('rows', { path: '/t', version: 2, addedIn: 1, offset: 10, limit: 1000, sort: { column: 'a', direction: 'desc' }, equals: [{ column: 'b', value: null }, { column: 'c', value: 'x' }], where: 'a > 1' }))
      .toEqual({ path: '/t', version: 2, addedIn: 1, offset: 10, limit: 1000, sort: { column: 'a', direction: 'desc' }, equals: [{ column: 'b', value: null }, { column: 'c', value: 'x' }], where: 'a > 1' });
    expect(validateRequest('rows', { path: '/t', sort: null, version: null })).toEqual({ path: '/t' });
  });

  it('compareVersions drops blank keys; schemaAt, partitionHealth and checkContractColumns keep their options', () => {
    expect(validateRequest('compareVersions', { path: '/t', from: 1, to: 2, keys: ['id', ' '] })).toEqual({ path: '/t', from: 1, to: 2, keys: ['id'] });
    expect(validateRequest('schemaAt', { path: '/t' })).toEqual({ path: '/t' });
    expect(validateRequest('schemaAt', { path: '/t', version: 4 })).toEqual({ path: '/t', version: 4 });
    expect(validateRequest('partitionHealth', { path: '/t', smallFileBytes: 1024 })).toEqual({ path: '/t', smallFileBytes: 1024 });
    expect(validateRequest('checkContractColumns', { text: 'version: 1', table: '/t', source: '/s', version: 1 })).toEqual({ text: 'version: 1', table: '/t', source: '/s', version: 1 });
  });

  it('reconcile, proof, mutation, keys: only the fields the engine takes', () => {
    expect(validateRequest('reconcile', { source: '/s', table: '/t', contract: 'c', level: 'rows', version: 3, baseline: true })).toEqual({ source: '/s', table: '/t', contract: 'c', level: 'rows', version: 3, baseline: true });
    expect(validateRequest('reconcile', { source: '/s', table: '/t', contract: 'c', level: 'counts', baseline: false })).toEqual({ source: '/s', table: '/t', contract: 'c', level: 'counts' });
    expect(validateRequest('runProof', { engines: ['duckdb', 'arrow'], rows: 6, seed: 0 })).toEqual({ engines: ['duckdb', 'arrow'], rows: 6, seed: 0 });
    expect(validateRequest('mutationScore', { table: '/t', source: '/s', contract: 'c', version: 2, levels: ['rows'], only: ['double_load'], seed: -5 }))
      .toEqual({ table: '/t', source: '/s', contract: 'c', version: 2, levels: ['rows'], only: ['double_load'], seed: -5 });
    expect(validateRequest('verifyKeys', { table: '/t', source: '/s', contract: 'c' })).toEqual({ table: '/t', source: '/s', contract: 'c' });
    expect(validateRequest('checkLaws', { table: '/t', source: '/s', contract: 'c', version: 0 })).toEqual({ table: '/t', source: '/s', contract: 'c', version: 0 });
  });

  it('the small ones', () => {
    expect(validateRequest('acceptContract', { path: '/c', sha256: hex })).toEqual({ path: '/c', sha256: hex });
    expect(validateRequest('exportReport', { resultId: 'abcdefgh12', save: false })).toEqual({ resultId: 'abcdefgh12', save: false });
    expect(validateRequest('setProofMode', { mode: 'off' })).toEqual({ mode: 'off' });
    expect(validateRequest('validateContract', { text: 'x' })).toEqual({ text: 'x' });
    expect(validateRequest('lineageAttachment', { table: '/t' })).toEqual({ table: '/t' });
    expect(validateRequest('attachLineage', { table: '/t', project: '', model: null })).toEqual({ table: '/t', project: null, model: null });
    expect(validateRequest('attachLineage', { table: '/t', project: ' /p ', model: 'orders' })).toEqual({ table: '/t', project: '/p', model: 'orders' });
    expect(validateRequest('verifyLineage', { table: '/t', rows: 10, seed: 1 })).toEqual({ table: '/t', rows: 10, seed: 1 });
    expect(validateRequest('getRun', { id: 'run-12345678' })).toEqual({ id: 'run-12345678' });
    expect(validateRequest('listRuns', undefined)).toEqual({});
    expect(validateRequest('listRuns', {})).toEqual({});
    expect(validateRequest('listRuns', { kind: 'bisect' })).toEqual({ kind: 'bisect' });
  });

  it('the method names are the map\'s, nothing inherited', () => {
    expect(apiMethods).toContain('reconcile');
    expect(isApiMethod('reconcile')).toBe(true);
    expect(isApiMethod('toString')).toBe(false);
    expect(isApiMethod(3)).toBe(false);
  });
});
