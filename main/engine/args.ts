// The CLI's flag parser: node:util's parseArgs over the command's declared flags, held strict here:
// unknown flags, a value on a boolean, a missing value and a single-valued flag given twice are
// usage errors (exit 2), never silently ignored, because a CI gate with a typo'd flag must not pass
// by accident. node's own strict mode is not used because its refusals are not these one-line
// messages, it accepts a single flag given twice (last wins), and it refuses a value starting with a
// dash (`--version -1`), which these commands take as written.
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { LakerecError } from '../../shared/errors';

export interface FlagSpec {
  /** flag name without dashes -> kind */
  [name: string]: 'string' | 'boolean' | 'string[]';
}

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
}

export function parseArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, kind] of Object.entries(spec)) options[name] = kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: kind === 'string[]' };
  const { tokens } = nodeParseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const positional: string[] = [];
  const flags: ParsedArgs['flags'] = {};
  let shortAt = -1;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') { positional.push(t.value); continue; }
    // Only --long flags are flags: `-x` (or `-1`, which node reads as a group of short options) is
    // passed on as written, once per argument.
    if (!t.rawName.startsWith('--')) {
      if (t.index !== shortAt) positional.push(argv[t.index]);
      shortAt = t.index;
      continue;
    }
    const name = t.name;
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!kind) throw new LakerecError('usage', `unknown flag --${name}`);
    if (kind === 'boolean') {
      if (t.inlineValue) throw new LakerecError('usage', `--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = t.value;
    if (value === undefined) throw new LakerecError('usage', `--${name} needs a value`);
    if (kind === 'string[]') {
      const prev = flags[name];
      flags[name] = [...(Array.isArray(prev) ? prev : []), value];
    } else {
      if (flags[name] !== undefined) throw new LakerecError('usage', `--${name} given twice`);
      flags[name] = value;
    }
  }
  return { positional, flags };
}

export function str(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function bool(p: ParsedArgs, name: string): boolean {
  return p.flags[name] === true;
}

export function int(p: ParsedArgs, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new LakerecError('usage', `--${name} must be an integer, got "${v}"`);
  return Number(v);
}

export function requirePositional(p: ParsedArgs, n: number, usage: string): string[] {
  if (p.positional.length !== n) throw new LakerecError('usage', `expected ${n} argument(s); usage: ${usage}`);
  return p.positional;
}
