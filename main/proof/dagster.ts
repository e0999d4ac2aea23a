// The proof's record posted to a Dagster instance, as the seed has it: the proof is the asset
// `_system/roundtrip_proof`, each check an asset check on it. One GraphQL request carries the 12
// checks as aliased `reportAssetCheckEvaluations` mutations (Dagster's API for reporting an asset
// check evaluation without a run). A passing check is `passed: true`; a warning (access_d11)
// is `passed: false` with severity WARN; a failure `passed: false` with severity ERROR. The
// description holds the check's summary and evidence (masked as every result is).
// Tested against a restatement of Dagster's schema (dagster/schema-excerpt.graphql) and a
// loopback server; it has not been posted to a live Dagster instance.
import type { ProofCheck, ProofResult } from '../../shared/proof';

export const PROOF_ASSET_KEY = ['_system', 'roundtrip_proof'] as const;

export interface AssetCheckEvaluationParams {
  assetKey: { path: string[] };
  checkName: string;
  passed: boolean;
  severity?: 'WARN' | 'ERROR';
  description: string;
}

const DESCRIPTION_LIMIT = 4000;

function describe(r: ProofResult, c: ProofCheck): string {
  const head = `${c.summary} (proof ${r.id}, ${r.engines.join(' -> ')}, ${r.finishedAt})`;
  let text = head;
  for (const e of c.evidence) {
    if (text.length + e.length + 3 > DESCRIPTION_LIMIT) { text += '\n- …'; break; }
    text += `\n- ${e}`;
  }
  return text;
}

export function checkParams(r: ProofResult, c: ProofCheck): AssetCheckEvaluationParams {
  const p: AssetCheckEvaluationParams = { assetKey: { path: [...PROOF_ASSET_KEY] }, checkName: c.name, passed: c.status === 'pass', description: describe(r, c) };
  if (c.status !== 'pass') p.severity = c.status === 'warn' ? 'WARN' : 'ERROR';
  return p;
}

/** The GraphQL request: one aliased mutation per check, each with its own variable. */
export function dagsterPayload(r: ProofResult): { query: string; variables: Record<string, AssetCheckEvaluationParams> } {
  const vars = r.checks.map((_, i) => `$c${i}: ReportAssetCheckEvaluationsParams!`).join(', ');
  const fields = r.checks.map((_, i) => `  c${i}: reportAssetCheckEvaluations(eventParams: $c${i}) {\n    __typename\n    ... on ReportAssetCheckEvaluationsSuccess { assetKey { path } }\n    ... on UnauthorizedError { message }\n    ... on PythonError { message }\n  }`).join('\n');
  return {
    query: `mutation LakerecRoundtripProof(${vars}) {\n${fields}\n}`,
    variables: Object.fromEntries(r.checks.map((c, i) => [`c${i}`, checkParams(r, c)])),
  };
}

export interface DagsterPost {
  url: string;
  reported: string[];
  /** One line per check Dagster did not accept, or the one reason the request failed. */
  errors: string[];
}

/** Posts the record; never throws for Dagster's answer (it is reported), throws for a bad URL. */
export async function postToDagster(url: string, r: ProofResult, opts: { timeoutMs?: number } = {}): Promise<DagsterPost> {
  const out: DagsterPost = { url, reported: [], errors: [] };
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(dagsterPayload(r)),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
  } catch (e) {
    out.errors.push(`the Dagster instance at ${url} could not be reached: ${(e as Error).message}`);
    return out;
  }
  if (!res.ok) { out.errors.push(`the Dagster instance at ${url} answered HTTP ${res.status}`); return out; }
  let body: { data?: Record<string, { __typename?: string; message?: string } | null>; errors?: { message?: string }[] };
  try { body = await res.json() as typeof body; } catch { out.errors.push(`the Dagster instance at ${url} answered something that is not JSON`); return out; }
  for (const e of body.errors ?? []) out.errors.push(`Dagster: ${String(e.message ?? 'an error')}`);
  r.checks.forEach((c, i) => {
    const d = body.data?.[`c${i}`];
    if (d?.__typename === 'ReportAssetCheckEvaluationsSuccess') out.reported.push(c.name);
    else if (!body.errors?.length) out.errors.push(`Dagster did not accept ${c.name}: ${d?.__typename ?? 'no answer'}${d?.message ? ` (${d.message})` : ''}`);
  });
  return out;
}
