import { looseAddressSpans } from './text-loose-addresses.ts';
import { normaliseForRules } from './text-normalise.ts';
import { hasPhoneNumber } from './text-phones.ts';
import { addressSpans, blankOut, hasBareHost, spelledAddressSpans } from './text-scanners.ts';

export type TextMap = Record<string, string>;

export const TEXT_RULES = ['html', 'url', 'email', 'phone', 'bidi'] as const;
export type TextRule = (typeof TEXT_RULES)[number];

export type TextMapRule = TextRule | 'not_an_object' | 'source_language_missing' | 'language_tag' | 'empty';
export interface TextMapViolation {
  /** Language key the rule failed on; absent for rules about the whole map. */
  language?: string;
  rule: TextMapRule;
}

/**
 * Only countries with one national language get it; multilingual countries (CH, BE, LU, ...) and
 * every other country fall back to `en`. Moldova writes Romanian.
 */
const SOURCE_LANGUAGE_BY_COUNTRY: Readonly<Record<string, string>> = {
  RO: 'ro',
  MD: 'ro',
  IT: 'it',
  SM: 'it',
  ES: 'es',
  FR: 'fr',
  MC: 'fr',
  DE: 'de',
  AT: 'de',
  PT: 'pt',
  NL: 'nl',
  PL: 'pl',
  HU: 'hu',
  BG: 'bg',
  GR: 'el',
  HR: 'hr',
  CZ: 'cs',
  SK: 'sk',
  SI: 'sl',
};

export function sourceLanguage(country: string): string {
  return SOURCE_LANGUAGE_BY_COUNTRY[country.toUpperCase()] ?? 'en';
}

/**
 * Well-formed BCP 47 tags in canonical case, the subset the service writes: language, optional
 * script, optional region (`ro`, `en-GB`, `sr-Latn-RS`, `es-419`).
 */
const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|\d{3}))?$/;

export function isLanguageTag(value: string): boolean {
  return LANGUAGE_TAG.test(value);
}

/*
 * Every rule below runs in time linear in the length of the text: host text is attacker-controlled
 * (up to 10,000 characters), and a backtracking pattern on it holds the API for seconds or
 * minutes. Regular expressions are kept only where they cannot backtrack far: each attempt is
 * bounded, or its loops stop at a character that never starts another attempt. The rest are
 * hand-written scanners, each the exact equivalent of the pattern written in its comment.
 */

