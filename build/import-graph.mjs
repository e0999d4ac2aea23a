// The repository's import graph, read with TypeScript's own parser (never by regex): which file
// imports which. Used by the `layers/no-cycle` lint rule. Static, relative imports count, type-only
// ones included: `import type` vanishes at build time, but a circle of types is still two modules
// that cannot be understood (or moved) apart. A dynamic `import()` does not count: it is how a
// command loads a module lazily, after every module it names has loaded.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

const EXTS = ['.ts', '.tsx', '.mts', '.js', '.mjs'];

/** The file a relative specifier names, or null (a package, or a file that does not exist). */
export function resolveSpecifier(fromFile, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(fromFile), spec);
  const stem = base.replace(/\.(js|mjs|jsx)$/, '');
  const candidates = [base, ...EXTS.map((e) => stem + e), ...EXTS.map((e) => `${base}/index${e}`)];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

function isTypeOnlyImport(node) {
  const clause = node.importClause;
  if (!clause) return false; // `import './x'` runs x
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const nb = clause.namedBindings;
  if (!nb) return false;
  if (ts.isNamespaceImport(nb)) return false;
  return nb.elements.length > 0 && nb.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node) {
  if (node.isTypeOnly) return true;
  const ec = node.exportClause;
  return !!ec && ts.isNamedExports(ec) && ec.elements.length > 0 && ec.elements.every((e) => e.isTypeOnly);
}

/** The specifiers `text` (the source of `file`) imports; type-only ones only `withTypes`. */
export function staticImports(file, text, withTypes = true) {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const out = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      if (withTypes || !isTypeOnlyImport(st)) out.push(st.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (withTypes || !isTypeOnlyExport(st)) out.push(st.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(st) && !st.isTypeOnly && ts.isExternalModuleReference(st.moduleReference)) {
      const e = st.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    }
  }
  return out;
}

/** A graph that reads each file from disk once; the file being linted brings its own text. */
export class ImportGraph {
  constructor() {
    this.edges = new Map();
  }

  importsOf(file, text) {
    if (text === undefined && this.edges.has(file)) return this.edges.get(file);
    let src = text;
    if (src === undefined) {
      try {
        src = readFileSync(file, 'utf8');
      } catch {
        src = '';
      }
    }
    const targets = [];
    for (const spec of staticImports(file, src)) {
      const t = resolveSpecifier(file, spec);
      if (t && !/\.test\.tsx?$/.test(t)) targets.push(t);
    }
    if (text === undefined) this.edges.set(file, targets);
    return targets;
  }

  /** A path start -> ... -> start through static imports, or null. */
  cycleThrough(start, startText) {
    const first = this.importsOf(start, startText);
    const prev = new Map();
    const queue = [];
    for (const t of first) {
      if (!prev.has(t)) {
        prev.set(t, start);
        queue.push(t);
      }
    }
    while (queue.length > 0) {
      const f = queue.shift();
      if (f === start) {
        const path = [start];
        let cur = prev.get(start);
        while (cur !== start) {
          path.unshift(cur);
          cur = prev.get(cur);
        }
        path.unshift(start);
        return path;
      }
      for (const t of this.importsOf(f)) {
        if (!prev.has(t)) {
          prev.set(t, f);
          queue.push(t);
        }
      }
    }
    return null;
  }
}
