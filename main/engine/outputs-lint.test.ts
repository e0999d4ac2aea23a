// The output guard is the only path by construction: the lint rule refuses every way a module
// could write with fs on its own. Each planted bypass below must fail `npm run lint`.
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const repo = resolve(__dirname, '..', '..');
const eslint = new ESLint({ cwd: repo });

async function restricted(code: string, filePath: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: resolve(repo, filePath) });
  return r.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('no fs write outside the output guard', () => {
  const bypasses: [string, string][] = [
    ['a named write', "import { writeFileSync } from 'node:fs';\nwriteFileSync('/tmp/x', 'y');\n"],
    ['a promise write', "import { writeFile } from 'node:fs/promises';\nvoid writeFile('/tmp/x', 'y');\n"],
    ['a stream', "import { createWriteStream } from 'fs';\ncreateWriteStream('/tmp/x').end('y');\n"],
    ['a rename', "import { renameSync } from 'node:fs';\nrenameSync('/tmp/a', '/tmp/b');\n"],
    ['a namespace import', "import * as fs from 'node:fs';\nfs.writeFileSync('/tmp/x', 'y');\n"],
    ['a default import', "import fs from 'node:fs';\nfs.appendFileSync('/tmp/x', 'y');\n"],
    ['a dynamic import', "export async function f(): Promise<void> { const fs = await import('node:fs'); fs.writeFileSync('/tmp/x', 'y'); }\n"],
    ['fs.promises by name', "import { promises } from 'node:fs';\nvoid promises.writeFile('/tmp/x', 'y');\n"],
    ['a file opened for writing', "import { openSync } from 'node:fs';\nexport const fd = openSync('/tmp/x', 'w');\n"],
    ['a file opened with write flags', "import { constants, openSync } from 'node:fs';\nexport const fd = openSync('/tmp/x', constants.O_WRONLY | constants.O_CREAT);\n"],
    ['a temp folder of its own', "import { mkdtempSync } from 'node:fs';\nmkdtempSync('/tmp/lakerec-x-');\n"],
  ];
  for (const [what, code] of bypasses) {
    it(`a command planting ${what} fails lint`, async () => {
      expect((await restricted(code, 'main/cli/planted-bypass.ts')).length).toBeGreaterThan(0);
    });
  }

  it('a sandbox module may write inside its folder, but not make a temp folder of its own', async () => {
    expect(await restricted("import { writeFileSync } from 'node:fs';\nwriteFileSync('/tmp/x', 'y');\n", 'main/trust/sandbox.ts')).toEqual([]);
    expect((await restricted("import { mkdtempSync } from 'node:fs';\nmkdtempSync('/tmp/x-');\n", 'main/trust/sandbox.ts')).length).toBeGreaterThan(0);
  });

  it('reading stays allowed, and so does the guard itself', async () => {
    expect(await restricted("import { readFileSync } from 'node:fs';\nexport const x = readFileSync('/etc/hostname', 'utf8');\n", 'main/cli/planted-bypass.ts')).toEqual([]);
    expect(await restricted("import { constants, openSync } from 'node:fs';\nexport const fd = openSync('/etc/hostname', constants.O_RDONLY | constants.O_NONBLOCK);\nexport const fd2 = openSync('/etc/hostname', 'r');\n", 'main/cli/planted-bypass.ts')).toEqual([]);
    expect(await restricted("import { renameSync } from 'node:fs';\nrenameSync('/tmp/a', '/tmp/b');\n", 'main/engine/outputs.ts')).toEqual([]);
  });
});