const HTML_ENTITY = /&(?:[a-z]{2,8}|#\d{1,6}|#x[0-9a-f]{1,6});/i;
/**
 * References browsers decode without their `;`: numeric ones, and the named ones HTML keeps from
 * before `;` was required (`&ltscript&gt` reads `<script>`). Names are case-sensitive there.
 */
const NUMERIC_REFERENCE = /&#(?:\d|x[0-9a-f])/i;
const LEGACY_ENTITY = new RegExp(
  `&(?:${[
    'AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT Iacute Icirc Igrave Iuml LT',
    'Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig',
    'agrave amp aring atilde auml brvbar ccedil cedil cent copy curren deg divide eacute ecirc egrave eth euml frac12 frac14',
    'frac34 gt iacute icirc iexcl igrave iquest iuml laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm',
    'oslash otilde ouml para plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml',
    'uuml yacute yen yuml',
  ]
    .join(' ')
    .split(' ')
    .join('|')})`,
);
/**
 * A tag as browsers open one, `<` directly followed by a letter, `/` and a letter, or `!`. It
 * counts without a `>`: text set into a page ends at the page's next `>`, which closes the tag
 * with its attributes (`<img src=x onerror=...`).
 */
const TAG_OPEN = /<(?:\/?[a-z]|!)/i;
/** The start of a tag, `<` up to its first letter (`<b`, `</ b`, `<!--`). */
const HTML_TAG_START = /<\s*(?:\/\s*)?[a-z!]/i;

/**
 * A tag opening, `/<\s*\/?\s*[a-z!][^>]*>/i`, or an entity, with or without its `;`. A tag
 * with spaces after its `<` (which browsers leave as text) counts when a `>` follows it.
 */
function hasHtml(text: string): boolean {
  if (TAG_OPEN.test(text)) return true;
  const tag = HTML_TAG_START.exec(text);
  // The leftmost start of a tag also ends first, so it is the one most likely to have a `>` after it.
  if (tag && text.lastIndexOf('>') >= tag.index + tag[0].length) return true;
  return HTML_ENTITY.test(text) || NUMERIC_REFERENCE.test(text) || LEGACY_ENTITY.test(text);
}

const URL_PATTERNS = [/\b(?:https?|ftp):\/\//i, /\bwww\d?\./i];
/**
 * The bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the invisible
 * right-to-left marks (U+200F, U+061C) reorder what a reader sees: `\u202emoc.liamg@narbasac`
 * displays as an address no rule reads in the text, and so does
 * `\u200fcom\u200f.\u200fgmail\u200f@\u200fcasabran` wherever the text is laid out right to
 * left (its first mark makes it so where the direction follows the first strong character). A
 * listing text in any script reads right without them. The left-to-right mark (U+200E) passes:
 * it joins Latin words, it cannot reverse them.
 */
const BIDI_CONTROL = /[\u061c\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Rule codes the value breaks. A heuristic filter on host text, tuned to let through dates,
 * times, prices and sizes (text-phones.ts) and the ordinary use of the words a spelled-out
 * address uses (text-loose-addresses.ts). The rules judge the normalised copy
 * (text-normalise.ts), so look-alike spellings (`０７２１`, `٠٧٢١`, `casabran。ro`, a zero-width
 * space inside a name) are judged as the plain ones; bidi controls, which that copy drops, are
 * looked for in the text as written.
 */
export function textViolations(text: string): TextRule[] {
  const value = normaliseForRules(text);
  const rules: TextRule[] = [];
  if (hasHtml(value)) rules.push('html');
  // An e-mail address also contains a host; report it once, as e-mail. Spelled-out and loosely
  // written addresses are looked for once the plain ones are blanked out.
  const addresses = addressSpans(value);
  const withoutAddresses = blankOut(value, addresses);
  const spelled = spelledAddressSpans(withoutAddresses);
  const withoutSpelled = blankOut(withoutAddresses, spelled);
  const loose = looseAddressSpans(withoutSpelled);
  const withoutEmails = blankOut(withoutSpelled, loose);
  if (URL_PATTERNS.some((re) => re.test(withoutEmails)) || hasBareHost(withoutEmails)) rules.push('url');
  if (addresses.length > 0 || spelled.length > 0 || loose.length > 0) rules.push('email');
  if (hasPhoneNumber(value)) rules.push('phone');
  if (BIDI_CONTROL.test(text)) rules.push('bidi');
  return rules;
}

/** `sourceLang` null: every rule but the source language (which needs the location's country). */
export function textMapViolations(map: unknown, sourceLang: string | null): TextMapViolation[] {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return [{ rule: 'not_an_object' }];
  const violations: TextMapViolation[] = [];
  const entries = Object.entries(map as Record<string, unknown>);
  if (sourceLang !== null && !entries.some(([language]) => language === sourceLang))
    violations.push({ rule: 'source_language_missing' });
  for (const [language, text] of entries) {
    if (!isLanguageTag(language)) violations.push({ language, rule: 'language_tag' });
    if (typeof text !== 'string' || text.trim() === '') {
      violations.push({ language, rule: 'empty' });
      continue;
    }
    for (const rule of textViolations(text)) violations.push({ language, rule });
  }
  return violations;
}

export function isValidTextMap(map: unknown, sourceLang: string): map is TextMap {
  return textMapViolations(map, sourceLang).length === 0;
}
