export type TextMap = Record<string, string>;

export const TEXT_RULES = ['html', 'url', 'email', 'phone'] as const;
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

const HTML_PATTERNS = [/<\s*\/?\s*[a-z!][^>]*>/i, /&(?:[a-z]{2,8}|#\d{1,6}|#x[0-9a-f]{1,6});/i];

const URL_PATTERNS = [
  /\b(?:https?|ftp):\/\//i,
  /\bwww\d?\./i,
  // A bare host with a common top-level domain (`casa-mare.ro`, `book.example.com/x`).
  /\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.(?:com|net|org|info|biz|io|co|eu|ro|md|it|es|de|at|fr|uk|nl|pt|pl|hu|bg|gr|hr|cz|sk|si|ch|be|me|app|site|online|travel|rentals|house|villas|holiday)\b/i,
];

const EMAIL_PATTERNS = [
  /[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}/i,
  // Spelled out to pass a naive filter: "name [at] example [dot] com".
  /\S+\s*[[(]\s*at\s*[\])]\s*\S+\s*[[(]\s*dot\s*[\])]/i,
];

/** Runs of digits joined by at most two separators. */
const DIGIT_RUN = /\+?\d(?:[ .\-/()\u00a0]{0,2}\d)+/g;
/** Calendar dates (`31.12.2025`, `2025-12-31`), removed before looking for phone numbers. */
const DATES =
  /\b(?:0?[1-9]|[12]\d|3[01])[./-](?:0?[1-9]|1[0-2])[./-](?:19|20)\d{2}\b|\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b/g;

/**
 * Rule codes the value breaks. A heuristic filter on host text, tuned to let through dates,
 * times, year ranges, prices and sizes: a phone number is a run of 9 to 15 digits, once
 * calendar dates are taken out.
 */
export function textViolations(value: string): TextRule[] {
  const rules: TextRule[] = [];
  if (HTML_PATTERNS.some((re) => re.test(value))) rules.push('html');
  // An e-mail address also contains a host; report it once, as e-mail.
  const withoutEmails = EMAIL_PATTERNS.reduce((text, re) => text.replace(new RegExp(re.source, 'gi'), ' '), value);
  if (URL_PATTERNS.some((re) => re.test(withoutEmails))) rules.push('url');
  if (EMAIL_PATTERNS.some((re) => re.test(value))) rules.push('email');
  if ((value.replace(DATES, ' ; ').match(DIGIT_RUN) ?? []).some(looksLikePhone)) rules.push('phone');
  return rules;
}

/** E.164 allows at most 15 digits; European national numbers have at least 9. */
function looksLikePhone(run: string): boolean {
  const digits = run.replace(/\D/g, '').length;
  return digits >= 9 && digits <= 15;
}

export function textMapViolations(map: unknown, sourceLang: string): TextMapViolation[] {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return [{ rule: 'not_an_object' }];
  const violations: TextMapViolation[] = [];
  const entries = Object.entries(map as Record<string, unknown>);
  if (!entries.some(([language]) => language === sourceLang)) violations.push({ rule: 'source_language_missing' });
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
