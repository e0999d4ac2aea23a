// The lint half of the output guard (docs/security.md): outside the modules listed here, no file
// under main/ may write, rename, link, copy or remove through node's fs. Every output goes through
// main/engine/outputs.ts (writeOutput, writeOutputWith) and every temp folder through
// main/engine/tempdirs.ts (makeTempDir), so a new command cannot write into a table by forgetting
// a check. A namespace or default import of fs (`import * as fs`), a dynamic import and a
// require of it are refused too: they would reach the same calls by another name.

/** fs calls that change the file system. */
export const FS_WRITES = [
  'writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'write', 'writeSync', 'writev', 'writevSync',
  'rename', 'renameSync', 'copyFile', 'copyFileSync', 'cp', 'cpSync', 'link', 'linkSync', 'symlink', 'symlinkSync',
  'truncate', 'truncateSync', 'ftruncate', 'ftruncateSync', 'mkdtemp', 'mkdtempSync', 'rm', 'rmSync', 'rmdir', 'rmdirSync',
  'unlink', 'unlinkSync', 'mkdir', 'mkdirSync', 'chmod', 'chmodSync', 'utimes', 'utimesSync',
  // fs.promises by its other name, and the flags that open a file for writing
  'promises',
];

const FS_MODULE = '/^(node:)?fs(\\u002Fpromises)?$/';
const names = (list) => `/^(${list.join('|')})$/`;

/** The no-restricted-syntax entries that refuse `list` from fs. */
export function fsRestrictions(list, message) {
  return [
    { selector: `ImportDeclaration[source.value=${FS_MODULE}] > ImportSpecifier[imported.name=${names(list)}]`, message },
    { selector: `ImportDeclaration[source.value=${FS_MODULE}] > ImportNamespaceSpecifier`, message: `${message} (no namespace import of fs: name what you read)` },
    { selector: `ImportDeclaration[source.value=${FS_MODULE}] > ImportDefaultSpecifier`, message: `${message} (no default import of fs: name what you read)` },
    { selector: `ImportExpression[source.value=${FS_MODULE}]`, message },
    { selector: `CallExpression[callee.name='require'][arguments.0.value=${FS_MODULE}]`, message },
    ...(list.includes('writeFile') ? [
      // open(path, 'w'), openSync(path, 'a+'), ... and the O_ flags that write
      { selector: "CallExpression[callee.name=/^open(Sync)?$/] > Literal.arguments:nth-child(2)[value=/[wa+]/]", message },
      { selector: 'MemberExpression[property.name=/^O_(WRONLY|RDWR|CREAT|APPEND|TRUNC)$/]', message },
    ] : []),
  ];
}

/**
 * Modules that may write with fs, each for a reason:
 * the guard itself; the Delta writer and its storage seam (they build tables: the sample lakes,
 * the test tables, a mutation sandbox's mutants, never a user's table, which commands open with
 * the reader); the sandboxes and spill/upload folders, which write only inside a folder made by
 * makeTempDir; the app's own state files (the run history's DuckDB file, the lock files); and
 * the developer tools that are no command (bench, experiments, examples, recordings, tests' kits).
 */
export const FS_WRITERS = [
  'main/engine/outputs.ts',
  'main/engine/tempdirs.ts',
  'main/writer/**',
  'main/storage/**',
  'main/trust/sandbox.ts',
  'main/proof/run.ts',
  'main/proof/engines/**',
  'main/proof/delta-log.ts',
  'main/app/web-server.ts',
  'main/runs/store.ts',
  // The demo table of `npm start` (a table the app builds, like the sample lakes).
  'main/app/demo-table.ts',
];

/** Developer tools, no command of the product: their scratch folders are their own (not cleaned by tempdirs). */
export const FS_DEV_TOOLS = [
  'main/bench/**',
  'main/experiments/**',
  'main/examples/**',
  'main/recording/**',
  'main/testing/**',
  'main/entries/bench.ts',
  'main/entries/experiments.ts',
  'main/entries/record-demo.ts',
  'main/entries/verify.ts',
  'main/entries/matrix.ts',
];
