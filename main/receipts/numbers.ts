// Every number a document states in prose, with its position: what `npm run verify` requires to
// be either a measured claim (docs/receipts.json "claims"), or explicitly not a measurement (a
// "notMeasured" pattern with its reason, or an inline <!-- not-measured: why --> marker).
//
// Not prose, so not looked at: fenced code blocks (example commands and output), inline code
// spans (flags, paths, literals), link and image targets, URLs, and HTML comments. A token that
// is a name with digits in it (`md5`, `dt=2026-08-12`, `124-decimal-decode-bug`, `U+0301`) is a
// name, not a number; a version reference like `v7` is a number (a fact of a table's history).

export interface DocNumber {
  /** The token as written ("5,400", "1.5–3.0x", "28.3%", "v7"). */
  text: string;
  /** Offset in the document. */
  index: number;
  line: number;
  /** The line it sits on, for the message. */
  context: string;
}

/** Offsets [start, end) that are not prose. */
export function nonProseSpans(md: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const add = (re: RegExp): void => {
    for (const m of md.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  };
  add(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm); // fenced code blocks
  add(/<!--[\s\S]*?-->/g); // HTML comments (the markers themselves)
  add(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g); // inline code spans
  add(/\]\([^)\s]*(?:\s+"[^"]*")?\)/g); // link and image targets
  add(/<https?:\/\/[^>]+>|https?:\/\/[^\s)>\]]+/g); // URLs
  add(/^\[[^\]]+\]:\s*\S+.*$/gm); // reference-style link definitions
  spans.sort((a, b) => a[0] - b[0]);
  return spans;
}

function inSpans(spans: Array<[number, number]>, start: number, end: number): boolean {
  for (const [s, e] of spans) {
    if (s > start) return false;
    if (start >= s && end <= e) return true;
  }
  return false;
}

// A number as prose writes it: signs, thousands separators, decimals, exponents, a range
// ("1.5–3.0"), the unit glued to it ("3.0x", "28.3%", "10M", "2^128", "~6e-14"), or a compound
// adjective ("300,000-file", "10M-row"). Tokens are whitespace-delimited words with their
// surrounding punctuation stripped, so "300,000-file" is never read as "300".
const NUM = String.raw`[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?`;
const UNIT = String.raw`(?:x|×|%|M|k|K|B|KB|MB|GB|kB|ms|s|h|th|st|nd|rd)?`;
const NUMBER_WORD = new RegExp(
  String.raw`^(?:~|≈|±|<|>|≤|≥)?v?${NUM}(?:\^\d+)?(?:(?:–|-|/)${NUM})?${UNIT}(?:-[\p{L}][\p{L}\p{N}]*)*$`,
  'u',
);
const WORD = /[^\s()[\]{}*"'`;!?<>|,]+(?:,\d{3})*[^\s()[\]{}*"'`;!?<>|,]*/gu;

function lineStarts(md: string): number[] {
  const starts = [0];
  for (let i = 0; i < md.length; i++) if (md.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Inline markers, each covering a stretch of the document:
 *   <!-- not-measured: why -->                 the numbers on its line before it (back to the
 *                                              line's start or the previous marker on that line)
 *   <!-- not-measured:begin why --> ... <!-- not-measured:end -->   every number in between
 * A marker without a reason is itself a violation (the reason is what a reviewer reads).
 */
export interface MarkerScan {
  covered: Array<[number, number]>;
  problems: Array<{ line: number; message: string }>;
}

export function scanMarkers(md: string): MarkerScan {
  const covered: Array<[number, number]> = [];
  const problems: Array<{ line: number; message: string }> = [];
  const starts = lineStarts(md);
  let open: { at: number; line: number } | null = null;
  const lastOnLine = new Map<number, number>();
  for (const m of md.matchAll(/<!--\s*not-measured(:begin|:end)?\s*:?\s*([\s\S]*?)-->/g)) {
    const line = lineAt(starts, m.index);
    const kind = m[1] ?? '';
    const why = m[2].trim();
    if (kind === ':begin') {
      if (open) problems.push({ line, message: 'not-measured:begin inside another begin' });
      if (!why) problems.push({ line, message: 'not-measured:begin needs a reason' });
      open = { at: m.index, line };
    } else if (kind === ':end') {
      if (!open) problems.push({ line, message: 'not-measured:end without a begin' });
      else covered.push([open.at, m.index]);
      open = null;
    } else {
      if (!why) problems.push({ line, message: 'not-measured marker needs a reason: <!-- not-measured: why -->' });
      const from = Math.max(starts[line - 1], lastOnLine.get(line) ?? 0);
      covered.push([from, m.index]);
      lastOnLine.set(line, m.index + m[0].length);
    }
  }
  if (open) problems.push({ line: open.line, message: 'not-measured:begin is never closed' });
  return { covered, problems };
}

export function findNumbers(md: string): DocNumber[] {
  const skip = nonProseSpans(md);
  const starts = lineStarts(md);
  const out: DocNumber[] = [];
  for (const m of md.matchAll(WORD)) {
    // Strip what punctuation sits around a word: "(v7," -> "v7"; "5,400." -> "5,400".
    const lead = /^[^\p{L}\p{N}~≈±<>≤≥−-]*/u.exec(m[0])![0].length;
    const trimmed = m[0].slice(lead).replace(/[^\p{L}\p{N}%×]+$/u, '');
    if (!trimmed || !/\d/.test(trimmed) || !NUMBER_WORD.test(trimmed)) continue;
    const start = m.index + lead;
    const end = start + trimmed.length;
    if (inSpans(skip, start, end)) continue;
    const line = lineAt(starts, start);
    const ctxEnd = md.indexOf('\n', start);
    out.push({ text: trimmed, index: start, line, context: md.slice(starts[line - 1], ctxEnd < 0 ? md.length : ctxEnd).trim() });
  }
  return out;
}
