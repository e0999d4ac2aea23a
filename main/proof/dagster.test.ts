// The proof's record as Dagster asset check results: the GraphQL request validates against
// Dagster's schema for reportAssetCheckEvaluations (restated in dagster/schema-excerpt.graphql,
// checked by graphql-js), and a loopback HTTP server receives the POST from `lakerec proof`.
// No Dagster instance runs here: this is not a post to a live instance.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSchema, parse, validate, coerceInputValue, type GraphQLInputType, typeFromAST, type TypeNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main';
import type { ProofResult } from '../../shared/proof';
import { dagsterPayload, postToDagster, PROOF_ASSET_KEY } from './dagster';
import { runProof } from './run';

const schema = buildSchema(readFileSync(join(__dirname, 'dagster', 'schema-excerpt.graphql'), 'utf8'));

/** The payload's variables coerced through the schema's input types, as a GraphQL server does. */
function coerceVariables(query: string, variables: Record<string, unknown>): string[] {
  const doc = parse(query);
  const op = doc.definitions[0];
  if (op.kind !== 'OperationDefinition') return ['not an operation'];
  const errors: string[] = [];
  for (const v of op.variableDefinitions ?? []) {
    const type = typeFromAST(schema, v.type as TypeNode & { kind: 'NonNullType' }) as GraphQLInputType;
    coerceInputValue(variables[v.variable.name.value], type, (path, _value, err) => errors.push(`${v.variable.name.value}${path.length ? '.' + path.join('.') : ''}: ${err.message}`));
  }
  return errors;
}

let result: ProofResult;
let server: Server;
let url: string;
const received: { body: string; headers: IncomingMessage['headers'] }[] = [];

beforeAll(async () => {
  result = await runProof({ engines: ['duckdb', 'arrow'] });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      const { variables } = JSON.parse(body) as { variables: Record<string, { assetKey: { path: string[] } }> };
      const data = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, { __typename: 'ReportAssetCheckEvaluationsSuccess', assetKey: v.assetKey }]));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/graphql`;
}, 60_000);
afterAll(async () => { await new Promise((r) => server.close(r)); });

describe('the Dagster payload', () => {
  it('is a valid reportAssetCheckEvaluations request for asset _system/roundtrip_proof, one per check', () => {
    const p = dagsterPayload(result);
    expect(validate(schema, parse(p.query)).map((e) => e.message)).toEqual([]);
    expect(coerceVariables(p.query, p.variables)).toEqual([]);
    const vars = Object.values(p.variables);
    expect(vars).toHaveLength(12);
    expect(vars.every((v) => JSON.stringify(v.assetKey.path) === JSON.stringify(PROOF_ASSET_KEY))).toBe(true);
    expect(vars.map((v) => v.checkName)).toEqual(result.checks.map((c) => c.name));
    // access_d11 never passes: Dagster sees a warning, not a pass.
    expect(vars.find((v) => v.checkName === 'access_d11')).toMatchObject({ passed: false, severity: 'WARN' });
    expect(vars.find((v) => v.checkName === 'rows_identical')).toMatchObject({ passed: true });
    expect(vars.find((v) => v.checkName === 'rows_identical')!.severity).toBeUndefined();
  });

  it('the schema catches a payload Dagster would refuse (not a test that cannot fail)', () => {
    const p = dagsterPayload(result);
    const bad = { ...p.variables, c0: { ...p.variables.c0, severity: 'INFO' as never } };
    expect(coerceVariables(p.query, bad).join('\n')).toMatch(/c0.severity: Value "INFO" does not exist in "AssetCheckSeverity" enum/);
    expect(validate(schema, parse(p.query.replace('reportAssetCheckEvaluations', 'reportAssetCheckEvaluation'))).length).toBeGreaterThan(0);
  });

  it('a failing check is passed: false with severity ERROR', async () => {
    const lossy = await runProof({ engines: ['lossy-nan', 'duckdb'], testDoubles: true });
    const v = Object.values(dagsterPayload(lossy).variables).find((x) => x.checkName === 'fingerprints_match')!;
    expect(v).toMatchObject({ passed: false, severity: 'ERROR' });
    expect(v.description).toMatch(/^\d+ fingerprint\(s\) differ/);
  }, 60_000);
});

describe('posting', () => {
  it('postToDagster sends one POST that the server answers for every check', async () => {
    received.length = 0;
    const r = await postToDagster(url, result);
    expect(r.errors).toEqual([]);
    expect(r.reported).toEqual(result.checks.map((c) => c.name));
    expect(received).toHaveLength(1);
    expect(received[0].headers['content-type']).toBe('application/json');
  });

  it('an unreachable instance is one line, not a crash', async () => {
    const r = await postToDagster('http://127.0.0.1:1/graphql', result, { timeoutMs: 2000 });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^the Dagster instance at http:\/\/127\.0\.0\.1:1\/graphql could not be reached/);
  });

  it('lakerec proof --dagster URL posts the record after the run', async () => {
    received.length = 0;
    const dataDir = mkdtempSync(join(tmpdir(), 'lakerec-dagster-'));
    let err = '';
    const code = await runCli(['proof', '--engines', 'arrow,duckdb', '--dagster', url], { out: () => {}, err: (t) => { err += t; }, cwd: dataDir, env: { LAKEREC_DATA_DIR: dataDir } });
    rmSync(dataDir, { recursive: true, force: true });
    expect(code).toBe(0);
    expect(err).toContain(`12 asset check results posted to ${url} for asset _system/roundtrip_proof`);
    expect(received).toHaveLength(1);
    const body = JSON.parse(received[0].body) as { query: string; variables: Record<string, { checkName: string }> };
    expect(validate(schema, parse(body.query))).toEqual([]);
    expect(Object.values(body.variables).map((v) => v.checkName)).toContain('access_d11');
  }, 60_000);
});
