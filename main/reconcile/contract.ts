// The contract: one reviewed YAML file that says what a comparison means (keys, partitioning,
// what to ignore, what "equal" means for a float, ...). Parsed with positions so every error
// names its line, and checked against a JSON schema before anything reads a table.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import { LineCounter, parseDocument, isNode } from 'yaml';
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

let validator: ReturnType<Ajv['compile']> | null = null;
function validate(v: unknown): ErrorObject[] {
  if (!validator) validator = new Ajv({ allErrors: true, strict: true }).compile(CONTRACT_SCHEMA);
  return validator(v) ? [] : (validator.errors ?? []);
}

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

/** Parses and checks contract text; `path` is used in messages. Throws contract_invalid with a line. */
export function parseContract(text: string, path: string | null = null): Contract {
  const where = path ?? 'contract';
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = lc.linePos(e.pos[0]).line;
    throw new LakerecError('contract_invalid', `${where}:${line}: ${e.message.split('\n')[0]}`, { line, path: where });
  }
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new LakerecError('contract_invalid', `${where}:1: a contract is a YAML mapping (version, keys, ...)`, { line: 1, path: where });
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
    // The most specific error first: the deepest path, and "unknown field" over a vague anyOf.
    const rank = (k: string) => (k === 'additionalProperties' ? 0 : k === 'required' ? 1 : k === 'anyOf' || k === 'const' || k === 'type' ? 3 : 2);
    const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length || rank(a.keyword) - rank(b.keyword))[0];
    let path = best.instancePath;
    if (best.keyword === 'additionalProperties') path += '/' + String(best.params.additionalProperty);
    const line = lineOf(path);
    throw new LakerecError('contract_invalid', `${where}:${line}: ${describeAjvError(best)}`, { line, path: where });
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
  for (const k of keys) {
    if (ignore.includes(k)) {
      const line = lines.ignore;
      throw new LakerecError('contract_invalid', `${where}:${line}: key column "${k}" cannot be ignored`, { line, path: where });
    }
  }
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

/** Reads and parses a contract file; a missing file is a wrong invocation (exit 2). */
export function loadContract(path: string): Contract {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new LakerecError('contract_invalid', `cannot read contract ${path}: ${why}`, { path });
  }
  return parseContract(text, path);
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
