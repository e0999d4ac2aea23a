// The layer map in eslint.config.js is a real rule: an import that runs up the map (or sideways
// between siblings, or out of sample-lakes' allow list) fails the lint; the imports the map allows
// pass. Each case lints a planted file, through ESLint's own Node API with the repository's config.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The layer-rule messages for `code` planted at `file` (relative to the repository root). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return r.messages.filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
}

describe('the main/ layer map (eslint.config.js)', () => {
  it('fails an import from a lower layer up into a higher one', async () => {
    const e = await layerErrors('main/delta/planted.ts', "import { runCli } from '../cli/main';\nexport const x = runCli;\n");
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/main\/delta\/planted\.ts \(delta\) may not import main\/cli\/main \(cli\)/);
  });

  it('fails re-exports and dynamic imports that run upwards too', async () => {
    expect(await layerErrors('main/engine/planted.ts', "export * from '../delta/table';\n")).toHaveLength(1);
    expect(await layerErrors('main/reconcile/planted.ts', "export const f = () => import('../incident/report');\n")).toHaveLength(1);
  });

  it('fails an import between siblings of one tier', async () => {
    const e = await layerErrors('main/reconcile/planted.ts', "import { fingerprint } from '../proof/fingerprint';\nexport const x = fingerprint;\n");
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/\(reconcile\) may not import main\/proof\/fingerprint \(proof\)/);
  });

  it('keeps forensics below reconcile: reconcile reads its record, forensics never imports reconcile', async () => {
    expect(await layerErrors('main/reconcile/planted.ts', "import { partitionRemovals } from '../forensics/removals';\nexport const x = partitionRemovals;\n")).toHaveLength(0);
    const e = await layerErrors('main/forensics/planted.ts', "import { reconcile } from '../reconcile/reconcile';\nexport const x = reconcile;\n");
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/\(forensics\) may not import main\/reconcile\/reconcile \(reconcile\)/);
  });

  it('keeps the CLI and the window apart: neither imports the other', async () => {
    expect(await layerErrors('main/app/planted.ts', "import { runCli } from '../cli/main';\nexport const x = runCli;\n")).toHaveLength(1);
    expect(await layerErrors('main/cli/planted.ts', "import { createService } from '../app/service';\nexport const x = createService;\n")).toHaveLength(1);
  });

  it('lets sample-lakes import the writer, the engine and shared only', async () => {
    const ok = "import { DeltaWriter } from '../main/writer';\nimport { openDuck } from '../main/engine/duck';\nimport { LakerecError } from '../shared/errors';\nexport const x = [DeltaWriter, openDuck, LakerecError];\n";
    expect(await layerErrors('sample-lakes/planted.ts', ok)).toEqual([]);
    expect(await layerErrors('sample-lakes/planted.ts', "import { DeltaTable } from '../main/delta/table';\nexport const x = DeltaTable;\n")).toHaveLength(1);
    expect(await layerErrors('sample-lakes/planted.ts', "import { runCli } from '../main/cli/main';\nexport const x = runCli;\n")).toHaveLength(1);
  });

  it('passes the imports the map allows: downwards, within a layer, shared/, packages', async () => {
    const code = [
      "import { composeIncident } from '../incident/report';",
      "import { parseArgs } from '../engine/args';",
      "import { DeltaTable } from '../delta/table';",
      "import { LakerecError } from '../../shared/errors';",
      "import { commands } from './commands';",
      "import { join } from 'node:path';",
      'export const x = [composeIncident, parseArgs, DeltaTable, LakerecError, commands, join];',
    ].join('\n');
    expect(await layerErrors('main/cli/planted.ts', `${code}\n`)).toEqual([]);
  });

  it('fails a file in a main/ folder the map does not place', async () => {
    const e = await layerErrors('main/unplaced/planted.ts', 'export const x = 1;\n');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/in no layer of main\//);
  });

  it('leaves tests free to drive any layer', async () => {
    expect(await layerErrors('main/delta/planted.test.ts', "import { runCli } from '../cli/main';\nexport const x = runCli;\n")).toEqual([]);
  });
});

