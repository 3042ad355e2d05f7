/**
 * E-mail addresses written loosely to pass a filter that looks for `name@host.tld`: white space
 * around the `@` and the dots (`casabran @ gmail . com`), or the `@` and the dots spelled out as
 * words (`john at example dot com`), in brackets (`john (at) example . com`), or in the languages
 * of the service's hosts: `arroba`, `chiocciola` and `punto`, `punkt`; Romanian `la` with
 * `punct`. The text rules (text.ts) look for them once plain and bracketed addresses are blanked
 * out.
 *
 * The words are ordinary words too ("at home", "punto de encuentro", "la un punct de belvedere"),
 * so an address spelled with words must end in a country or generic top-level domain: not one of
 * the new ones that are English words (`house`, `site`, `online`), nor `si` ("a quel punto si
 * arriva"); Romanian `la ... punct` only in `com`, `ro`, `org`, `md` or `net` (`de`, `eu`, `si`
 * are Romanian words). A dot followed by a space and preceded by none ends a sentence ("Feel at
 * home. It is quiet"): it joins a name only before a lower-case letter or a digit
 * (`casabran@gmail. com`). A plain dot joins a name after an `@` only: after a word,
 * `example.com` is a host, which the URL rule reports.
 *
 * One regular expression: an attempt starts only where a run of local-part characters starts, and
 * what follows the local part splits into labels, dots and words in one way only, so backtracking
 * stays within the attempt's own run (`npm run bench:text` holds it to its budget).
 */

import { TOP_LEVEL_DOMAINS } from './text-scanners.ts';

/** `word` matched in either case, without the `i` flag, which would also make `[a-z]` caseless. */
function caseless(word: string): string {
  return word.replace(/[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
}
function oneOf(words: string): string {
  return `(?:${words.split(' ').map(caseless).join('|')})`;
}
/** The word between white space, or in brackets with or without white space. */
function spelled(words: string): string {
  return `(?:\\s+${oneOf(words)}\\s+|\\s*[[(]\\s*${oneOf(words)}\\s*[\\])]\\s*)`;
}

/** Country and generic domains that no host writes as a word after "dot", "punto" or "punkt". */
const SPELLED_TOP_LEVEL_DOMAINS =
  'com net org info biz io co eu ro md it es de at fr uk nl pt pl hu bg gr hr cz sk ch be me';
const ROMANIAN_TOP_LEVEL_DOMAINS = 'com ro org md net';

const LOCAL_PART = '(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+';
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const END = '(?![A-Za-z0-9-])';
/** ` . `, ` .com`, and `. com` before a lower-case letter or a digit. */
const SPACED_DOT = '(?:\\s+\\.\\s*|\\.\\s+(?=[a-z0-9]))';

/** `LABEL (DOT LABEL)* DOT TLD`, the domain after the `@`. */
function domain(dot: string, topLevelDomains: string): string {
  return `${LABEL}(?:${dot}${LABEL})*${dot}${oneOf(topLevelDomains)}${END}`;
}

const LOOSE_ADDRESS = new RegExp(
  LOCAL_PART +
    '(?:' +
    [
      `\\s*@\\s*${domain(`(?:${SPACED_DOT}|\\.|${spelled('dot punto punkt')})`, [...TOP_LEVEL_DOMAINS].join(' '))}`,
      `${spelled('at arroba chiocciola')}${domain(`(?:${SPACED_DOT}|${spelled('dot punto punkt')})`, SPELLED_TOP_LEVEL_DOMAINS)}`,
      `\\s+${caseless('la')}\\s+${domain(`(?:${SPACED_DOT}|${spelled('punct')})`, ROMANIAN_TOP_LEVEL_DOMAINS)}`,
    ].join('|') +
    ')',
  'g',
);

/** Start (inclusive) and end (exclusive) of each loosely written address, leftmost first. */
export function looseAddressSpans(text: string): [number, number][] {
  return [...text.matchAll(LOOSE_ADDRESS)].map((match) => [match.index, match.index + match[0].length]);
}
