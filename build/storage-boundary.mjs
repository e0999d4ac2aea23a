// The storage boundary (ADR 0009) as a lint rule: the layers that investigate a table read its bytes
// only through main/storage (openTable, the handle's store), never with node's fs. What is truly
// local keeps fs by name below, each with its reason: settings, runs, outputs, temp sandboxes,
// contracts and reconcile sources (read from this machine only in this build), the server itself.
export const FS_FREE_LAYERS = ['main/forensics', 'main/bisect', 'main/reconcile', 'main/trust', 'main/views', 'main/app'];

export const FS_ALLOWED = {
  'main/bisect/predicates/reader.ts': 'the matches-source source folder or file (local sources only)',
  'main/bisect/predicates/matches-source.ts': 'the matches-source source (local sources only)',
  'main/reconcile/sides.ts': 'the reconcile source side: a local file or folder',
  'main/reconcile/matrix.ts': 'writes the matrix output (outputs are local)',
  'main/reconcile/contract.ts': 'reads the contract file (bounded, regular files only)',
  'main/reconcile/baseline.ts': 'reads and writes baselines (local outputs)',
  'main/trust/mutate.ts': 'checks its temp sandbox was removed',
  'main/trust/sandbox.ts': 'builds the temp sandbox table',
  'main/trust/keys.ts': 'the referenced table or file of a key check (local only)',
  'main/views/rows.ts': 'locks the grid DuckDB to the local folder',
  'main/views/contract-file.ts': 'reads the contract file',
  'main/app/lineage.ts': 'the real path of a local table, the key of its lineage setting',
  'main/app/uploads.ts': 'hashes an uploaded source file in the web server\'s upload folder (local by nature)',
  'main/views/diff.ts': 'reads the contract file',
  'main/app/demo-table.ts': 'builds the demo table in a temp folder',
  'main/app/screens.ts': 'the reconcile source side and local output folders',
  'main/app/web-server.ts': 'web mode uploads and static files',
  'main/app/electron.ts': 'the window shell',
  'main/app/service.ts': 'the folder browser (local folders)',
  'main/app/engine-worker.ts': 'writes exported reports (local outputs)',
  'main/app/samples.ts': 'finds the built sample lakes',
  'main/app/web-main.ts': 'web mode start-up checks',
  'main/app/paths.ts': 'the folder picker (local folders)',
  'main/app/views.ts': 'a versioned source path (SRC@N) or a real file named SRC@N',
  'main/app/investigate.ts': 'a local table log folder mtime (cache freshness)',
};

const fsModules = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
export const FS_MESSAGE = 'this layer reads tables only through main/storage (openTable, the handle); node:fs is for what is truly local: add the file to FS_ALLOWED in build/storage-boundary.mjs with its reason';
export const fsRestriction = { paths: fsModules.map((name) => ({ name, message: FS_MESSAGE })) };