describe('the renderer/ layer map (eslint.config.js): tabs import shared code, not each other', () => {
  it('fails a tab importing another tab (the History and Timeline tabs included)', async () => {
    const e = await layerErrors('renderer/timeline/planted.tsx', "import { HistoryView } from '../history/HistoryView';\nexport const x = HistoryView;\n");
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/renderer\/timeline\/planted\.tsx \(the timeline tab\) may not import renderer\/history\/HistoryView \(the history tab\)/);
    expect(await layerErrors('renderer/history/planted.tsx', "import { TimelineChart } from '../timeline/TimelineChart';\nexport const x = TimelineChart;\n")).toHaveLength(1);
    expect(await layerErrors('renderer/compare/planted.tsx', "export { ReconcileView } from '../reconcile/ReconcileView';\n")).toHaveLength(1);
    expect(await layerErrors('renderer/data/planted.tsx', "export const f = () => import('../schema/SchemaView');\n")).toHaveLength(1);
  });

  it('fails shared renderer code importing a tab (the loading gate in renderer/app included)', async () => {
    expect(await layerErrors('renderer/app/planted.tsx', "import { HistoryView } from '../history/HistoryView';\nexport const x = HistoryView;\n")).toHaveLength(1);
    expect(await layerErrors('renderer/ui/planted.ts', "import { useBisect } from '../bisect/BisectView';\nexport const x = useBisect;\n")).toHaveLength(1);
    expect(await layerErrors('renderer/state/planted.ts', "import { TimelineView } from '../timeline/TimelineView';\nexport const x = TimelineView;\n")).toHaveLength(1);
  });

  it('passes a tab importing renderer/ui, state, api, app, its own folder and shared/', async () => {
    const code = [
      "import { ErrorPanel } from '../ui/ErrorPanel';",
      "import { useWorkbench } from '../state/context';",
      "import { createClient } from '../api/client';",
      "import { TableGate } from '../app/TableGate';",
      "import { timelineStoreFor } from '../state/timeline';",
      "import { TimelineChart } from './TimelineChart';",
      "import { LakerecError } from '../../shared/errors';",
      "import './timeline.css';",
      'export const x = [ErrorPanel, useWorkbench, createClient, TableGate, timelineStoreFor, TimelineChart, LakerecError];',
    ].join('\n');
    expect(await layerErrors('renderer/timeline/planted.tsx', `${code}\n`)).toEqual([]);
  });

  it('lets the window shell (App.tsx) put every tab in one window', async () => {
    const code = "import { HistoryView } from '../history/HistoryView';\nimport { TimelineView } from '../timeline/TimelineView';\nexport const x = [HistoryView, TimelineView];\n";
    expect(await layerErrors('renderer/app/App.tsx', code)).toEqual([]);
  });

  it('fails a file in a renderer/ folder the map does not place', async () => {
    const e = await layerErrors('renderer/newtab/planted.tsx', 'export const x = 1;\n');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/in no layer of renderer\//);
  });
});

describe('no import circles (layers/no-cycle)', () => {
  // The rule reads the other files from disk, so the circle's other half is planted on disk.
  const dir = resolve(root, 'main', 'testing', `planted-cycle-${process.pid}`);
  const rel = (f: string) => `main/testing/planted-cycle-${process.pid}/${f}`;
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(resolve(dir, 'b.ts'), "import { a } from './a';\nexport const b = () => a;\n");
    writeFileSync(resolve(dir, 'c.ts'), "import type { A } from './a';\nexport type C = A;\n");
    writeFileSync(resolve(dir, 'd.ts'), "export const d = () => import('./a');\n");
    writeFileSync(resolve(dir, 'a.ts'), 'export const a = 1;\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cycleErrors(file: string, code: string): Promise<string[]> {
    const [r] = await eslint.lintText(code, { filePath: resolve(root, file) });
    return r.messages.filter((m) => m.ruleId === 'layers/no-cycle').map((m) => m.message);
  }

  it('fails an import that closes a circle, naming the path', async () => {
    const e = await cycleErrors(rel('a.ts'), "import { b } from './b';\nexport const a = b;\n");
    expect(e).toHaveLength(1);
    expect(e[0]).toContain(`${rel('a.ts')} -> ${rel('b.ts')} -> ${rel('a.ts')}`);
  });

  it('counts a circle of type imports too', async () => {
    const e = await cycleErrors(rel('a.ts'), "import type { C } from './c';\nexport type A = C | number;\nexport const a = 1;\n");
    expect(e).toHaveLength(1);
  });

  it('does not count a lazy import(): it runs after both modules have loaded', async () => {
    expect(await cycleErrors(rel('a.ts'), "import { d } from './d';\nexport const a = d;\n")).toEqual([]);
  });
});
