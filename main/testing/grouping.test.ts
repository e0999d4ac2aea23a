// Grouping into a Map of lists has one function, shared/group.ts `pushTo`: no file of main/ or
// shared/ hand-rolls it again (`m.get(k) ?? []` then push and set, or `if (!m.has(k)) m.set(k, [])`).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const HAND_ROLLED = [
  // const list = m.get(k) ?? []; list.push(v); m.set(k, list);
  /(?:const|let) (\w+) = ([\w.]+)\.get\(([^;]*)\) \?\? \[\];\s*\n\s*\1\.push\([^;]*\);\s*\n\s*\2\.set\(/,
  // if (!m.has(k)) m.set(k, []);
  /if \(!([\w.]+)\.has\(([^)]*)\)\) \{?\s*\1\.set\(\2, \[\]\)/,
  // m.set(k, [...(m.get(k) ?? []), v])
  /([\w.]+)\.set\(([^,]*), \[\.\.\.\(\1\.get\(\2\) \?\? \[\]\)/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const handRolled = (code: string): boolean => HAND_ROLLED.some((re) => re.test(code));

describe('grouping into a Map of lists', () => {
  it('the check finds each hand-rolled form (planted)', () => {
    expect(handRolled('    const g = groups.get(key) ?? [];\n    g.push(f);\n    groups.set(key, g);\n')).toBe(true);
    expect(handRolled('if (!this.byDay.has(d)) this.byDay.set(d, []);')).toBe(true);
    expect(handRolled('m.set(k, [...(m.get(k) ?? []), v]);')).toBe(true);
    expect(handRolled('pushTo(groups, key, f);\nconst hasCheckpoint = (cps.get(v) ?? []).some((c) => c.complete);')).toBe(false);
  });

  it('is done by pushTo everywhere in main/ and shared/', () => {
    const offenders = [...sources(join(root, 'main')), ...sources(join(root, 'shared'))]
      .filter((f) => !f.endsWith(join('shared', 'group.ts')) && handRolled(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
