// The `layers/imports` lint rule: main/'s inner layers, and renderer/'s (shared code, tabs, shell) (VS Code's "code-layering" idea). The map
// itself lives in eslint.config.js; this file only enforces it. A layer is a set of folders; the
// layers form tiers, low to high: a file may import its own layer, shared/, and any layer of a
// LOWER tier, never a sibling of its own tier and never upwards. A layer may instead name exactly
// what it may import (`allow`). A file under main/ in no layer is an error too, so a new folder
// has to be placed in the map before it can be built on.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ImportGraph } from './import-graph.mjs';

/** @typedef {{ name: string, folders: string[], allow?: string[] }} Layer */

/** Longest folder prefix wins (a nested folder before its parent). */
function layerOf(rel, layers) {
  let best = null;
  let bestLen = -1;
  for (const l of layers) {
    for (const f of l.folders) {
      if ((rel === f || rel.startsWith(`${f}/`)) && f.length > bestLen) {
        best = l;
        bestLen = f.length;
      }
    }
  }
  return best;
}

/**
 * Resolves the map: for every layer, the names it may import.
 * @param {Layer[][]} tiers low to high
 */
export function resolveLayers(tiers) {
  const layers = [];
  const allowed = new Map();
  tiers.forEach((tier, i) => {
    const below = tiers.slice(0, i).flat().map((l) => l.name);
    for (const l of tier) {
      layers.push(l);
      allowed.set(l.name, new Set([l.name, ...(l.allow ?? below)]));
    }
  });
  return { layers, allowed };
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: "main/'s inner layers: no import from a sibling or a higher layer" },
    schema: [{
      type: 'object',
      properties: {
        root: { type: 'string' },
        tiers: { type: 'array' },
        /** Folders every layer may import (shared/). */
        common: { type: 'array', items: { type: 'string' } },
        /** Folders the rule covers: a file there in no layer is reported. */
        covered: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    }],
    messages: {
      upward: '{{from}} ({{fromLayer}}) may not import {{to}} ({{toLayer}}): {{fromLayer}} imports only {{allowed}} (the layer map in eslint.config.js).',
      unplaced: '{{file}} is in no layer of {{covered}}/: place its folder in the layer map in eslint.config.js.',
      outside: '{{from}} ({{fromLayer}}) may not import {{to}}, which is in no layer.',
    },
  },
  create(context) {
    const opts = context.options[0] ?? {};
    const root = opts.root ?? process.cwd();
    const common = opts.common ?? ['shared'];
    const covered = opts.covered ?? ['main'];
    const { layers, allowed } = resolveLayers(opts.tiers ?? []);
    const toRel = (abs) => relative(root, abs).split(sep).join('/');
    const file = toRel(context.filename);
    const inside = (rel, folders) => folders.some((f) => rel === f || rel.startsWith(`${f}/`));
    const from = layerOf(file, layers);
    if (!from) {
      return {
        Program(node) {
          if (inside(file, covered)) context.report({ node, messageId: 'unplaced', data: { file, covered: covered.find((f) => inside(file, [f])) } });
        },
      };
    }
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (!spec.startsWith('.') && !isAbsolute(spec)) return; // packages and node: other rules
      const target = toRel(resolve(dirname(context.filename), spec));
      if (target.startsWith('..') || inside(target, common)) return;
      const to = layerOf(target, layers);
      const ok = allowed.get(from.name);
      if (!to) {
        if (inside(target, covered)) context.report({ node: source, messageId: 'outside', data: { from: file, fromLayer: from.name, to: target } });
        return;
      }
      if (!ok.has(to.name)) {
        context.report({
          node: source,
          messageId: 'upward',
          data: { from: file, fromLayer: from.name, to: target, toLayer: to.name, allowed: [...ok].filter((n) => n !== from.name).join(', ') || 'shared/' },
        });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
    };
  },
};

// `layers/no-cycle`: no file may reach itself through static imports (type imports included). The
// graph of the files on disk is read once per lint run; the file being linted brings its own text,
// so an edit that closes a circle is reported on the import that closes it.
let graph = null;
let graphStamp = 0;
const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no circle of imports between modules' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
    messages: {
      cycle: 'import circle: {{path}}. Move what both need into a module both import, or invert one dependency.',
    },
  },
  create(context) {
    const opts = context.options[0] ?? {};
    const root = opts.root ?? process.cwd();
    // One lint run lints many files within seconds; a long-lived process (an editor) re-reads.
    const now = Date.now();
    if (!graph || now - graphStamp > 2000) {
      graph = new ImportGraph();
      graphStamp = now;
    }
    const toRel = (abs) => relative(root, abs).split(sep).join('/');
    return {
      Program(node) {
        const text = context.sourceCode.getText();
        const path = graph.cycleThrough(context.filename, text);
        if (!path) return;
        const next = path[1];
        const stmt = node.body.find((st) => st.source && typeof st.source.value === 'string'
          && resolve(dirname(context.filename), st.source.value).replace(/\.(js|mjs)$/, '') === next.replace(/\.(ts|tsx|mts|js|mjs)$/, '').replace(/\/index$/, ''));
        context.report({ node: stmt ?? node, messageId: 'cycle', data: { path: path.map(toRel).join(' -> ') } });
      },
    };
  },
};

export default { rules: { imports: rule, 'no-cycle': noCycle } };
