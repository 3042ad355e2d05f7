import { z } from 'zod';
import { Ref } from './catalogue/source.ts';
import { trimmedText } from './trimmed-text.ts';

/**
 * A guest as the platform writes it. Names are trimmed and must keep something printable; the
 * e-mail address and the phone number (E.164: `+`, country code, 7 to 15 digits in all) are
 * checked here so that nothing malformed is stored.
 */
// Control characters would break the CSV and vCard exports apps build from these fields.
const PersonName = trimmedText(100, { controlCharacters: false });

export const E164 = /^\+[1-9][0-9]{6,14}$/;

export const GuestInput = z
  .object({
    organization: Ref.meta({ description: "The organization's reference." }),
    first_name: PersonName,
    last_name: PersonName,
    email: z.email({ message: 'must be an e-mail address' }).max(254),
    phone: z
      .string()
      .regex(E164, { message: 'must be an E.164 number: +, country code and number, 7 to 15 digits, no spaces' }),
  })
  .strict()
  .meta({ id: 'GuestInput' });

export type GuestInput = z.infer<typeof GuestInput>;

/**
 * The two composed names an app reads: `full_name` is the name as written, given name first
 * ("Ana Popescu"), for salutations and documents; `name` is the sorting form, family name first
 * ("Popescu, Ana"), for directories and alphabetical lists.
 */
export function guestNames(guest: { first_name: string; last_name: string }): { name: string; full_name: string } {
  return { name: `${guest.last_name}, ${guest.first_name}`, full_name: `${guest.first_name} ${guest.last_name}` };
}
