// The contract editor's second check: every column the contract names must exist on both sides
// (the source under its own name, before renames; the target under the renamed name), and each
// key must have the same type on both sides. Every problem comes back with the line it is on,
// not only the first, as soon as the source is chosen, before anything runs.
import { LineCounter, isNode, parseDocument } from 'yaml';
import type { ContractProblem } from '../../shared/api';
import type { Contract } from '../reconcile/contract';
import type { SchemaColumn } from '../../shared/reconcile';

/** The line of a YAML path in `text` (1-based), or the nearest enclosing node's. */
export function yamlLineFinder(text: string): (path: (string | number)[]) => number | null {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  return (path) => {
    for (let n = path.length; n >= 1; n--) {
      const node = doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
      // A mapping key's line when the value is a scalar without range.
    }
    return null;
  };
}

export function contractColumnProblems(c: Contract, text: string, source: SchemaColumn[], target: SchemaColumn[], opts: { sourceName?: string; targetName?: string; sourceTyped?: boolean } = {}): ContractProblem[] {
  const sourceName = opts.sourceName ?? 'the source';
  const targetName = opts.targetName ?? 'the table';
  // CSV and JSON carry no types: they are cast to the table's, so only typed sources are compared.
  const typed = opts.sourceTyped ?? true;
  const lineOf = yamlLineFinder(text);
  const src = new Map(source.map((x) => [x.name, x.type]));
  const tgt = new Map(target.map((x) => [x.name, x.type]));
  // The contract names source columns; the target holds them under renames[name] ?? name.
  const targetNameOf = (n: string) => c.renames[n] ?? n;
  const sourceNameOf = (n: string) => Object.entries(c.renames).find(([, t]) => t === n)?.[0] ?? n;
  const out: ContractProblem[] = [];
  const need = (col: string, path: (string | number)[], what: string, types: boolean) => {
    const sName = src.has(col) ? col : sourceNameOf(col);
    const tName = tgt.has(col) ? col : targetNameOf(col);
    const inS = src.has(sName);
    const inT = tgt.has(tName);
    const line = lineOf(path);
    if (!inS && !inT) out.push({ line, message: `${what} "${col}" is a column of neither side (${sourceName} has ${list(source)}; ${targetName} has ${list(target)}).` });
    else if (!inS) out.push({ line, message: `${what} "${col}" is not a column of ${sourceName} (it has ${list(source)}).` });
    else if (!inT) out.push({ line, message: `${what} "${col}" is not a column of ${targetName} (it has ${list(target)}).` });
    else if (types && typed && src.get(sName) !== tgt.get(tName)) {
      out.push({ line, message: `${what} "${col}" is ${src.get(sName)} in ${sourceName} but ${tgt.get(tName)} in ${targetName}: keys must compare as the same type.` });
    }
  };
  c.keys.forEach((k, i) => need(k, ['keys', i], 'Key', true));
  if (c.partitioning && !c.partitioning.expression) need(c.partitioning.column, ['partitioning', 'column'], 'Partition column', false);
  if (c.lateness) need(c.lateness.column, ['lateness', 'column'], 'Lateness column', false);
  if (c.ordering) need(c.ordering, ['ordering'], 'Ordering column', false);
  c.ignore.forEach((k, i) => {
    if (!src.has(k) && !tgt.has(targetNameOf(k))) out.push({ line: lineOf(['ignore', i]), message: `Ignored column "${k}" is a column of neither side.` });
  });
  for (const [s, t] of Object.entries(c.renames)) {
    if (!src.has(s)) out.push({ line: lineOf(['renames', s]), message: `Rename from "${s}": ${sourceName} has no such column.` });
    if (!tgt.has(t)) out.push({ line: lineOf(['renames', s]), message: `Rename to "${t}": ${targetName} has no such column.` });
  }
  for (const col of Object.keys(c.floats)) {
    if (!src.has(col) && !tgt.has(targetNameOf(col))) out.push({ line: lineOf(['columns', col]), message: `Column rule for "${col}": a column of neither side.` });
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function list(cols: SchemaColumn[]): string {
  const names = cols.map((c) => c.name);
  return names.length > 8 ? `${names.slice(0, 8).join(', ')}, … (${names.length})` : names.join(', ') || 'no columns';
}
