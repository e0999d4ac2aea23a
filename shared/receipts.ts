// Receipts: every number a document quotes is checked against a freshly measured metric.
// A claim is a phrase with a placeholder (or several, one metric each); the phrase's words are
// the anchor, so digits that appear in some other sentence never satisfy it.
//
//   {n}      an exact integer (thousands separators allowed): 5,400
//   {x}      a decimal, equal to the metric at the precision quoted (1.8 matches 1.84)
//   {range}  "a–b" (or "a-b", "a to b"), optional trailing "x"/"%"/" s": the metric must lie inside

export interface Claim {
  /** The metric of the phrase's one placeholder. */
  metric?: string;
  /** Or one metric per placeholder, in order (a table row quoting two figures). */
  metrics?: string[];
  /** The phrase as it appears in the document, with its placeholder(s). */
  phrase: string;
  /** Documents (repo-relative) that must quote it. */
  files: string[];
}

export interface ClaimViolation {
  file: string;
  line: number | null;
  metric: string;
  phrase: string;
  claimed: string | null;
  measured: number | null;
  reason: string;
}

const NUM = String.raw`-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?`;
const PLACEHOLDER = /\{(n|x|range)\}/g;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

type Kind = 'n' | 'x' | 'range';

/** The metric of each placeholder, in order. */
export function claimMetrics(c: Claim): string[] {
  return c.metrics ?? (c.metric !== undefined ? [c.metric] : []);
}

/** Whitespace in a phrase matches any run of whitespace (a sentence may wrap across lines). */
function phraseToRegex(phrase: string): { re: RegExp; kinds: Kind[] } {
  const kinds: Kind[] = [];
  const lit = (s: string) => escapeRe(s).replace(/\s+/g, '\\s+');
  let src = '';
  let last = 0;
  for (const m of phrase.matchAll(PLACEHOLDER)) {
    const kind = m[1] as Kind;
    kinds.push(kind);
    src += lit(phrase.slice(last, m.index));
    src += kind === 'range'
      ? String.raw`(${NUM})\s*(?:–|-|to)\s*(${NUM})\s*(?:x|×|%|\s?s)?`
      : kind === 'x' ? String.raw`(${NUM})\s*(?:x|×|%)?` : `(${NUM})`;
    last = m.index + m[0].length;
  }
  if (kinds.length === 0) throw new Error(`claim phrase has no {n}, {x} or {range}: "${phrase}"`);
  src += lit(phrase.slice(last));
  // Case-insensitive: a claim may open a sentence or sit inside one.
  return { re: new RegExp(src, 'gi'), kinds };
}

function toNumber(s: string): number {
  return Number(s.replace(/,/g, ''));
}

function decimals(s: string): number {
  const i = s.indexOf('.');
  return i < 0 ? 0 : s.length - i - 1;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function agrees(kind: Kind, groups: string[], measured: number): boolean {
  if (kind === 'n') return toNumber(groups[0]) === measured;
  if (kind === 'x') {
    const q = decimals(groups[0].replace(/,/g, ''));
    return Number(measured.toFixed(q)) === toNumber(groups[0]);
  }
  const lo = toNumber(groups[0]);
  const hi = toNumber(groups[1]);
  return measured >= Math.min(lo, hi) && measured <= Math.max(lo, hi);
}

export function checkClaims(
  claims: Claim[],
  docs: Record<string, string>,
  metrics: Record<string, number>,
): ClaimViolation[] {
  const out: ClaimViolation[] = [];
  for (const claim of claims) {
    const names = claimMetrics(claim);
    const { re, kinds } = phraseToRegex(claim.phrase);
    const label = names.join(', ');
    if (names.length !== kinds.length) {
      out.push({ file: claim.files[0] ?? '?', line: null, metric: label, phrase: claim.phrase, claimed: null, measured: null, reason: `the phrase has ${kinds.length} placeholder(s) but the claim names ${names.length} metric(s)` });
      continue;
    }
    for (const file of claim.files) {
      const text = docs[file];
      const first = metrics[names[0]];
      const base = { file, metric: label, phrase: claim.phrase };
      if (text === undefined) {
        out.push({ ...base, line: null, claimed: null, measured: first ?? null, reason: 'document not found' });
        continue;
      }
      re.lastIndex = 0;
      let found = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        found++;
        const line = lineOf(text, m.index);
        const claimed = m[0];
        let g = 1;
        for (let i = 0; i < kinds.length; i++) {
          const width = kinds[i] === 'range' ? 2 : 1;
          const groups = m.slice(g, g + width);
          g += width;
          const measured = metrics[names[i]];
          const one = names.length === 1 ? base : { ...base, metric: names[i] };
          if (measured === undefined || !Number.isFinite(measured)) {
            out.push({ ...one, line, claimed, measured: null, reason: 'metric was not measured' });
          } else if (!agrees(kinds[i], groups, measured)) {
            out.push({ ...one, line, claimed, measured, reason: 'stale: the document no longer matches the measurement' });
          }
        }
      }
      if (found === 0) {
        out.push({ ...base, line: null, claimed: null, measured: first ?? null, reason: 'the document no longer quotes this claim (phrase not found)' });
      }
    }
  }
  return out;
}

/** Where a claim's phrase occurs in a text: [start, end) of each match (the numbers it accounts for). */
export function claimSpans(claim: Claim, text: string): Array<[number, number]> {
  const { re } = phraseToRegex(claim.phrase);
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(re)) out.push([m.index, m.index + m[0].length]);
  return out;
}

export function formatViolation(v: ClaimViolation): string {
  const where = v.line === null ? v.file : `${v.file}:${v.line}`;
  const claimed = v.claimed === null ? '' : ` claimed "${v.claimed}"`;
  const measured = v.measured === null ? '' : ` measured ${v.measured}`;
  return `${where}: ${v.metric}:${claimed}${measured} — ${v.reason}`;
}
