// The two validation styles are one rule (docs/adr/0012-validation-styles.md): a document users
// write against a published JSON Schema is checked by Ajv standalone code generated from that
// schema (a `*-validator-source.ts` generator, its committed `*-validator.ts`, and a
// `*-validator.test.ts` that regenerates and compares it); a request crossing the API boundary is
// checked by the typed hand validators of shared/api/validate.ts. Ajv itself never runs in the
// product: only generators and tests import it (a type import is erased).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const RUNTIME_AJV = /^\s*import\s+(?!type\b)[^;]*?from\s+['"]ajv(?:\/[^'"]*)?['"]|require\(\s*['"]ajv(?:\/[^'"]*)?['"]\s*\)|import\(\s*['"]ajv(?:\/[^'"]*)?['"]\s*\)/m;

/** Files that load Ajv at run time though they are not a validator generator. */
function ajvOffenders(files: { path: string; code: string }[]): string[] {
  return files.filter((f) => !f.path.endsWith('-validator-source.ts') && RUNTIME_AJV.test(f.code)).map((f) => f.path);
}

/** Generators whose committed validator or comparing test is missing. */
function incompleteGenerators(paths: string[], exists: (p: string) => boolean): string[] {
  return paths.filter((p) => p.endsWith('-validator-source.ts'))
    .filter((p) => !exists(p.replace(/-source\.ts$/, '.ts')) || !exists(p.replace(/-source\.ts$/, '.test.ts')));
}

const tree = (): string[] => ['main', 'shared', 'renderer', 'preload', 'sample-lakes'].flatMap((d) => sources(join(root, d)));

describe('one rule for the two validation styles', () => {
  it('the checks find a planted violation', () => {
    expect(ajvOffenders([
      { path: 'main/app/planted.ts', code: "import Ajv from 'ajv';\n" },
      { path: 'shared/api/planted.ts', code: "const { default: Ajv } = await import('ajv');\n" },
      { path: 'main/x/planted.ts', code: "import standaloneCode from 'ajv/dist/standalone';\n" },
      { path: 'main/reconcile/contract.ts', code: "import type { ErrorObject } from 'ajv';\n" },
      { path: 'main/reconcile/contract-validator-source.ts', code: "import Ajv from 'ajv';\n" },
    ])).toEqual(['main/app/planted.ts', 'shared/api/planted.ts', 'main/x/planted.ts']);
    expect(incompleteGenerators(['main/a/thing-validator-source.ts'], (p) => p === 'main/a/thing-validator.ts')).toEqual(['main/a/thing-validator-source.ts']);
  });

  it('Ajv runs only in the generators (and tests): the product loads committed standalone code', () => {
    const files = tree().map((p) => ({ path: relative(root, p), code: readFileSync(p, 'utf8') }));
    expect(ajvOffenders(files)).toEqual([]);
  });

  it('every generator has its committed validator and the test that regenerates and compares it', () => {
    const gens = tree().filter((p) => p.endsWith('-validator-source.ts'));
    expect(gens.map((p) => relative(root, p))).toContain(join('main', 'reconcile', 'contract-validator-source.ts'));
    expect(incompleteGenerators(gens, existsSync)).toEqual([]);
  });

  it('API requests are checked by the hand validators, one per method, and shared/ never names Ajv', async () => {
    const { apiSpec } = await import('../../shared/api/validate');
    for (const [m, spec] of Object.entries(apiSpec)) expect(typeof spec.validate, m).toBe('function');
    const shared = sources(join(root, 'shared')).filter((p) => /['"]ajv/.test(readFileSync(p, 'utf8')));
    expect(shared.map((p) => relative(root, p))).toEqual([]);
  });
});
