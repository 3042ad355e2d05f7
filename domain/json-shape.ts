/**
 * How much structure a JSON body may carry, checked on its raw UTF-8 bytes before it is parsed,
 * so that nothing after it (the NUL check, zod, the read-back rules, an error's pointer) ever walks
 * a body nested thousands of levels deep or holding hundreds of thousands of keys. One pass over
 * the bytes: strings are skipped with `indexOf` to their closing quote, so the cost is linear in
 * the body's size whatever it holds.
 */

/** Levels of arrays and objects, the body's own outermost one included: several times what any operation's body needs. */
export const MAX_JSON_DEPTH = 32;

/**
 * Keys (object members) a body may hold: one for every 16 bytes of the operation's size limit, so
 * 4,096 in the 64 KiB of a channel's body and 65,536 in the platform's 1 MiB. The densest body
 * the service takes (the platform's bulk availability: numbers and short ids) spends about 18
 * bytes a key; a body of nothing but one-letter keys spends 6.
 */
const BYTES_PER_KEY = 16;

/**
 * Keys in any one object. No object the service takes has more than a few dozen (a text's
 * languages, a property's fields); one holding tens of thousands is slow to build and to report
 * on (every unknown key is a failed rule).
 */
export const MAX_OBJECT_KEYS = 1000;

/** Items in any one array: ten times the longest list an operation takes (1,000 updates, 1,000 days). */
export const MAX_ARRAY_ITEMS = 10_000;

export interface JsonShapeLimits {
  maxDepth: number;
  maxKeys: number;
  maxObjectKeys: number;
  maxArrayItems: number;
}

/** The limits of a body of at most `bodyLimitBytes`. */
export function jsonShapeLimits(bodyLimitBytes: number): JsonShapeLimits {
  return {
    maxDepth: MAX_JSON_DEPTH,
    maxKeys: Math.floor(bodyLimitBytes / BYTES_PER_KEY),
    maxObjectKeys: MAX_OBJECT_KEYS,
    maxArrayItems: MAX_ARRAY_ITEMS,
  };
}

export interface JsonShapeViolation {
  rule: 'max_depth' | 'max_keys' | 'max_object_keys' | 'max_array_items';
  detail: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Index of the quote that closes the string whose opening quote is at `open`, or -1. */
function closingQuote(bytes: Uint8Array, open: number, length: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1 || at >= length) return -1;
    // Escaped when preceded by an odd number of backslashes.
    let backslashes = 0;
    for (let i = at - 1; i > open && bytes[i] === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function violation(rule: JsonShapeViolation['rule'], limit: number): JsonShapeViolation {
  const detail = {
    max_depth: `The body nests arrays and objects more than ${limit} levels deep; at most ${limit} levels are read`,
    max_keys: `The body holds more than ${limit} keys; at most ${limit} keys are read by this operation`,
    max_object_keys: `An object of the body holds more than ${limit} keys; at most ${limit} keys are read in one object`,
    max_array_items: `An array of the body holds more than ${limit} items; at most ${limit} items are read in one array`,
  }[rule];
  return { rule, detail };
}

/**
 * The first limit `bytes` breaks, or null. Malformed JSON is not judged here: it passes (or stops
 * the scan early) and the parser refuses it. Only bytes outside strings count, so brackets,
 * commas and colons inside a text cost nothing. An object's keys are its colons; an array's items
 * are its commas and one.
 */
export function jsonShapeViolation(bytes: Uint8Array, limits: JsonShapeLimits): JsonShapeViolation | null {
  const length = bytes.length;
  // Per open level: whether it is an array, and what it holds so far (keys, or commas).
  const isArray = new Uint8Array(limits.maxDepth + 1);
  const counts = new Uint32Array(limits.maxDepth + 1);
  let depth = 0;
  let keys = 0;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      const close = closingQuote(bytes, i, length);
      if (close === -1) return null;
      i = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limits.maxDepth) return violation('max_depth', limits.maxDepth);
      isArray[depth] = byte === OPEN_BRACKET ? 1 : 0;
      counts[depth] = 0;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    } else if (byte === COLON) {
      if (++keys > limits.maxKeys) return violation('max_keys', limits.maxKeys);
      if (++counts[depth]! > limits.maxObjectKeys) return violation('max_object_keys', limits.maxObjectKeys);
    } else if (byte === COMMA && isArray[depth] === 1) {
      if (++counts[depth]! + 1 > limits.maxArrayItems) return violation('max_array_items', limits.maxArrayItems);
    }
  }
  return null;
}
