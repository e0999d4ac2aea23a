// The storage boundary is a lint rule, not a convention: node:fs planted in an investigating layer
// fails the lint (named allow list aside), while the storage layer itself and the allowed files pass.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let eslint: ESLint;
beforeAll(() => { eslint = new ESLint({ cwd: root }); });

async function fsErrors(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('no node:fs above the storage layer (build/storage-boundary.mjs)', () => {
  it.each(['main/forensics/planted.ts', 'main/bisect/planted.ts', 'main/reconcile/planted.ts', 'main/trust/planted.ts', 'main/views/planted.ts', 'main/app/planted.ts'])(
    'fails node:fs, fs and fs/promises planted in %s', async (file) => {
      for (const mod of ['node:fs', 'fs', 'node:fs/promises']) {
        const e = await fsErrors(file, `import { existsSync } from '${mod}';\nexport const x = existsSync;\n`);
        expect(e).toHaveLength(1);
        expect(e[0]).toMatch(/only through main\/storage/);
      }
    });

  it('keeps the UI ban in those layers too', async () => {
    expect(await fsErrors('main/forensics/planted.ts', "import React from 'react';\nexport const x = React;\n")).toHaveLength(1);
  });

  it('passes the storage layer, a named allowed file and tests', async () => {
    const code = "import { existsSync } from 'node:fs';\nexport const x = existsSync;\n";
    expect(await fsErrors('main/storage/planted.ts', code)).toEqual([]);
    expect(await fsErrors('main/app/lineage.ts', code)).toEqual([]);
    expect(await fsErrors('main/forensics/planted.test.ts', code)).toEqual([]);
  });
});
