// Text from a table (paths, column names, values) echoed to a terminal or a log must not carry
// control characters: a newline would forge a second message line, an escape sequence would
// drive the terminal, a bidi override would reorder what is shown. They are written as escapes.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u0000': '\\0' };

/** `s` with every control, line-separator and bidi character escaped (\n, \r, \t, \0, \xHH, \u{HHHH}). */
export function escapeControl(s: string): string {
  return s.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** One line of at most `max` characters, control characters escaped. */
export function oneLine(s: string, max = 2000): string {
  const e = escapeControl(s);
  return e.length > max ? e.slice(0, max - 1) + '…' : e;
}
