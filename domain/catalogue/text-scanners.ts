/**
 * The address and host scanners of the text rules (text.ts): single passes over the text, each
 * the exact equivalent of the regular expression written in its comment, which would backtrack.
 */

/** The top-level domains a bare host or a loosely written address (text-loose-addresses.ts) ends in. */
export const TOP_LEVEL_DOMAINS: ReadonlySet<string> = new Set(
  'com net org info biz io co eu ro md it es de at fr uk nl pt pl hu bg gr hr cz sk si ch be me app site online travel rentals house villas holiday'.split(
    ' ',
  ),
);
const LONGEST_TOP_LEVEL_DOMAIN = Math.max(...[...TOP_LEVEL_DOMAINS].map((tld) => tld.length));

/**
 * A bare host with a common top-level domain (`casa-mare.ro`, `book.example.com/x`):
 * `/\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.(?:com|net|...)\b/i`, scanned once.
 *
 * A host starts at a letter or digit with no word character before it; its first label ends in a
 * letter or digit; later labels are any non-empty run of letters, digits and `-`. A host that has
 * started flags the text at the first dot followed by a top-level domain that is a whole word.
 */
export function hasBareHost(text: string): boolean {
  let labelHasStart = false; // a host may start in the label being read
  let hostStarted = false; // a host started in an earlier label of this run and its first label is well formed
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (isAsciiAlphanumeric(c)) {
      if (!isWordChar(text.charCodeAt(i - 1))) labelHasStart = true;
    } else if (c === DOT) {
      const previous = text.charCodeAt(i - 1);
      if (previous === DOT) {
        // An empty label: no host runs across `..`.
        hostStarted = labelHasStart = false;
        continue;
      }
      if (labelHasStart && isAsciiAlphanumeric(previous)) hostStarted = true;
      labelHasStart = false;
      if (hostStarted && isTopLevelDomainAt(text, i + 1)) return true;
    } else if (c !== HYPHEN) {
      hostStarted = labelHasStart = false;
    }
  }
  return false;
}

/** The whole word starting at `start` is one of the top-level domains. */
function isTopLevelDomainAt(text: string, start: number): boolean {
  let end = start;
  while (end - start <= LONGEST_TOP_LEVEL_DOMAIN && isWordChar(text.charCodeAt(end))) end += 1;
  return end - start <= LONGEST_TOP_LEVEL_DOMAIN && TOP_LEVEL_DOMAINS.has(text.slice(start, end).toLowerCase());
}

/** Start (inclusive) and end (exclusive) of a match. */
type Span = readonly [number, number];

/**
 * Every match, leftmost first and not overlapping (as `String.prototype.replace` with a global
 * flag finds them), of `/[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}/gi`: a local part, `@`, a domain
 * that ends in its last dot followed by two or more ASCII letters, and those letters.
 */
export function addressSpans(text: string): Span[] {
  const spans: Span[] = [];
  let runStart = 0; // first index of the run of address characters being read
  let resume = 0; // a match never starts before the end of the previous one
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== AT) {
      if (!isAddressChar(text, i)) runStart = i + 1;
      i += 1;
      continue;
    }
    const start = Math.max(runStart, resume);
    let domainEnd = i + 1;
    let lastDot = -1;
    for (; domainEnd < text.length && isAddressChar(text, domainEnd); domainEnd += 1) {
      if (
        domainEnd >= i + 2 &&
        text.charCodeAt(domainEnd) === DOT &&
        isAsciiLetter(text.charCodeAt(domainEnd + 1)) &&
        isAsciiLetter(text.charCodeAt(domainEnd + 2))
      ) {
        lastDot = domainEnd;
      }
    }
    if (start < i && lastDot !== -1) {
      let end = lastDot + 1;
      while (isAsciiLetter(text.charCodeAt(end))) end += 1;
      spans.push([start, end]);
      resume = end;
    }
    // The domain's run is the local part of an `@` that ends it.
    runStart = i + 1;
    i = domainEnd;
  }
  return spans;
}

/**
 * Every match, as above, of an address spelled out to pass a naive filter,
 * "name [at] example [dot] com":
 * `/\S+\s*[[(]\s*at\s*[\])]\s*\S+\s*[[(]\s*dot\s*[\])]/gi`.
 *
 * The pattern backtracks in cubic time; this finds the same matches in one pass, trying the
 * candidates in the order the backtracking would and looking each up in tables built beforehand.
 * From a start `s` in a run of non-space characters ending at `b`, `\S+\s*` lets `[at]` begin at
 * the next run's first character, else at `b - 1`, `b - 2`, ..., `s + 1`. After `[at]`, `\s*\S+\s*`
 * takes the next run and lets `[dot]` begin at the first character of the run after it, else at
 * the last place inside that run past its first character.
 */
