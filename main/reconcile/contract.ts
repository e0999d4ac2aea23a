// The contract: one reviewed YAML file that says what a comparison means (keys, partitioning,
// what to ignore, what "equal" means for a float, ...). Parsed with positions so every error
// names its line, and checked against a JSON schema before anything reads a table.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { validate as standaloneValidate } from './contract-validator';
import { LineCounter, parseDocument, isNode, visit } from 'yaml';
import { LakerecError } from '../../shared/errors';
import type { ContractSummary } from '../../shared/reconcile';
import { parseTrustFields, TRUST_CONTRACT_PROPERTIES, type LawsSpec, type Relationship } from './contract-fields';

export type FloatRule = { tolerance: number } | 'exclude';

export interface Contract {
  version: 1;
  name: string;
  path: string | null;
  sha256: string | null;
  keys: string[];
  partitioning: { column: string; expression: string | null } | null;
  floats: Record<string, FloatRule>;
  naiveIsUtc: boolean;
  lateness: { column: string; allow: string; days: number } | null;
  ordering: string | null;
  ignore: string[];
  /** source column name -> target column name */
  renames: Record<string, string>;
  tags: Record<string, { sensitivity?: string; description?: string }>;
  /** Trust fields (main/reconcile/contract-fields.ts): references to other tables' keys, conserved measures. */
  relationships: Relationship[];
  laws: LawsSpec | null;
  /** Where a field was written (for errors raised later, e.g. a bad partition expression). */
  lines: Record<string, number>;
}

const identifier = { type: 'string', minLength: 1 } as const;

/** The contract's JSON schema (also printed in docs/contract.md). */
export const CONTRACT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'keys'],
  properties: {
    version: { const: 1 },
    name: { type: 'string' },
    description: { type: 'string' },
    keys: { type: 'array', minItems: 1, items: identifier, uniqueItems: true },
    partitioning: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['column'],
          properties: { column: identifier, expression: { type: 'string', minLength: 1 } },
        },
      ],
    },
    columns: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          float: {
            anyOf: [
              { const: 'exclude' },
              {
                type: 'object', additionalProperties: false, required: ['tolerance'],
                properties: { tolerance: { type: 'number', minimum: 0 } },
              },
            ],
          },
          sensitivity: { type: 'string' },
          description: { type: 'string' },
        },
      },
    },
    timestamps: {
      type: 'object', additionalProperties: false,
      properties: { naive_is_utc: { type: 'boolean' } },
    },
    lateness: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object', additionalProperties: false, required: ['column', 'allow'],
          properties: {
            column: identifier,
            allow: { type: 'string', pattern: '^\\s*\\d+\\s*(day|days|d|hour|hours|h)\\s*$' },
          },
        },
      ],
    },
    ordering: { anyOf: [{ type: 'null' }, identifier] },
    ignore: { type: 'array', items: identifier, uniqueItems: true },
    renames: { type: 'object', additionalProperties: identifier },
    tags: {
      type: 'object',
      additionalProperties: {
        type: 'object', additionalProperties: false,
        properties: {
          sensitivity: { enum: ['public', 'internal', 'confidential', 'restricted'] },
          description: { type: 'string' },
        },
      },
    },
    ...TRUST_CONTRACT_PROPERTIES,
  },
} as const;

/** The schema's errors for a value, from the committed standalone validator (no Ajv at run time). */
export function contractSchemaErrors(v: unknown): ErrorObject[] {
  const f = standaloneValidate as unknown as ((x: unknown) => boolean) & { errors?: ErrorObject[] | null };
  return f(v) ? [] : (f.errors ?? []);
}
const validate = contractSchemaErrors;

