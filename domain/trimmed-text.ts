import { z } from 'zod';

/**
 * The characters `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator), spelt
 * out: `\s` means another set in the regular expressions of other languages (Python's counts
 * U+001C-U+001F and not U+FEFF), and the pattern is read by the clients of the description too.
 */
const WHITE_SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** Unicode's control characters (general category Cc), spelt out for the same reason. */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';

const SOMETHING = new RegExp(`[^${WHITE_SPACE}]`);
const CONTROL_CHARACTER = new RegExp(`[${CONTROL}]`);
const SOMETHING_NO_CONTROL = new RegExp(`^[^${CONTROL}]*[^${CONTROL}${WHITE_SPACE}][^${CONTROL}]*$`);

/**
 * A text field stored trimmed. Its rules are checked on the string as sent, so the description
 * can state them all (`maxLength`, and a `pattern` asking for a character other than white
 * space): a text whose trimmed form would fit but which does not as sent is refused, as its schema
 * says. White space alone is refused with the rule `min`, like the empty string it trims to.
 * `controlCharacters: false` also refuses control characters (rule `control_character`), stated
 * in the same pattern.
 */
export function trimmedText(max: number, options: { controlCharacters?: boolean } = {}) {
  const noControl = options.controlCharacters === false;
  let text = z
    .string()
    .min(1, 'must not be empty')
    .max(max)
    .refine((value) => value === '' || SOMETHING.test(value), {
      message: 'must hold a character other than white space',
      params: { code: 'min' },
    });
  if (noControl)
    text = text.refine((value) => !CONTROL_CHARACTER.test(value), {
      message: 'must not contain control characters',
      params: { code: 'control_character' },
    });
  return text.trim().meta({ pattern: (noControl ? SOMETHING_NO_CONTROL : SOMETHING).source });
}
