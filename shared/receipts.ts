// Receipts: every number a document quotes is checked against a freshly measured metric.
// A claim is a phrase with one placeholder; the phrase's words are the anchor, so digits that
// appear in some other sentence never satisfy it.
//
//   {n}      an exact integer (thousands separators allowed): 5,400
//   {x}      a decimal, equal to the metric at the precision quoted (1.8 matches 1.84)
//   {range}  "a–b" (or "a-b", "a to b"), optional trailing "x"/"%"/" s": the metric must lie inside

export interface Claim {
  metric: string;
  /** The phrase as it appears in the document, with exactly one placeholder. */
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
const PLACEHOLDER = /\{(n|x|range)\}/;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whitespace in a phrase matches any run of whitespace (a sentence may wrap across lines). */
function phraseToRegex(phrase: string): { re: RegExp; kind: 'n' | 'x' | 'range' } {
  const m = PLACEHOLDER.exec(phrase);
  if (!m) throw new Error(`claim phrase has no {n}, {x} or {range}: "${phrase}"`);
  const kind = m[1] as 'n' | 'x' | 'range';
  const before = phrase.slice(0, m.index);
  const after = phrase.slice(m.index + m[0].length);
  const lit = (s: string) => escapeRe(s).replace(/\s+/g, '\\s+');
  const value = kind === 'range'
    ? String.raw`(${NUM})\s*(?:–|-|to)\s*(${NUM})\s*(?:x|×|%|\s?s)?`
    : kind === 'x' ? String.raw`(${NUM})\s*(?:x|×|%)?` : `(${NUM})`;
  // Case-insensitive: a claim may open a sentence or sit inside one.
  return { re: new RegExp(lit(before) + value + lit(after), 'gi'), kind };
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

export function checkClaims(
  claims: Claim[],
  docs: Record<string, string>,
  metrics: Record<string, number>,
): ClaimViolation[] {
  const out: ClaimViolation[] = [];
  for (const claim of claims) {
    const measured = metrics[claim.metric];
    const { re, kind } = phraseToRegex(claim.phrase);
    for (const file of claim.files) {
      const text = docs[file];
      const base = { file, metric: claim.metric, phrase: claim.phrase };
      if (text === undefined) {
        out.push({ ...base, line: null, claimed: null, measured: measured ?? null, reason: 'document not found' });
        continue;
      }
      re.lastIndex = 0;
      let found = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        found++;
        const line = lineOf(text, m.index);
        const claimed = m[0];
        if (measured === undefined || !Number.isFinite(measured)) {
          out.push({ ...base, line, claimed, measured: null, reason: 'metric was not measured' });
          continue;
        }
        let ok: boolean;
        if (kind === 'n') ok = toNumber(m[1]) === measured;
        else if (kind === 'x') {
          const q = decimals(m[1].replace(/,/g, ''));
          ok = Number(measured.toFixed(q)) === toNumber(m[1]);
        } else {
          const lo = toNumber(m[1]);
          const hi = toNumber(m[2]);
          ok = measured >= Math.min(lo, hi) && measured <= Math.max(lo, hi);
        }
        if (!ok) out.push({ ...base, line, claimed, measured, reason: 'stale: the document no longer matches the measurement' });
      }
      if (found === 0) {
        out.push({ ...base, line: null, claimed: null, measured: measured ?? null, reason: 'the document no longer quotes this claim (phrase not found)' });
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
