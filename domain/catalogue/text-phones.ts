/**
 * The phone-number rule of the text rules (text.ts): a run of 9 to 15 digits joined by
 * separators, once coordinates, clock times, calendar dates and decimal marks, which join digits
 * in prose, are taken out. Every pattern here is bounded or starts only where a number starts, so
 * the rule stays linear in the text.
 */

/**
 * Runs of digits joined by at most four separators: white space, dots, dashes of any kind,
 * slashes, parentheses and `_`, and a `,` or `:` directly followed by a digit (`0721,234,567`,
 * `0721:234:567`; a comma or colon followed by a space is prose punctuation: `101, 102, 103`,
 * `Etaj 3: 2 camere`). Separators and digits never overlap, so a match gives back at most four
 * characters when it ends.
 */
const DIGIT_RUN = /\+?\d(?:(?:[\s./()\p{Pd}_]|[,:](?=\d)){0,4}\d)+/gu;

/**
 * A point's latitude and longitude in decimal degrees (`45.6427,25.5887`): four to eight decimals
 * each, where a dotted phone number has groups of two to four digits.
 */
const COORDINATES = /(?<![\d.,:_])-?\d{1,3}\.\d{4,8},\s*-?\d{1,3}\.\d{4,8}(?![\d_]|[.,:]\d)/g;

/**
 * Clock times (`9:00`, `14:30`, `8.00`) that are not one group of a longer chain (`07:21:23:45:67`,
 * `01.23.45.67.89` stay digits): opening hours with times side by side (`9:00-13:00, 15:00-19:00`,
 * `9.00-12.00-15.00`) would otherwise reach 9 digits.
 */
const TIMES = /(?<![\d.,:_])(?:[01]?\d|2[0-3])[:.][0-5]\d(?![\d_]|[.,:]\d)/g;

/**
 * Calendar dates (`31.12.2025`, `2025-12-31`), except one that continues a group of digits written
 * before it with only white space or dots between: `07 21.12.2034` is the number 0721 122 034. A
 * date after a dash, a slash, a comma or a word (`10-20.08.2025`, `01.05.2025 - 30.09.2025`) is a
 * date.
 */
const DATES =
  /(?<!\d[\s.]{1,4})(?:\b(?:0?[1-9]|[12]\d|3[01])[./-](?:0?[1-9]|1[0-2])[./-](?:19|20)\d{2}\b|\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b)/g;

/**
 * Amounts with one or two decimals (`2,5`, `85.50`, `1.200,50`, `1,200.50`): the decimal mark ends
 * the number, so a price range (`1.200,50-1.500,75`) is two numbers. A mark that is one of a
 * chain (`07,21,23,45,67`) or the same as the thousands mark before it (`1.200.50`) is not one.
 */
const DECIMALS =
  /(?<![\d.,:_])(?:(\d{1,3}(?:\.\d{3})+|\d+),(\d{1,2})|(\d{1,3}(?:,\d{3})+|\d+)\.(\d{1,2}))(?![\d_]|[.,:]\d)/g;
/** The amount with `;` for its decimal mark (a group that did not take part is empty). */
const DECIMAL_SPLIT = '$1$3;$2$4';

/** E.164 allows at most 15 digits; European national numbers have at least 9. */
function looksLikePhone(run: string): boolean {
  const digits = run.replace(/\D/g, '').length;
  return digits >= 9 && digits <= 15;
}

/** `value` is the normalised copy (text-normalise.ts): digits of every script are ASCII there. */
export function hasPhoneNumber(value: string): boolean {
  const prose = value
    .replace(COORDINATES, ' ; ')
    .replace(TIMES, ' ; ')
    .replace(DATES, ' ; ')
    .replace(DECIMALS, DECIMAL_SPLIT);
  return (prose.match(DIGIT_RUN) ?? []).some(looksLikePhone);
}
