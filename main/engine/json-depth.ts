// A bounded JSON decoder for text from outside (a web request body; remote listings will use it
// too): nesting deeper than the bound is refused before JSON.parse builds anything, because a
// value nested 100,000 levels deep parses and then overflows the stack of whatever walks it
// (validation, the structured clone to the engine process). One pass over the text, no recursion.

/** The deepest nesting a request body may have (the API's deepest request is under 10 levels). */
export const MAX_JSON_DEPTH = 64;

/** The deepest `[`/`{` nesting of `text`, counting only outside strings; stops once past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

export class JsonTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`nested deeper than ${limit} levels`);
  }
}

/** JSON.parse, refusing text nested deeper than `limit` (JsonTooDeep) before it is parsed. */
export function parseBoundedJson(text: string, limit = MAX_JSON_DEPTH): unknown {
  if (jsonDepth(text, limit) > limit) throw new JsonTooDeep(limit);
  return JSON.parse(text);
}
