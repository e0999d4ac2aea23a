// docs/receipts.json: the one place a reviewer reads to see why each number in the docs may stand.
//
//   documents    globs of the documents checked (every number in them must be accounted for)
//   claims       measured: a phrase with one placeholder, tied to a metric verify re-measures
//   notMeasured  not a measurement: a regular expression (case-insensitive, multi-line) whose
//                matches hold numbers that are versions, dates, protocol constants, exit codes,
//                ADR numbers, ...; each with its reason and the documents it applies to
//   generated    documents rendered from a measurement file by code (main/receipts/generated.ts):
//                verify re-renders them and fails when the committed text differs
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Claim } from '../../shared/receipts';
import { LakerecError } from '../../shared/errors';

export interface NotMeasured {
  pattern: string;
  why: string;
  /** Globs ("*" within one path segment); default: every document. */
  files?: string[];
}

export interface Registry {
  documents: string[];
  claims: Claim[];
  notMeasured: NotMeasured[];
  generated: string[];
}

export function loadRegistry(root: string): Registry {
  const path = join(root, 'docs', 'receipts.json');
  if (!existsSync(path)) throw new LakerecError('not_found', `no claims file at ${path}`);
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<Registry>;
  if (!Array.isArray(raw.claims)) throw new LakerecError('usage', 'docs/receipts.json must hold { "claims": [...] }');
  const reg: Registry = {
    documents: raw.documents ?? [],
    claims: raw.claims,
    notMeasured: raw.notMeasured ?? [],
    generated: raw.generated ?? [],
  };
  for (const n of reg.notMeasured) {
    if (typeof n.pattern !== 'string' || typeof n.why !== 'string' || !n.why.trim()) {
      throw new LakerecError('usage', `docs/receipts.json: every notMeasured entry needs a pattern and a reason (why): ${JSON.stringify(n)}`);
    }
    try {
      new RegExp(n.pattern, 'gimu');
    } catch (e) {
      throw new LakerecError('usage', `docs/receipts.json: notMeasured pattern ${JSON.stringify(n.pattern)} is not a regular expression: ${(e as Error).message}`);
    }
  }
  return reg;
}

function globToRe(glob: string): RegExp {
  const body = glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
  return new RegExp(`^${body}$`);
}

export function matchesGlob(file: string, globs: string[] | undefined): boolean {
  if (!globs || globs.length === 0) return true;
  return globs.some((g) => globToRe(g).test(file));
}

/** The repo-relative documents the registry's globs name, sorted. */
export function listDocuments(root: string, globs: string[]): string[] {
  const out = new Set<string>();
  for (const g of globs) {
    const slash = g.lastIndexOf('/');
    const dir = slash < 0 ? '' : g.slice(0, slash);
    if (dir.includes('*')) throw new LakerecError('usage', `docs/receipts.json: a document glob may use * only in its last segment: ${g}`);
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const f of readdirSync(abs, { withFileTypes: true })) {
      const rel = dir ? `${dir}/${f.name}` : f.name;
      if (f.isFile() && globToRe(g).test(rel)) out.add(rel);
    }
  }
  return [...out].sort();
}
