// Request validation: every transport validates what crosses the boundary before the engine
// sees it. A bad request is a `usage` error, as data. The compiler refuses the map without a
// validator for every method.
import { LakerecError } from '../errors';
import { PROOF_MODES, type ProofMode, type RunKind } from '../proof';
import { LEVELS, type Level } from '../reconcile';
import { PREDICATE_NAMES, type PredicateName } from '../bisect';
import { WAREHOUSE_SIDES, type BisectRequest, type ReconcileRequest, type ProofRequest, type TrustRequest, type MutationRequest, type WarehousePick, type WarehouseSideChoice } from './shapes';
import { MAX_PAGE_ROWS, type DiffRequest, type RowsRequest } from '../views';
import type { ApiMethod, ApiRequest, Empty } from './map';
import { isJobId } from './wire';

type Validator<M extends ApiMethod> = (v: unknown) => ApiRequest<M>;

interface MethodSpec<M extends ApiMethod> {
  validate: Validator<M>;
  /** A job: reports progress and can be cancelled. */
  job: boolean;
}

function bad(method: string, why: string): LakerecError {
  return new LakerecError('usage', `Bad request to ${method}: ${why}.`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function empty(method: string): (v: unknown) => Empty {
  return (v) => {
    if (v !== undefined && v !== null && !isPlainObject(v)) throw bad(method, 'expected an object');
    if (isPlainObject(v) && Object.keys(v).length > 0) throw bad(method, `unexpected field "${Object.keys(v)[0]}"`);
    return {};
  };
}

function pathRequest(method: string): (v: unknown) => { path: string } {
  return (v) => {
    if (!isPlainObject(v)) throw bad(method, 'expected an object with "path"');
    for (const k of Object.keys(v)) if (k !== 'path') throw bad(method, `unexpected field "${k}"`);
    const p = v.path;
    if (typeof p !== 'string' || p.trim() === '') throw bad(method, '"path" must be a non-empty string');
    if (p.length > 4096) throw bad(method, '"path" is longer than 4096 characters');
    if (p.includes('\0')) throw bad(method, '"path" contains a NUL character');
    return { path: p.trim() };
  };
}

function pathString(method: string, field: string, p: unknown): string {
  if (typeof p !== 'string' || p.trim() === '') throw bad(method, `"${field}" must be a non-empty string`);
  if (p.length > 4096) throw bad(method, `"${field}" is longer than 4096 characters`);
  if (p.includes('\0')) throw bad(method, `"${field}" contains a NUL character`);
  return p.trim();
}

function onlyFields(method: string, v: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) throw bad(method, `unexpected field "${k}"`);
}

function commitDetailRequest(v: unknown): { path: string; version: number } {
  if (!isPlainObject(v)) throw bad('commitDetail', 'expected an object with "path" and "version"');
  onlyFields('commitDetail', v, ['path', 'version']);
  const version = v.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) throw bad('commitDetail', '"version" must be a non-negative integer');
  return { path: pathString('commitDetail', 'path', v.path), version };
}

function bisectRequest(v: unknown): BisectRequest {
  const m = 'bisect';
  if (!isPlainObject(v)) throw bad(m, 'expected an object with "path" and "predicate"');
  onlyFields(m, v, ['path', 'predicate', 'keys', 'expect', 'partition', 'source', 'allowMoving']);
  const predicate = v.predicate;
  if (typeof predicate !== 'string' || !(PREDICATE_NAMES as readonly string[]).includes(predicate)) {
    throw bad(m, `"predicate" must be one of ${PREDICATE_NAMES.join(', ')}`);
  }
  const out: BisectRequest = { path: pathString(m, 'path', v.path), predicate: predicate as PredicateName };
  if (v.keys !== undefined) {
    if (!Array.isArray(v.keys) || v.keys.length === 0 || v.keys.length > 32) throw bad(m, '"keys" must be a list of 1 to 32 column names');
    out.keys = v.keys.map((k) => {
      if (typeof k !== 'string' || k.trim() === '' || k.length > 256) throw bad(m, '"keys" must hold non-empty column names');
      return k.trim();
    });
  }
  if (v.expect !== undefined) {
    if (typeof v.expect !== 'number' || !Number.isSafeInteger(v.expect) || v.expect < 0) throw bad(m, '"expect" must be a non-negative integer');
    out.expect = v.expect;
  }
  if (v.partition !== undefined) {
    if (typeof v.partition !== 'string' || !/^[^=]+=.*$/.test(v.partition) || v.partition.length > 1024) throw bad(m, '"partition" must read col=value');
    out.partition = v.partition.trim();
  }
  if (v.source !== undefined) out.source = pathString(m, 'source', v.source);
  if (v.allowMoving !== undefined) {
    if (typeof v.allowMoving !== 'boolean') throw bad(m, '"allowMoving" must be true or false');
    if (v.allowMoving) out.allowMoving = true;
  }
  return out;
}

