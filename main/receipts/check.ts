// Reads docs/receipts.json (the claims) and the documents they name, and checks each quoted
// number against the measured metrics.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkClaims, type Claim, type ClaimViolation } from '../../shared/receipts';
import { LakerecError } from '../../shared/errors';

export function loadClaims(root: string): Claim[] {
  const path = join(root, 'docs', 'receipts.json');
  if (!existsSync(path)) throw new LakerecError('not_found', `no claims file at ${path}`);
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { claims?: Claim[] };
  if (!Array.isArray(parsed.claims)) throw new LakerecError('usage', 'docs/receipts.json must hold { "claims": [...] }');
  return parsed.claims;
}

export function checkRepo(root: string, metrics: Record<string, number>): { claims: number; violations: ClaimViolation[] } {
  const claims = loadClaims(root);
  const docs: Record<string, string> = {};
  for (const c of claims) {
    for (const f of c.files) {
      const p = join(root, f);
      if (!(f in docs) && existsSync(p)) docs[f] = readFileSync(p, 'utf8');
    }
  }
  return { claims: claims.length, violations: checkClaims(claims, docs, metrics) };
}
