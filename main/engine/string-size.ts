// Functions whose arguments size the string they make: `repeat(s, 2000000000)` passes any allow
// list of "harmless" scalar functions and then grows the engine by gigabytes outside both DuckDB's
// memory limit and the V8 heap. Every expression check (the grid's WHERE box, a contract's partition
// expression, the laws' day expression) asks this module: the count or width must be a plain
// integer constant no larger than MAX_STRING_WIDTH, and a format string must be a constant whose
// widths are as small. What a static check cannot bound (a replace() nested in a replace()) is
// ended by the job ceiling instead: the engine's memory watchdog and the query time limit.

/** The largest count (repeat), width (lpad, rpad) or format width an expression may ask for. */
export const MAX_STRING_WIDTH = 10_000;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of a plain constant node, or undefined when the node is anything else. */
function constant(n: unknown): { type: string; value: unknown } | undefined {
  if (!isNode(n) || n.class !== 'CONSTANT' || !isNode(n.value)) return undefined;
  const v = n.value;
  if (v.is_null === true) return { type: 'NULL', value: null };
  return { type: isNode(v.type) ? String(v.type.id) : '', value: v.value };
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/** Positions of the sizing argument per function (0-based). */
const SIZE_ARG: Record<string, number> = { repeat: 1, lpad: 1, rpad: 1 };

function widthProblem(fn: string, arg: unknown): string | null {
  const c = constant(arg);
  if (!c) return `${fn}(): its length argument must be a plain number (at most ${MAX_STRING_WIDTH}), not an expression`;
  if (c.type === 'NULL') return null;
  const n = Number(c.value);
  if (!INTEGER_TYPES.has(c.type) || !Number.isFinite(n)) return `${fn}(): its length argument must be a whole number`;
  if (n > MAX_STRING_WIDTH) return `${fn}(): a length of ${String(c.value)} is over the limit of ${MAX_STRING_WIDTH}`;
  return null;
}

function formatProblem(fn: string, arg: unknown): string | null {
  const c = constant(arg);
  if (!c || c.type !== 'VARCHAR' || typeof c.value !== 'string') return `${fn}(): its format must be a constant string`;
  const f = c.value;
  // A width taken from an argument: printf's `*`, fmt's nested `{}` inside a spec.
  if (fn === 'printf' ? /%[^a-zA-Z%]*\*/.test(f) : /\{[^{}]*:[^{}]*\{/.test(f)) return `${fn}(): a width taken from an argument is not allowed`;
  for (const m of f.matchAll(/\d+/g)) {
    if (Number(m[0]) > MAX_STRING_WIDTH) return `${fn}(): a width of ${m[0]} is over the limit of ${MAX_STRING_WIDTH}`;
  }
  return null;
}

/** The problem with a FUNCTION node's sizing arguments, or null when it is bounded. */
export function stringSizeProblem(fn: string, children: unknown): string | null {
  const args = Array.isArray(children) ? children : [];
  const at = SIZE_ARG[fn];
  if (at !== undefined) return args.length > at ? widthProblem(fn, args[at]) : null;
  if (fn === 'format' || fn === 'printf') return args.length > 0 ? formatProblem(fn, args[0]) : null;
  return null;
}