function objectWith(method: string, v: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(v)) throw bad(method, 'expected an object');
  onlyFields(method, v, allowed);
  return v;
}

function optionalInt(method: string, name: string, v: unknown, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(method, `"${name}" must be an integer from ${min} to ${max}`);
  return v;
}

function contractYaml(method: string, v: unknown): string {
  if (typeof v !== 'string') throw bad(method, 'the contract must be YAML text');
  if (v.length > 256 * 1024) throw bad(method, 'the contract is longer than 256 KB');
  return v;
}

function columnName(method: string, field: string, v: unknown): string {
  if (typeof v !== 'string' || v === '' || v.length > 256 || v.includes('\0')) throw bad(method, `"${field}" must be a column name`);
  return v;
}

function rowsRequest(v: unknown): RowsRequest {
  const m = 'rows';
  const o = objectWith(m, v, ['path', 'version', 'addedIn', 'offset', 'limit', 'sort', 'equals', 'where']);
  const out: RowsRequest = { path: pathString(m, 'path', o.path) };
  const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
  const addedIn = optionalInt(m, 'addedIn', o.addedIn, 0, Number.MAX_SAFE_INTEGER);
  const offset = optionalInt(m, 'offset', o.offset, 0, Number.MAX_SAFE_INTEGER);
  const limit = optionalInt(m, 'limit', o.limit, 1, MAX_PAGE_ROWS);
  if (version !== undefined) out.version = version;
  if (addedIn !== undefined) out.addedIn = addedIn;
  if (offset !== undefined) out.offset = offset;
  if (limit !== undefined) out.limit = limit;
  if (o.sort !== undefined && o.sort !== null) {
    const so = objectWith(m, o.sort, ['column', 'direction']);
    if (so.direction !== 'asc' && so.direction !== 'desc') throw bad(m, '"sort.direction" must be asc or desc');
    out.sort = { column: columnName(m, 'sort.column', so.column), direction: so.direction };
  }
  if (o.equals !== undefined) {
    if (!Array.isArray(o.equals) || o.equals.length > 16) throw bad(m, '"equals" must be a list of at most 16 { column, value }');
    out.equals = o.equals.map((e) => {
      const eo = objectWith(m, e, ['column', 'value']);
      if (eo.value !== null && (typeof eo.value !== 'string' || eo.value.length > 4096)) throw bad(m, '"equals[].value" must be text or null');
      return { column: columnName(m, 'equals[].column', eo.column), value: eo.value as string | null };
    });
  }
  if (o.where !== undefined) {
    if (typeof o.where !== 'string' || o.where.length > 4000) throw bad(m, '"where" must be text of at most 4000 characters');
    out.where = o.where;
  }
  return out;
}

function diffRequest(v: unknown): DiffRequest {
  const m = 'compareVersions';
  const o = objectWith(m, v, ['path', 'from', 'to', 'keys']);
  const from = optionalInt(m, 'from', o.from, 0, Number.MAX_SAFE_INTEGER);
  const to = optionalInt(m, 'to', o.to, 0, Number.MAX_SAFE_INTEGER);
  if (from === undefined || to === undefined) throw bad(m, '"from" and "to" are required versions');
  const out: DiffRequest = { path: pathString(m, 'path', o.path), from, to };
  if (o.keys !== undefined) {
    if (!Array.isArray(o.keys) || o.keys.length > 32) throw bad(m, '"keys" must be a list of at most 32 column names');
    out.keys = o.keys.map((k) => columnName(m, 'keys', k).trim()).filter((k) => k !== '');
  }
  return out;
}

const RUN_KINDS: readonly RunKind[] = ['proof', 'reconcile', 'bisect', 'mutate'];

function trustRequest(m: string, v: unknown, extra: readonly string[] = []): TrustRequest & Record<string, unknown> {
  const o = objectWith(m, v, ['table', 'source', 'contract', 'version', ...extra]);
  const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
  return { ...o, table: pathString(m, 'table', o.table), source: pathString(m, 'source', o.source), contract: contractYaml(m, o.contract), ...(version !== undefined ? { version } : { version: undefined }) };
}

function mutationRequest(v: unknown): MutationRequest {
  const m = 'mutationScore';
  const o = trustRequest(m, v, ['levels', 'only', 'seed']);
  const out: MutationRequest = { table: o.table, source: o.source, contract: o.contract, ...(o.version !== undefined ? { version: o.version } : {}) };
  if (o.levels !== undefined) {
    if (!Array.isArray(o.levels) || o.levels.length === 0 || !o.levels.every((l) => typeof l === 'string' && (LEVELS as readonly string[]).includes(l))) throw bad(m, `"levels" must list some of ${LEVELS.join(', ')}`);
    out.levels = o.levels as Level[];
  }
  if (o.only !== undefined) {
    if (!Array.isArray(o.only) || o.only.length > 32 || !o.only.every((x) => typeof x === 'string' && /^[a-z_]{1,40}$/.test(x))) throw bad(m, '"only" must list mutant names');
    out.only = o.only as string[];
  }
  const seed = optionalInt(m, 'seed', o.seed, -(2 ** 31), 2 ** 31);
  if (seed !== undefined) out.seed = seed;
  return out;
}