function describeAjvError(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'the contract';
  switch (e.keyword) {
    case 'additionalProperties':
      return `${where}: unknown field "${String(e.params.additionalProperty)}"`;
    case 'required':
      return `${where}: missing required field "${String(e.params.missingProperty)}"`;
    case 'const':
      return `${where}: must be ${JSON.stringify(e.params.allowedValue)}`;
    case 'enum':
      return `${where}: must be one of ${(e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    case 'pattern':
      return `${where}: must look like "1 day" or "6 hours"`;
    case 'anyOf':
      return `${where}: has the wrong shape`;
    default:
      return `${where}: ${e.message ?? 'is invalid'}`;
  }
}

/** A contract is a short reviewed file: anything larger is refused before it is parsed. */
export const MAX_CONTRACT_BYTES = 1024 * 1024;

export interface ContractProblem { line: number; message: string }

/** Every problem of a contract, each with its line (empty when the contract is valid). */
export function contractProblems(text: string): ContractProblem[] {
  try {
    parseContract(text, 'contract');
    return [];
  } catch (e) {
    if (e instanceof ContractInvalid) return e.problems;
    throw e;
  }
}

/** contract_invalid carrying every problem (the message lists them all, the window shows them one per line). */
export class ContractInvalid extends LakerecError {
  readonly problems: ContractProblem[];
  constructor(where: string, problems: ContractProblem[]) {
    const sorted = [...problems].sort((a, b) => a.line - b.line);
    super('contract_invalid', sorted.map((p) => `${where}:${p.line}: ${p.message}`).join('; '), { line: sorted[0]?.line ?? 1, path: where, problems: sorted.length });
    this.problems = sorted;
  }
}

/** Parses and checks contract text; `path` is used in messages. Throws contract_invalid with every problem and its line. */
export function parseContract(text: string, path: string | null = null): Contract {
  const where = path ?? 'contract';
  const fail = (problems: ContractProblem[]): never => { throw new ContractInvalid(where, problems); };
  if (text.length > MAX_CONTRACT_BYTES) fail([{ line: 1, message: `the contract is larger than ${MAX_CONTRACT_BYTES / 1024 / 1024} MB; a contract is a short reviewed file` }]);
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    fail(doc.errors.slice(0, 20).map((e) => ({ line: lc.linePos(e.pos[0]).line, message: e.message.split('\n')[0] })));
  }
  let value: unknown;
  try {
    // The YAML library stops an alias bomb (billions of nodes from a few lines) by counting.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    let line = 1;
    visit(doc, { Alias(_, node) { if (line === 1 && node.range) line = lc.linePos(node.range[0]).line; return visit.BREAK; } });
    fail([{ line, message: `the contract cannot be expanded: ${(e as Error).message.split('\n')[0]}` }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail([{ line: 1, message: 'a contract is a YAML mapping (version, keys, ...)' }]);
  }
  const lineOf = (instancePath: string): number => {
    const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    for (let n = parts.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(parts.slice(0, n).map((p) => (/^\d+$/.test(p) ? Number(p) : p)), true);
      if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
    }
    return 1;
  };
  const errors = validate(value);
  if (errors.length > 0) {
    // One problem per mistake: a vague anyOf/type/const is dropped where a more specific error
    // explains the same value (deeper, or at the same place).
    const rank = (k: string) => (k === 'additionalProperties' ? 0 : k === 'required' ? 1 : k === 'anyOf' || k === 'const' || k === 'type' ? 3 : 2);
    const kept = errors.filter((e) => rank(e.keyword) < 3 || !errors.some((f) => f !== e && (
      f.instancePath.startsWith(e.instancePath + '/') || (f.instancePath === e.instancePath
        && (rank(f.keyword) < 3 || (f.keyword === 'anyOf' && e.keyword !== 'anyOf'))))));
    const seen = new Set<string>();
    const problems: ContractProblem[] = [];
    for (const e of kept.length > 0 ? kept : errors) {
      let at = e.instancePath;
      if (e.keyword === 'additionalProperties') at += '/' + String(e.params.additionalProperty);
      const message = describeAjvError(e);
      const line = lineOf(at);
      if (seen.has(`${line}:${message}`)) continue;
      seen.add(`${line}:${message}`);
      problems.push({ line, message });
    }
    fail(problems);
  }
  const raw = value as {
    name?: string; keys: string[];
    partitioning?: { column: string; expression?: string } | null;
    columns?: Record<string, { float?: 'exclude' | { tolerance: number }; sensitivity?: string; description?: string }>;
    timestamps?: { naive_is_utc?: boolean };
    lateness?: { column: string; allow: string } | null;
    ordering?: string | null; ignore?: string[]; renames?: Record<string, string>;
    tags?: Record<string, { sensitivity?: string; description?: string }>;
  };
  const lines: Record<string, number> = {};
  for (const f of ['keys', 'partitioning', 'columns', 'lateness', 'ordering', 'ignore', 'renames', 'relationships', 'laws']) lines[f] = lineOf('/' + f);
  if (raw.partitioning?.expression) lines['partitioning.expression'] = lineOf('/partitioning/expression');

  const floats: Record<string, FloatRule> = {};
  const tags: Contract['tags'] = { ...(raw.tags ?? {}) };
  for (const [col, spec] of Object.entries(raw.columns ?? {})) {
    if (spec.float !== undefined) floats[col] = spec.float === 'exclude' ? 'exclude' : { tolerance: spec.float.tolerance };
    if (spec.sensitivity || spec.description) tags[col] = { ...tags[col], ...(spec.sensitivity ? { sensitivity: spec.sensitivity } : {}), ...(spec.description ? { description: spec.description } : {}) };
  }
  const keys = raw.keys;
  const ignore = raw.ignore ?? [];
  const keyProblems = keys.filter((k) => ignore.includes(k)).map((k) => ({ line: lines.ignore, message: `key column "${k}" cannot be ignored` }));
  if (keyProblems.length > 0) fail(keyProblems);
  // Each column the contract names, with its line, for the check against the sides' columns.
  (raw.ignore ?? []).forEach((n, i) => { lines[`ignore.${n}`] = lineOf(`/ignore/${i}`); });
  for (const n of Object.keys(raw.renames ?? {})) lines[`renames.${n}`] = lineOf(`/renames/${n.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  for (const n of Object.keys(raw.columns ?? {})) lines[`columns.${n}`] = lineOf(`/columns/${n.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  if (raw.lateness) lines['lateness.column'] = lineOf('/lateness/column');
  let lateness: Contract['lateness'] = null;
  if (raw.lateness) {
    const m = /^\s*(\d+)\s*(day|days|d|hour|hours|h)\s*$/.exec(raw.lateness.allow);
    const n = m ? Number(m[1]) : 0;
    const days = m && m[2].startsWith('h') ? n / 24 : n;
    lateness = { column: raw.lateness.column, allow: raw.lateness.allow.trim(), days };
  }
  return {
    version: 1,
    name: raw.name ?? 'contract',
    path,
    sha256: createHash('sha256').update(text).digest('hex'),
    keys,
    partitioning: raw.partitioning ? { column: raw.partitioning.column, expression: raw.partitioning.expression ?? null } : null,
    floats,
    naiveIsUtc: raw.timestamps?.naive_is_utc ?? false,
    lateness,
    ordering: raw.ordering ?? null,
    ignore,
    renames: raw.renames ?? {},
    tags,
    ...parseTrustFields(value),
    lines,
  };
}

/** Reads and parses a contract file; a missing, special or oversized file is a wrong invocation (exit 2). */
export function loadContract(path: string): Contract {
  return parseContract(readContractFile(path), path);
}

/** The text of a contract file: a regular file (never a FIFO or device), at most MAX_CONTRACT_BYTES. */
export function readContractFile(path: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as NodeJS.ErrnoException).code ?? 'cannot open';
    throw new LakerecError('contract_invalid', `cannot read contract ${path}: ${why}`, { path });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new LakerecError('contract_invalid', `cannot read contract ${path}: not a regular file`, { path });
    if (st.size > MAX_CONTRACT_BYTES) throw new LakerecError('contract_invalid', `${path}:1: the contract is larger than ${MAX_CONTRACT_BYTES / 1024 / 1024} MB; a contract is a short reviewed file`, { path, line: 1 });
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const r = readSync(fd, buf, n, st.size - n, n);
      if (r === 0) break;
      n += r;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The columns a contract names that neither side has, each with its line, all at once: ignore,
 * columns, renames (source names), ordering, lateness. Keys and the partition column have their
 * own checks (they may be derived).
 */
export function checkContractColumns(c: Contract, sides: { sourceRaw: string[]; source: string[]; target: string[] }): void {
  const any = new Set([...sides.sourceRaw, ...sides.source, ...sides.target]);
  const raw = new Set(sides.sourceRaw);
  const problems: ContractProblem[] = [];
  const line = (f: string, fallback: string) => c.lines[f] ?? c.lines[fallback] ?? 1;
  for (const n of c.ignore) if (!any.has(n)) problems.push({ line: line(`ignore.${n}`, 'ignore'), message: `ignore: column "${n}" is in neither side` });
  for (const n of Object.keys(c.renames)) if (!raw.has(n)) problems.push({ line: line(`renames.${n}`, 'renames'), message: `renames: column "${n}" is not a column of the source` });
  if (c.ordering !== null && !any.has(c.ordering)) problems.push({ line: line('ordering', 'ordering'), message: `ordering: column "${c.ordering}" is in neither side` });
  const ruled = new Set([...Object.keys(c.floats), ...Object.keys(c.lines).filter((k) => k.startsWith('columns.')).map((k) => k.slice('columns.'.length))]);
  for (const n of ruled) if (!any.has(n)) problems.push({ line: line(`columns.${n}`, 'columns'), message: `columns: column "${n}" is in neither side` });
  if (c.lateness && !any.has(c.lateness.column)) problems.push({ line: line('lateness.column', 'lateness'), message: `lateness: column "${c.lateness.column}" is in neither side` });
  if (problems.length > 0) throw new ContractInvalid(c.path ?? 'contract', problems);
}

export function contractSummary(c: Contract): ContractSummary {
  return {
    name: c.name,
    path: c.path,
    sha256: c.sha256,
    keys: c.keys,
    partitionColumn: c.partitioning?.column ?? null,
    partitionExpression: c.partitioning?.expression ?? null,
    ignore: c.ignore,
    floats: c.floats,
    naiveIsUtc: c.naiveIsUtc,
    lateness: c.lateness ? { column: c.lateness.column, allow: c.lateness.allow } : null,
    ordering: c.ordering,
    renames: c.renames,
    tags: c.tags,
  };
}

/** Throws contract_invalid pointing at the contract line of `field`. */
export function contractError(c: Contract, field: string, message: string): LakerecError {
  const line = c.lines[field] ?? 1;
  const where = c.path ?? 'contract';
  return new LakerecError('contract_invalid', `${where}:${line}: ${message}`, { line, path: where });
}