export function spelledAddressSpans(text: string): Span[] {
  const n = text.length;
  // Ends of `[at]` and `[dot]` beginning at each index, -1 where none does.
  const atEnd = new Int32Array(n + 1).fill(-1);
  const dotEnd = new Int32Array(n + 1).fill(-1);
  let any = false;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== OPEN_BRACKET && c !== OPEN_PARENTHESIS) continue;
    let j = i + 1;
    while (isSpace(text, j)) j += 1;
    let ends: Int32Array;
    if (isLetter(text, j, 'a') && isLetter(text, j + 1, 't')) {
      ends = atEnd;
      j += 2;
    } else if (isLetter(text, j, 'd') && isLetter(text, j + 1, 'o') && isLetter(text, j + 2, 't')) {
      ends = dotEnd;
      j += 3;
    } else {
      continue;
    }
    while (isSpace(text, j)) j += 1;
    const close = text.charCodeAt(j);
    if (close === CLOSE_BRACKET || close === CLOSE_PARENTHESIS) {
      ends[i] = j + 1;
      any = true;
    }
  }
  if (!any) return [];

  // For each index: the next non-space index; the end of the run of non-spaces it is in; the last
  // index at or before it where `[dot]` begins.
  const nextNonSpace = new Int32Array(n + 1).fill(n);
  const runEnd = new Int32Array(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i -= 1) {
    const space = isSpace(text, i);
    nextNonSpace[i] = space ? nextNonSpace[i + 1]! : i;
    runEnd[i] = space ? i : runEnd[i + 1]!;
  }
  const lastDotStart = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i += 1) lastDotStart[i] = dotEnd[i]! >= 0 ? i : i > 0 ? lastDotStart[i - 1]! : -1;

  /** End of `\s*\S+\s*[dot]` from `from`, -1 if it does not match there. */
  const afterAt = (from: number): number => {
    const u = nextNonSpace[from]!;
    if (u >= n) return -1;
    const v = runEnd[u]!;
    const next = nextNonSpace[v]!;
    if (dotEnd[next]! >= 0) return dotEnd[next]!;
    const inside = lastDotStart[v - 1]!;
    return inside > u ? dotEnd[inside]! : -1;
  };
  /** End of the match starting at `s`, -1 if none does. */
  const matchFrom = (s: number): number => {
    const b = runEnd[s]!;
    const next = nextNonSpace[b]!;
    if (atEnd[next]! >= 0) {
      const end = afterAt(atEnd[next]!);
      if (end >= 0) return end;
    }
    for (let y = b - 1; y > s; y -= 1) {
      if (atEnd[y]! < 0) continue;
      const end = afterAt(atEnd[y]!);
      if (end >= 0) return end;
    }
    return -1;
  };

  const spans: Span[] = [];
  for (let s = nextNonSpace[0]!; s < n;) {
    // A start that fails fails for every later start in its run: they allow fewer places for `[at]`.
    const end = matchFrom(s);
    if (end >= 0) spans.push([s, end]);
    s = nextNonSpace[end >= 0 ? end : runEnd[s]!]!;
  }
  return spans;
}

/** The text with each span replaced by one space. */
export function blankOut(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  let result = '';
  let from = 0;
  for (const [start, end] of spans) {
    result += text.slice(from, start) + ' ';
    from = end;
  }
  return result + text.slice(from);
}

const AT = 0x40;
const DOT = 0x2e;
const HYPHEN = 0x2d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_PARENTHESIS = 0x28;
const CLOSE_PARENTHESIS = 0x29;

/**
 * `\s`: the space separators (Zs), tab, line terminators, vertical tab, form feed and U+FEFF;
 * out-of-range indexes are not white space. Compared by code, not with a pattern per character,
 * because normalised text can be long and mostly outside ASCII.
 */
function isSpace(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c <= 0x7f) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `[^\s@<>()]` */
function isAddressChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c !== AT && c !== 0x3c && c !== 0x3e && c !== OPEN_PARENTHESIS && c !== CLOSE_PARENTHESIS && !isSpace(text, i);
}

/** `[a-z]` with the `i` flag (without `u`, case folding stays within ASCII); false for NaN. */
function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** The ASCII letter `lower` in either case at index `i`. */
function isLetter(text: string, i: number, lower: string): boolean {
  return (text.charCodeAt(i) | 0x20) === lower.charCodeAt(0);
}

function isAsciiAlphanumeric(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x39);
}

/** `\w`, what `\b` looks at; false for NaN, so the ends of the text count as non-word. */
function isWordChar(c: number): boolean {
  return isAsciiAlphanumeric(c) || c === 0x5f;
}
