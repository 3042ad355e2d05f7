/**
 * The copy of a host text the text rules (text.ts) judge: contact details spelled with characters
 * that look like, or are read by URL parsers and browsers as, the ones the rules look for come
 * out in the plain spelling. The host's text itself is stored as written; only the verdict uses
 * this copy.
 *
 * NFKC folds the compatibility forms: full-width letters, digits and punctuation (`０`, `＠`
 * U+FF20, `．` U+FF0E, `＜`), the small forms (`﹫` U+FE6B, `﹒` U+FE52), the one dot leader
 * (U+2024), mathematical and circled digits, no-break and thin spaces. One pass over its result
 * then folds what it leaves:
 *
 * - Format characters (`\p{Cf}`: zero-width space and joiners, soft hyphen, bidi controls) and
 *   the other default-ignorable ones (variation selectors, Hangul fillers) are dropped: a reader
 *   sees nothing, and a name with one inside (`casabran\u200b.ro`) is still the name.
 * - Full stops a reader or a URL parser takes for a dot become `.`: UTS #46 maps the ideographic
 *   full stop (U+3002, also what NFKC makes of U+FF61 and U+FE12) to `.`, so `casabran。ro`
 *   opens as a host; the stenographic full stop and the middle dots read as dots in a name.
 *   Catalan's `l·l` becomes `l.l` and Greek's ano teleia (U+0387) a `.` before Greek, neither of
 *   which any rule takes for a host.
 * - Decimal digits of every script (`\p{Nd}`: `٠`-`٩`, `۰`-`۹`, `०`-`९`, ...) become ASCII
 *   digits, so every rule that reads digits reads them in any script.
 */
export function normaliseForRules(text: string): string {
  // ASCII is its own NFKC form and holds none of the characters folded below.
  if (!NON_ASCII.test(text)) return text;
  const nfkc = text.normalize('NFKC');
  const bmp = bmpFolds();
  let copy = '';
  let keptFrom = 0;
  for (let i = 0; i < nfkc.length; i += 1) {
    const unit = nfkc.charCodeAt(i);
    if (unit < 0x80) continue;
    const astral = unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(nfkc.charCodeAt(i + 1));
    const fold = astral ? astralFold(nfkc.codePointAt(i)!) : bmp[unit]!;
    if (fold !== KEEP) {
      copy += nfkc.slice(keptFrom, i) + (fold === DROP ? '' : fold === DOT ? '.' : String(fold - DIGIT_ZERO));
      keptFrom = i + (astral ? 2 : 1);
    }
    if (astral) i += 1;
  }
  return keptFrom === 0 ? nfkc : copy + nfkc.slice(keptFrom);
}

const NON_ASCII = /[^\0-\x7f]/;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const DOT_LOOK_ALIKE = /[\u3002\u2e3c\u00b7\u2027\u2219\u22c5\u30fb]/gu;
const DECIMAL_DIGIT = /\p{Nd}/gu;

/** What becomes of a character: kept, dropped, a dot, or the digit `fold - DIGIT_ZERO`. */
const KEEP = 0;
const DROP = 1;
const DOT = 2;
const DIGIT_ZERO = 10;

/**
 * Reports each character of `characters` that folds, by code point. Unicode encodes
 * the decimal digits of each script as ten consecutive code points from 0 to 9, and a run of
 * consecutive digits starts at a 0, so a digit's value is its distance from the start of its
 * run, modulo 10.
 */
function recordFolds(characters: string, record: (codePoint: number, fold: number) => void): void {
  let runStart = -2;
  let previous = -2;
  for (const [digit] of characters.matchAll(DECIMAL_DIGIT)) {
    const codePoint = digit.codePointAt(0)!;
    if (codePoint !== previous + 1) runStart = codePoint;
    previous = codePoint;
    record(codePoint, DIGIT_ZERO + ((codePoint - runStart) % 10));
  }
  for (const [dot] of characters.matchAll(DOT_LOOK_ALIKE)) record(dot.codePointAt(0)!, DOT);
  for (const [invisible] of characters.matchAll(INVISIBLE)) record(invisible.codePointAt(0)!, DROP);
}

/**
 * The fold of every character of the Basic Multilingual Plane, built on first use with one scan
 * of them all: a lookup per character keeps the pass fast on the longest copies NFKC makes (up
 * to 18 characters for one).
 */
let bmpTable: Uint8Array | undefined;
function bmpFolds(): Uint8Array {
  if (bmpTable) return bmpTable;
  const table = new Uint8Array(0x10000);
  const chunks: string[] = [];
  for (let from = 0x80; from < 0x10000; from += 0x800) {
    const units: number[] = [];
    for (let unit = from; unit < from + 0x800; unit += 1) if (unit < 0xd800 || unit > 0xdfff) units.push(unit);
    chunks.push(String.fromCharCode(...units));
  }
  recordFolds(chunks.join(''), (codePoint, fold) => (table[codePoint] = fold));
  return (bmpTable = table);
}

/**
 * Characters outside the Basic Multilingual Plane (emoji, mostly) are tested one by one; only the
 * few thousand that fold are remembered, so the memory stays bounded whatever hosts send.
 */
const FOLDED = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Nd}]/u;
const IS_DECIMAL_DIGIT = /\p{Nd}/u;
const astralFolds = new Map<number, number>();
function astralFold(codePoint: number): number {
  const known = astralFolds.get(codePoint);
  if (known !== undefined) return known;
  const character = String.fromCodePoint(codePoint);
  if (!FOLDED.test(character)) return KEEP;
  let fold = DROP;
  if (IS_DECIMAL_DIGIT.test(character)) {
    let runStart = codePoint;
    while (IS_DECIMAL_DIGIT.test(String.fromCodePoint(runStart - 1))) runStart -= 1;
    fold = DIGIT_ZERO + ((codePoint - runStart) % 10);
  }
  astralFolds.set(codePoint, fold);
  return fold;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