function plainTrustRequest(m: string): (v: unknown) => TrustRequest {
  return (v) => {
    const o = trustRequest(m, v);
    return { table: o.table, source: o.source, contract: o.contract, ...(o.version !== undefined ? { version: o.version } : {}) };
  };
}

function reconcileRequest(v: unknown): ReconcileRequest {
  const m = 'reconcile';
  const o = objectWith(m, v, ['source', 'table', 'contract', 'level', 'version', 'baseline', 'warehouse']);
  if (o.baseline !== undefined && typeof o.baseline !== 'boolean') throw bad(m, '"baseline" must be true or false');
  if (typeof o.level !== 'string' || !(LEVELS as readonly string[]).includes(o.level)) throw bad(m, `"level" must be one of ${LEVELS.join(', ')}`);
  const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
  return {
    source: pathString(m, 'source', o.source),
    table: pathString(m, 'table', o.table),
    contract: contractYaml(m, o.contract),
    level: o.level as Level,
    ...(version !== undefined ? { version } : {}),
    ...(o.baseline === true ? { baseline: true } : {}),
    ...(o.warehouse !== undefined ? { warehouse: warehousePick(m, o.warehouse) } : {}),
  };
}

function warehousePick(m: string, v: unknown): WarehousePick {
  const o = objectWith(m, v, ['connection', 'side', 'sourceRelation', 'targetRelation']);
  if (typeof o.connection !== 'string' || !/^[A-Za-z0-9_.:@-]{1,200}$/.test(o.connection)) throw bad(m, '"warehouse.connection" must be a connection name');
  if (typeof o.side !== 'string' || !(WAREHOUSE_SIDES as readonly string[]).includes(o.side)) throw bad(m, `"warehouse.side" must be one of ${WAREHOUSE_SIDES.join(', ')}`);
  return {
    connection: o.connection,
    side: o.side as WarehouseSideChoice,
    ...(o.sourceRelation !== undefined ? { sourceRelation: pathString(m, 'warehouse.sourceRelation', o.sourceRelation) } : {}),
    ...(o.targetRelation !== undefined ? { targetRelation: pathString(m, 'warehouse.targetRelation', o.targetRelation) } : {}),
  };
}

function proofRequest(v: unknown): ProofRequest {
  const m = 'runProof';
  const o = objectWith(m, v, ['engines', 'rows', 'seed']);
  const e = o.engines;
  if (!Array.isArray(e) || e.length !== 2 || !e.every((x) => typeof x === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(x))) {
    throw bad(m, '"engines" must be two engine names');
  }
  const rows = optionalInt(m, 'rows', o.rows, 6, 20_000);
  const seed = optionalInt(m, 'seed', o.seed, 0, 2 ** 31);
  return { engines: [e[0] as string, e[1] as string], ...(rows !== undefined ? { rows } : {}), ...(seed !== undefined ? { seed } : {}) };
}

