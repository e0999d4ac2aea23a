// The CLI's flag parser: strict (a CI gate with a typo'd flag must not pass by accident), every
// refusal a usage error (exit 2) with one line naming the flag.
import { describe, expect, it } from 'vitest';
import { LakerecError } from '../../shared/errors';
import { bool, int, parseArgs, requirePositional, str, type FlagSpec } from './args';

const spec: FlagSpec = { json: 'boolean', 'no-open': 'boolean', version: 'string', only: 'string[]' };
const refusal = (argv: string[]): { code: string; message: string } => {
  try { parseArgs(argv, spec); } catch (e) {
    expect(e).toBeInstanceOf(LakerecError);
    return { code: (e as LakerecError).code, message: (e as LakerecError).message };
  }
  throw new Error(`accepted ${argv.join(' ')}`);
};

describe('parseArgs', () => {
  it('reads booleans, strings (spaced or after =), repeated lists and positionals in any order', () => {
    const p = parseArgs(['a', '--json', '--version', '3', 'b', '--only=x', '--only', 'y', '--no-open'], spec);
    expect(p).toEqual({ positional: ['a', 'b'], flags: { json: true, version: '3', only: ['x', 'y'], 'no-open': true } });
    expect(bool(p, 'json')).toBe(true);
    expect(str(p, 'version')).toBe('3');
    expect(parseArgs([], spec)).toEqual({ positional: [], flags: {} });
  });

  it('takes the next argument as a string value even when it starts with a dash, and an empty value after =', () => {
    expect(parseArgs(['--version', '-1'], spec).flags.version).toBe('-1');
    expect(parseArgs(['--version', '--json'], spec).flags).toEqual({ version: '--json' });
    expect(parseArgs(['--version='], spec).flags.version).toBe('');
    expect(parseArgs(['--version=a=b'], spec).flags.version).toBe('a=b');
  });

  it('passes everything after -- as positionals, and a lone - or a -x as a positional', () => {
    expect(parseArgs(['a', '--', '--json', '--nope'], spec)).toEqual({ positional: ['a', '--json', '--nope'], flags: {} });
    expect(parseArgs(['-', '-x', '-1'], spec).positional).toEqual(['-', '-x', '-1']);
  });

  it('refuses an unknown flag, a value on a boolean, a missing value, a single flag given twice', () => {
    expect(refusal(['--jsn'])).toEqual({ code: 'usage', message: 'unknown flag --jsn' });
    expect(refusal(['a', '--nope=1'])).toEqual({ code: 'usage', message: 'unknown flag --nope' });
    expect(refusal(['--json=yes'])).toEqual({ code: 'usage', message: '--json takes no value' });
    expect(refusal(['--json='])).toEqual({ code: 'usage', message: '--json takes no value' });
    expect(refusal(['--version'])).toEqual({ code: 'usage', message: '--version needs a value' });
    expect(refusal(['--only'])).toEqual({ code: 'usage', message: '--only needs a value' });
    expect(refusal(['--version', '1', '--version=2'])).toEqual({ code: 'usage', message: '--version given twice' });
    // the first problem in argument order is the one named
    expect(refusal(['--nope', '--json=1'])).toEqual({ code: 'usage', message: 'unknown flag --nope' });
  });

  it('names no inherited property as a flag', () => {
    expect(refusal(['--constructor'])).toEqual({ code: 'usage', message: 'unknown flag --constructor' });
    expect(refusal(['--toString=1'])).toEqual({ code: 'usage', message: 'unknown flag --toString' });
  });
});

describe('int and requirePositional', () => {
  it('reads an integer flag or refuses it by name', () => {
    expect(int(parseArgs(['--version', '-12'], spec), 'version')).toBe(-12);
    expect(int(parseArgs([], spec), 'version')).toBeUndefined();
    expect(() => int(parseArgs(['--version', '1.5'], spec), 'version')).toThrow('--version must be an integer, got "1.5"');
  });

  it('wants exactly n positionals', () => {
    expect(requirePositional(parseArgs(['a'], spec), 1, 'x <t>')).toEqual(['a']);
    expect(() => requirePositional(parseArgs(['a', 'b'], spec), 1, 'x <t>')).toThrow('expected 1 argument(s); usage: x <t>');
  });
});
