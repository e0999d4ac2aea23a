// The receipts check: every number in every registered document (docs/receipts.json
// "documents") must be accounted for, in one of four ways, or verify fails:
//   1. inside a measured claim's phrase, whose figure agrees with the freshly measured metric;
//   2. inside a notMeasured pattern's match (a version, a date, a protocol constant...), with
//      the reason written beside the pattern;
//   3. before an inline <!-- not-measured: why --> marker on its line, or inside a
//      <!-- not-measured:begin why --> ... <!-- not-measured:end --> block;
//   4. in a generated document that re-renders byte for byte from its measurement file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkClaims, claimSpans, type Claim, type ClaimViolation } from '../../shared/receipts';
import { findNumbers, scanMarkers, type DocNumber } from './numbers';
import { listDocuments, loadRegistry, matchesGlob, type Registry } from './registry';
import { GENERATED, type GeneratedDoc } from './generated';
import { coverageTreeProblems } from './coverage-tree';

export interface UntiedNumber extends DocNumber {
  file: string;
}

export interface ReceiptsReport {
  documents: string[];
  claims: number;
  numbers: number;
  violations: ClaimViolation[];
  untied: UntiedNumber[];
  /** Malformed markers, unknown generated documents, a generated document that is not current. */
  problems: Array<{ file: string; line: number | null; message: string }>;
}

/** Back-compatible: the claims file alone. */
export function loadClaims(root: string): Claim[] {
  return loadRegistry(root).claims;
}

function covered(spans: Array<[number, number]>, n: DocNumber): boolean {
  const end = n.index + n.text.length;
  return spans.some(([s, e]) => n.index >= s && end <= e);
}

/** The numbers of one document that nothing accounts for. */
export function untiedNumbers(file: string, text: string, reg: Pick<Registry, 'claims' | 'notMeasured'>): { untied: UntiedNumber[]; total: number; problems: Array<{ line: number; message: string }> } {
  const spans: Array<[number, number]> = [];
  for (const c of reg.claims) if (c.files.includes(file)) spans.push(...claimSpans(c, text));
  for (const n of reg.notMeasured) {
    if (!matchesGlob(file, n.files)) continue;
    for (const m of text.matchAll(new RegExp(n.pattern, 'gimu'))) spans.push([m.index, m.index + m[0].length]);
  }
  const markers = scanMarkers(text);
  spans.push(...markers.covered);
  const numbers = findNumbers(text);
  return { untied: numbers.filter((n) => !covered(spans, n)).map((n) => ({ ...n, file })), total: numbers.length, problems: markers.problems };
}

export function checkRepo(root: string, metrics: Record<string, number>, generated: GeneratedDoc[] = GENERATED): ReceiptsReport {
  const reg = loadRegistry(root);
  const documents = listDocuments(root, reg.documents);
  const docs: Record<string, string> = {};
  const read = (f: string): void => {
    const p = join(root, f);
    if (!(f in docs) && existsSync(p)) docs[f] = readFileSync(p, 'utf8');
  };
  for (const f of documents) read(f);
  for (const c of reg.claims) for (const f of c.files) read(f);

  const problems: ReceiptsReport['problems'] = [];
  const gen = new Map(generated.map((g) => [g.file, g]));
  for (const f of reg.generated) {
    const g = gen.get(f);
    if (!g) { problems.push({ file: f, line: null, message: 'listed as generated, but no renderer in main/receipts/generated.ts' }); continue; }
    const want = g.render(root);
    if (want === null) { problems.push({ file: f, line: null, message: `its measurement file is missing; run ${g.by}` }); continue; }
    const have = docs[f];
    if (have === undefined) { problems.push({ file: f, line: null, message: `missing; run ${g.by}` }); continue; }
    if (have !== want) {
      const a = have.split('\n');
      const b = want.split('\n');
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      problems.push({ file: f, line: i + 1, message: `not what ${g.by} renders from its measurements (first difference: "${(a[i] ?? '').slice(0, 80)}" should be "${(b[i] ?? '').slice(0, 80)}")` });
    }
  }

  // The coverage figures must be of this tree: a source folder without one fails.
  problems.push(...coverageTreeProblems(root));

  let numbers = 0;
  const untied: UntiedNumber[] = [];
  for (const f of documents) {
    if (reg.generated.includes(f)) continue; // every figure there comes from the measurement file
    const r = untiedNumbers(f, docs[f], reg);
    numbers += r.total;
    untied.push(...r.untied);
    for (const p of r.problems) problems.push({ file: f, ...p });
  }
  return { documents, claims: reg.claims.length, numbers, violations: checkClaims(reg.claims, docs, metrics), untied, problems };
}

export function formatUntied(n: UntiedNumber): string {
  return `${n.file}:${n.line}: "${n.text}" is neither a measured claim nor marked not-measured — in: ${n.context.slice(0, 120)}`;
}