export const apiSpec: { [M in ApiMethod]: MethodSpec<M> } = {
  rows: { validate: rowsRequest, job: true },
  schemaAt: {
    validate: (v) => {
      const o = objectWith('schemaAt', v, ['path', 'version']);
      const version = optionalInt('schemaAt', 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
      return { path: pathString('schemaAt', 'path', o.path), ...(version !== undefined ? { version } : {}) };
    },
    job: false,
  },
  schemaHistory: { validate: pathRequest('schemaHistory'), job: true },
  compareVersions: { validate: diffRequest, job: true },
  checkContractColumns: {
    validate: (v) => {
      const m = 'checkContractColumns';
      const o = objectWith(m, v, ['text', 'table', 'source', 'version']);
      const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
      return { text: contractYaml(m, o.text), table: pathString(m, 'table', o.table), source: pathString(m, 'source', o.source), ...(version !== undefined ? { version } : {}) };
    },
    job: true,
  },
  partitionHealth: {
    validate: (v) => {
      const o = objectWith('partitionHealth', v, ['path', 'smallFileBytes']);
      const small = optionalInt('partitionHealth', 'smallFileBytes', o.smallFileBytes, 1, 2 ** 50);
      return { path: pathString('partitionHealth', 'path', o.path), ...(small !== undefined ? { smallFileBytes: small } : {}) };
    },
    job: true,
  },
  appInfo: { validate: empty('appInfo'), job: false },
  historyHead: { validate: pathRequest('historyHead'), job: true },
  openTable: { validate: pathRequest('openTable'), job: true },
  listVersions: { validate: pathRequest('listVersions'), job: true },
  recentTables: { validate: empty('recentTables'), job: false },
  forgetRecent: { validate: pathRequest('forgetRecent'), job: false },
  pickFolder: { validate: empty('pickFolder'), job: false },
  forensics: { validate: pathRequest('forensics'), job: true },
  timeline: { validate: pathRequest('timeline'), job: true },
  commitDetail: { validate: commitDetailRequest, job: true },
  bisect: { validate: bisectRequest, job: true },
  pickSource: { validate: empty('pickSource'), job: false },
  validateContract: { validate: (v) => ({ text: contractYaml('validateContract', objectWith('validateContract', v, ['text']).text) }), job: false },
  defaultContract: { validate: pathRequest('defaultContract'), job: false },
  acceptContract: {
    validate: (v) => {
      const o = objectWith('acceptContract', v, ['path', 'sha256']);
      if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256)) throw bad('acceptContract', '"sha256" must be 64 hex digits');
      return { path: pathString('acceptContract', 'path', o.path), sha256: o.sha256 };
    },
    job: false,
  },
  reconcile: { validate: reconcileRequest, job: true },
  warehouseConnections: { validate: empty('warehouseConnections'), job: false },
  exportReport: {
    validate: (v) => {
      const o = objectWith('exportReport', v, ['resultId', 'save']);
      if (!isJobId(o.resultId)) throw bad('exportReport', '"resultId" is missing or malformed');
      if (typeof o.save !== 'boolean') throw bad('exportReport', '"save" must be true or false');
      return { resultId: o.resultId, save: o.save };
    },
    job: true,
  },
  proofEngines: { validate: empty('proofEngines'), job: false },
  runProof: { validate: proofRequest, job: true },
  proofSettings: { validate: empty('proofSettings'), job: false },
  setProofMode: {
    validate: (v) => {
      const o = objectWith('setProofMode', v, ['mode']);
      if (typeof o.mode !== 'string' || !(PROOF_MODES as readonly string[]).includes(o.mode)) throw bad('setProofMode', `"mode" must be one of ${PROOF_MODES.join(', ')}`);
      return { mode: o.mode as ProofMode };
    },
    job: false,
  },
  mutationScore: { validate: mutationRequest, job: true },
  verifyKeys: { validate: plainTrustRequest('verifyKeys'), job: true },
  checkLaws: { validate: plainTrustRequest('checkLaws'), job: true },
  lineageAttachment: {
    validate: (v) => ({ table: pathString('lineageAttachment', 'table', objectWith('lineageAttachment', v, ['table']).table) }),
    job: false,
  },
  attachLineage: {
    validate: (v) => {
      const m = 'attachLineage';
      const o = objectWith(m, v, ['table', 'project', 'model']);
      const project = o.project === null || o.project === undefined || o.project === '' ? null : pathString(m, 'project', o.project);
      const model = o.model === null || o.model === undefined || o.model === '' ? null : columnName(m, 'model', o.model);
      return { table: pathString(m, 'table', o.table), project, model };
    },
    job: false,
  },
  verifyLineage: {
    validate: (v) => {
      const m = 'verifyLineage';
      const o = objectWith(m, v, ['table', 'rows', 'seed']);
      const rows = optionalInt(m, 'rows', o.rows, 1, 1_000_000);
      const seed = optionalInt(m, 'seed', o.seed, 0, 0xffffffff);
      return { table: pathString(m, 'table', o.table), ...(rows !== undefined ? { rows } : {}), ...(seed !== undefined ? { seed } : {}) };
    },
    job: true,
  },
  getRun: {
    validate: (v) => {
      const o = objectWith('getRun', v, ['id']);
      if (typeof o.id !== 'string' || !/^[A-Za-z0-9-]{8,64}$/.test(o.id)) throw bad('getRun', '"id" is missing or malformed');
      return { id: o.id };
    },
    job: false,
  },
  listRuns: {
    validate: (v) => {
      if (v === undefined || v === null) return {};
      const o = objectWith('listRuns', v, ['kind']);
      if (o.kind === undefined) return {};
      if (!RUN_KINDS.includes(o.kind as RunKind)) throw bad('listRuns', `"kind" must be one of ${RUN_KINDS.join(', ')}`);
      return { kind: o.kind as RunKind };
    },
    job: false,
  },
};

export const apiMethods = Object.keys(apiSpec) as ApiMethod[];

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(apiSpec, name);
}

/** Validates a request for `method`; throws a `usage` LakerecError describing what is wrong. */
export function validateRequest<M extends ApiMethod>(method: M, request: unknown): ApiRequest<M> {
  return apiSpec[method].validate(request);
}
