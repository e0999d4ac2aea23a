// A small, strict flag parser: unknown flags and missing values are usage errors (exit 2),
// never silently ignored, because a CI gate with a typo'd flag must not pass by accident.
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
  const positional: string[] = [];
  const flags: ParsedArgs['flags'] = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { positional.push(...argv.slice(i + 1)); break; }
    if (a.startsWith('--')) {
      let name = a.slice(2);
      let value: string | undefined;
      const eq = name.indexOf('=');
      if (eq >= 0) { value = name.slice(eq + 1); name = name.slice(0, eq); }
      const kind = spec[name];
      if (!kind) throw new LakerecError('usage', `unknown flag --${name}`);
      if (kind === 'boolean') {
        if (value !== undefined) throw new LakerecError('usage', `--${name} takes no value`);
        flags[name] = true;
        continue;
      }
      if (value === undefined) {
        value = argv[++i];
        if (value === undefined) throw new LakerecError('usage', `--${name} needs a value`);
      }
      if (kind === 'string[]') {
        const prev = flags[name];
        flags[name] = [...(Array.isArray(prev) ? prev : []), value];
      } else {
        if (flags[name] !== undefined) throw new LakerecError('usage', `--${name} given twice`);
        flags[name] = value;
      }
    } else {
      positional.push(a);
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
