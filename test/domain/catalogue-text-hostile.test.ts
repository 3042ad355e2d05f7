import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { normaliseForRules } from '../../domain/catalogue/text-normalise.ts';
import { textViolations, type TextRule } from '../../domain/catalogue/text.ts';

/**
 * The text rules written as plain regular expressions: the reference the scanners must agree
 * with. They backtrack (cubic time for the spelled-out address), so they are only ever fed short
 * texts here. Both judge the same normalised copy.
 */
const LEGACY_ENTITY_NAMES =
  'AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT Iacute Icirc Igrave Iuml LT ' +
  'Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig ' +
  'agrave amp aring atilde auml brvbar ccedil cedil cent copy curren deg divide eacute ecirc egrave eth euml frac12 frac14 ' +
  'frac34 gt iacute icirc iexcl igrave iquest iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm ' +
  'oslash otilde ouml para plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml ' +
  'uuml yacute yen yuml';
const REFERENCE_HTML = [
  /<(?:\/?[a-z]|!)/i,
  /<\s*\/?\s*[a-z!][^>]*>/i,
  /&(?:[a-z]{2,8}|#\d{1,6}|#x[0-9a-f]{1,6});/i,
  /&#(?:\d|x[0-9a-f])/i,
  new RegExp(`&(?:${LEGACY_ENTITY_NAMES.split(' ').join('|')})`),
];
const REFERENCE_URL = [
  /\b(?:https?|ftp):\/\//i,
  /\bwww\d?\./i,
  /\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.(?:com|net|org|info|biz|io|co|eu|ro|md|it|es|de|at|fr|uk|nl|pt|pl|hu|bg|gr|hr|cz|sk|si|ch|be|me|app|site|online|travel|rentals|house|villas|holiday)\b/i,
];
const REFERENCE_EMAIL = [/[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}/i, /\S+\s*[[(]\s*at\s*[\])]\s*\S+\s*[[(]\s*dot\s*[\])]/i];
/**
 * A loosely written address: a local part, then `@` with any white space around it, "at",
 * "arroba" or "chiocciola" spelled out, or Romanian "la", then a domain whose dots are dots with
 * white space or "dot", "punto", "punkt" (Romanian "punct"), ending in a top-level domain of the
 * list of its kind. Built with `new RegExp` because the lower-case letter after a sentence's dot
 * needs the `(?-i:...)` modifier, which TypeScript's target does not parse in a literal.
 */
const referenceLooseAddress = (() => {
  const label = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
  const spelled = (words: string) => String.raw`(?:\s+(?:${words})\s+|\s*[[(]\s*(?:${words})\s*[\])]\s*)`;
  const spacedDot = String.raw`(?:\s+\.\s*|\.\s+(?=(?-i:[a-z0-9])))`;
  const domain = (dot: string, tlds: string) => `${label}(?:${dot}${label})*${dot}(?:${tlds})(?![a-z0-9-])`;
  const anyTld =
    'com|net|org|info|biz|io|co|eu|ro|md|it|es|de|at|fr|uk|nl|pt|pl|hu|bg|gr|hr|cz|sk|si|ch|be|me|app|site|online|travel|rentals|house|villas|holiday';
  const spelledTld = 'com|net|org|info|biz|io|co|eu|ro|md|it|es|de|at|fr|uk|nl|pt|pl|hu|bg|gr|hr|cz|sk|ch|be|me';
  return new RegExp(
    String.raw`(?<![a-z0-9._%+-])[a-z0-9._%+-]+(?:` +
      String.raw`\s*@\s*${domain(`(?:${spacedDot}|\\.|${spelled('dot|punto|punkt')})`, anyTld)}|` +
      `${spelled('at|arroba|chiocciola')}${domain(`(?:${spacedDot}|${spelled('dot|punto|punkt')})`, spelledTld)}|` +
      String.raw`\s+la\s+${domain(`(?:${spacedDot}|${spelled('punct')})`, 'com|ro|org|md|net')})`,
    'gi',
  );
})();
const REFERENCE_DIGIT_RUN = /\+?\d(?:(?:[\s./()\p{Pd}_]|[,:](?=\d)){0,4}\d)+/gu;
const REFERENCE_COORDINATES = /(?<![\d.,:_])-?\d{1,3}\.\d{4,8},\s*-?\d{1,3}\.\d{4,8}(?![\d_]|[.,:]\d)/g;
const REFERENCE_TIMES = /(?<![\d.,:_])(?:[01]?\d|2[0-3])[:.][0-5]\d(?![\d_]|[.,:]\d)/g;
const REFERENCE_DATES =
  /(?<!\d[\s.]{1,4})(?:\b(?:0?[1-9]|[12]\d|3[01])[./-](?:0?[1-9]|1[0-2])[./-](?:19|20)\d{2}\b|\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b)/g;
const REFERENCE_DECIMALS =
  /(?<![\d.,:_])(?:(?:\d{1,3}(?:\.\d{3})+|\d+),\d{1,2}|(?:\d{1,3}(?:,\d{3})+|\d+)\.\d{1,2})(?![\d_]|[.,:]\d)/g;
const REFERENCE_BIDI = /[\u061c\u200f\u202a-\u202e\u2066-\u2069]/;

function referenceViolations(text: string): TextRule[] {
  const value = normaliseForRules(text);
  const rules: TextRule[] = [];
  if (REFERENCE_HTML.some((re) => re.test(value))) rules.push('html');
  const withoutEmails = [...REFERENCE_EMAIL, referenceLooseAddress].reduce(
    (text, re) => text.replace(new RegExp(re.source, 'gi'), ' '),
    value,
  );
  if (REFERENCE_URL.some((re) => re.test(withoutEmails))) rules.push('url');
  if ([...REFERENCE_EMAIL, referenceLooseAddress].some((re) => new RegExp(re.source, 'i').test(value)))
    rules.push('email');
  const phone = (run: string) => {
    const digits = run.replace(/\D/g, '').length;
    return digits >= 9 && digits <= 15;
  };
  const prose = value
    .replace(REFERENCE_COORDINATES, ' ; ')
    .replace(REFERENCE_TIMES, ' ; ')
    .replace(REFERENCE_DATES, ' ; ')
    .replace(REFERENCE_DECIMALS, (amount) => amount.replace(/[.,](?=\d{1,2}$)/, ';'));
  if ((prose.match(REFERENCE_DIGIT_RUN) ?? []).some(phone)) rules.push('phone');
  if (REFERENCE_BIDI.test(text)) rules.push('bidi');
  return rules;
}

/** `unit` repeated between `prefix` and `suffix`, as many whole times as fit in `length` characters. */
function pump(unit: string, length: number, prefix = '', suffix = ''): string {
  return prefix + unit.repeat(Math.floor((length - prefix.length - suffix.length) / unit.length)) + suffix;
}

const LIMIT = 10_000;

/**
 * Shapes that made the old patterns backtrack (each start rescanning the rest of the text, or
 * `\S+` swallowing every `[at]` to give them back one at a time), and look-alike spellings
 * the normalised copy folds or expands (up to eighteen characters for one), with the verdict
 * expected at any length. `[unit, prefix, suffix]`.
 */
const HOSTILE: [string, [string, string?, string?], TextRule[]][] = [
  ['spelled [at] with no [dot]', ['a[at]'], []],
  ['spelled [at] ending in [dot]', ['a[at]', '', 'a[dot]'], ['email']],
  ['spelled (at) and [dot] with spaces', ['a (at) b ', '', ' [ dot ] com'], ['email']],
  ['[at] [dot] alternating', ['[at] [dot] '], []],
  ['[at][dot] with no spaces', ['[at][dot]'], ['email']],
  ['bare [at]', ['[at]'], []],
  ['brackets only', ['[(]) '], []],
  ['spelled words without brackets', ['name at example dot com ', '', 'x'], ['email']],
  ['spelled words without a top-level domain', ['x at a dot '], []],
  ['spelled words, then a top-level domain', ['x at a dot ', '', 'com'], ['email']],
  ['Romanian la and punct without a top-level domain', ['x la a punct '], []],
  ['Romanian la and punct, then a top-level domain', ['x la a punct ', '', 'ro'], ['email']],
  ['@ with spaces repeated', ['a @ '], []],
  ['spaced dots after a spaced @', ['a . ', 'x @ '], []],
  ['spaced dots after a spaced @, then a top-level domain', ['a . ', 'x @ ', 'com'], ['email']],
  ['sentence dots', ['a. '], []],
  ['[ at ] with long spaces', ['[' + ' '.repeat(40) + 'at' + ' '.repeat(40) + ']'], []],
  ['a@ repeated', ['a@'], []],
  ['a@ repeated ending in an address', ['a@', '', 'a.com'], ['email']],
  ['@ after a long local part', ['a', '', '@'], []],
  ['long local part then a domain', ['a', '', '@b.cc'], ['email']],
  ['long domain with single letters after dots', ['a.', 'x@y'], []],
  ['long domain then two letters', ['a.', 'x@y', '.ab'], ['email']],
  ['a. repeated', ['a.'], []],
  ['a. repeated then a top-level domain', ['a.', '', 'a.com'], ['url']],
  ['a- repeated', ['a-'], []],
  ['a- repeated then a top-level domain', ['a-', '', 'a.ro'], ['url']],
  ['a-. repeated', ['a-.'], []],
  ['dots', ['.'], []],
  ['.com after every letter, glued', ['a.comx'], []],
  ['one letter', ['a'], []],
  ['www. repeated', ['www.'], ['url']],
  ['scheme-like colons', ['http:/'], []],
  ['<a without >', ['<a'], ['html']],
  ['< a without >', ['< a'], []],
  ['<a then >', ['<a', '', '>'], ['html']],
  ['< then spaces', [' ', '<'], []],
  ['< / then spaces', [' ', '< /'], []],
  ['> then <a', ['<a', '>'], ['html']],
  ['> then < a', ['< a', '>'], []],
  ['& without ;', ['&amp'], ['html']],
  ['& and letters no entity starts with', ['&zz'], []],
  ['&# without a digit', ['&#'], []],
  ['digits', ['1'], []],
  ['digits and spaces', ['1 '], []],
  ['digits and three separators', ['1 - '], []],
  ['digits and five separators', ['1 -- - '], []],
  ['a phone number with four separators, then five', ['1 -- - ', '0721 -- 234 -- 567 -- - '], ['phone']],
  ['+digits', ['+1'], []],
  ['phone numbers between semicolons', ['0722 123 456; '], ['phone']],
  ['dates', ['01.05.2025 '], []],
  ['digits and commas', ['1,'], []],
  ['digits and colons', ['1:'], []],
  ['digits and low lines', ['1_'], []],
  ['phone numbers with commas between semicolons', ['0721,234,567; '], ['phone']],
  ['phone numbers with colons between semicolons', ['0721:234:567; '], ['phone']],
  ['times', ['14:00-22:00, '], []],
  ['times glued', ['9.00-'], []],
  ['amounts with decimals', ['1.200,50-'], []],
  ['coordinates', ['45.6427,25.5887 '], []],
  ['dates after a group of digits, between semicolons', ['07 21.12.2034; '], ['phone']],
  ['bidi overrides', ['\u202e'], ['bidi']],
  ['bidi isolates between letters', ['a\u2066'], ['bidi']],
  ['everything mixed, nothing whole', ['a[at]b.c@d < e -1 (dot) '], []],
  ['zero-width spaces', ['\u200b'], []],
  ['zero-width spaces between letters', ['a\u200b'], []],
  ['zero-width spaces between letters, then a host', ['a\u200b', '', '.ro'], ['url']],
  ['ideographic full stops', ['。'], []],
  ['a。 repeated', ['a。'], []],
  ['a。 repeated then a top-level domain', ['a。', '', 'a。com'], ['url']],
  ['full-width at-signs', ['a＠'], []],
  ['Arabic-Indic digits', ['٣'], []],
  ['Arabic-Indic digits and separators', ['٣ – '], []],
  ['Arabic-Indic phone numbers between semicolons', ['٠٧٢١ ٢٣٤ ٥٦٧; '], ['phone']],
  ['digits of many scripts', ['3٣۳३３'], []],
  ['characters NFKC expands eighteenfold', ['\ufdfa'], []],
  ['ellipses (NFKC: three dots)', ['a…'], []],
  ['parenthesised letters (NFKC: three characters)', ['⒜'], []],
  ['parenthesised numbers (NFKC: four characters)', ['⒇ '], []],
  [
    'everything mixed, all whole',
    ['x[at]y (dot) z@w.ef <g> +40 722 123 456; www.x '],
    ['html', 'url', 'email', 'phone'],
  ],
];

describe('hostile texts', () => {
  test.each(HOSTILE)('%s: judged right at up to 10,000 characters', (_name, [unit, prefix, suffix], rules) => {
    expect(textViolations(pump(unit, LIMIT, prefix, suffix))).toEqual(rules);
  });

  test.each(HOSTILE)('%s: the reference patterns agree on a short one', (_name, [unit, prefix, suffix], rules) => {
    expect(referenceViolations(pump(unit, 120, prefix, suffix))).toEqual(rules);
  });
});

/** The rules' own alphabet, in pieces the patterns look for. */
const PIECES = [
  'a',
  'B',
  'x',
  'e',
  'com',
  'Ro',
  'co',
  'm',
  'www',
  'http',
  'https',
  'ftp',
  'at',
  'AT',
  'dot',
  'DOT',
  'd',
  'o',
  't',
  '@',
  '[at]',
  '(at)',
  ' at ',
  '[dot]',
  '(dot)',
  ' dot ',
  '[ at ]',
  '( DOT )',
  '[',
  ']',
  '(',
  ')',
  '.',
  '..',
  '-',
  '_',
  '/',
  '//',
  ':',
  '+',
  '<',
  '>',
  '!',
  '&',
  ';',
  '#',
  'amp',
  '#x1f',
  '0',
  '1',
  '7',
  '2025',
  '12',
  '31',
  '19',
  '0722',
  '123 456',
  ',',
  '14:00',
  '2,5',
  '1.200,50',
  '21.12.2034',
  '45.6427',
  ' @ ',
  ' . ',
  '. ',
  ' la ',
  'punct',
  'punto',
  'punkt',
  'arroba',
  'chiocciola',
  'Com',
  '\u202e',
  '\u2069',
  '\u200f',
  ' ',
  '  ',
  '\t',
  '\n',
  '\u00a0',
  '\u2009',
  '\u3000',
  'ă',
  'ș',
  '\u212a',
  '\u200b',
  '\u200d',
  '\u00ad',
  '。',
  '．',
  '·',
  '＠',
  '﹫',
  '＜',
  '&lt',
  '&#6',
  '٠',
  '٧',
  '२',
  '０',
  '–',
  '—',
  '⒜',
  '…',
];
const pieceText = (maxLength: number) =>
  fc.array(fc.constantFrom(...PIECES), { maxLength, size: 'max' }).map((pieces) => pieces.join(''));

describe('textViolations against the reference patterns', () => {
  test("random texts of the rules' alphabet get the verdict the reference patterns give", () => {
    fc.assert(
      fc.property(pieceText(40), (text) => {
        expect(textViolations(text)).toEqual(referenceViolations(text));
      }),
      { numRuns: 3000 },
    );
  });

  test('pumped texts (a prefix, a piece repeated, a suffix) get the verdict the reference patterns give', () => {
    fc.assert(
      fc.property(
        pieceText(4),
        pieceText(5),
        fc.integer({ min: 1, max: 25 }),
        pieceText(4),
        (prefix, unit, times, suffix) => {
          const text = prefix + unit.repeat(times) + suffix;
          expect(textViolations(text)).toEqual(referenceViolations(text));
        },
      ),
      { numRuns: 1500 },
    );
  });

  test('any short string gets the verdict the reference patterns give', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60, size: 'max' }), (text) => {
        expect(textViolations(text)).toEqual(referenceViolations(text));
      }),
      { numRuns: 1000 },
    );
  });

  test('long texts of the alphabet are judged without throwing', () => {
    fc.assert(
      fc.property(pieceText(4), fc.integer({ min: 1, max: 2500 }), (unit, times) => {
        expect(() => textViolations(unit.repeat(times).slice(0, LIMIT))).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});
