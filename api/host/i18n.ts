import type { HostLocale } from '../../domain/host-locale.ts';
import { formatNumber, pluralCategory } from './formats.ts';
import { es } from './texts-es.ts';
import { it } from './texts-it.ts';

/**
 * Every text of the host pages, in English, Romanian, Italian (texts-it.ts) and Spanish
 * (texts-es.ts). A page asks for a key; the other tables are typed by the English one, so a key
 * missing in one language does not compile. `{name}` marks a value given at the call (escaped by
 * the `html` tag, like any other text); a number given is written in the language's format.
 */
const en = {
  'app.name': 'Distribution for hosts',
  'layout.skip': 'Skip to content',
  'layout.organization': 'Organization: {name}',
  'layout.nav': 'Host pages',
  'layout.owners': 'Owners and channels',
  'layout.language': 'Language',
  'layout.change_language': 'Change language',
  'layout.sign_out': 'Sign out',
  'layout.footer': 'Pages of the distribution service, opened through your platform.',
  'owners.title': 'Owners and channels',
  'owners.intro':
    'Each owner of your organization, with the channels its properties are distributed to. Connect an owner to link it to its account on a channel.',
  'owners.none': 'This organization has no owners yet.',
  'owners.no_channels': "None of this owner's properties is distributed to a channel yet.",
  'owners.channel': 'Channel',
  'owners.state': 'Connection',
  'owners.action': 'Action',
  'owners.connected': 'Connected since {when}',
  'owners.not_connected': 'Not connected',
  'owners.connect': 'Connect',
  'owners.connect_again': 'Connect again',
  'owners.channel_suspended': '(channel suspended: connecting is paused)',
  'handoff.title': 'Taking you to {channel}',
  'signed_out.title': 'You are signed out',
  'signed_out.body': 'To come back, open the host pages again from your platform.',
  'link.used.title': 'This link was already used',
  'link.used.body': 'A sign-in link works once. Open the host pages again from your platform to get a new one.',
  'link.expired.title': 'This link has expired',
  'link.expired.body':
    'A sign-in link is valid for 5 minutes. Open the host pages again from your platform to get a new one.',
  'link.unknown.title': 'This link is not valid',
  'link.unknown.body': 'Check that you opened the whole link, or open the host pages again from your platform.',
  'switch.title': 'Switch organization?',
  'switch.body':
    'You are signed in to {current}. This link signs you in to {next} instead: continuing signs you out of {current}.',
  'switch.continue': 'Continue as {next}',
  'switch.stay': 'Stay in {current}',
  'session.ended.title': 'Your session has ended',
  'session.ended.body':
    'Sessions end after 8 hours without activity, 12 hours after sign-in, or when you sign out. Open the host pages again from your platform.',
  'form.expired.title': 'This form is no longer valid',
  'form.expired.body': 'Go back to the owners, reload the page and try again.',
  'form.invalid.title': 'This request cannot be read',
  'form.invalid.body':
    'It holds a character no text may contain (U+0000), in: {fields}. Go back and send it again without it.',
  'form.unreadable.title': 'The form could not be read',
  'form.unreadable.body':
    'Your browser sent a form this page does not accept. Go back, reload the page and send it again.',
  'not_found.title': 'Page not found',
  'not_found.body': 'There is no such page for your organization.',
  'error.title': 'Something went wrong',
  'error.body': 'Try again in a moment. If it keeps happening, quote this reference: {reference}.',
  'unavailable.title': 'Not available right now',
  'unavailable.body': 'This part of the service cannot be reached at the moment. Try again in a moment.',
  'back.owners': 'Back to owners and channels',
  'connect.not_configured.title': 'This channel does not take connections yet',
  'connect.not_configured.body':
    'The channel has not set up owner connection with the service. Try again later or contact the channel.',
  'connect.suspended.title': 'This channel is suspended',
  'connect.suspended.body':
    'The channel cannot take new connections while it is suspended. Try again once it is reinstated.',
  'connect.not_distributed.title': 'Nothing to connect on this channel',
  'connect.not_distributed.body':
    "None of this owner's properties is listed on the channel right now (a property may be waiting for its legal data). Connect it once a property is listed.",
  'connect.too_many.title': 'Too many connections started',
  'connect.too_many.body': 'Connections were started too often in a short time. Try again in {seconds} s.',
} as const;

export type MessageKey = keyof typeof en;
export type EnglishMessages = typeof en;
export const MESSAGE_KEYS = Object.keys(en) as MessageKey[];

const ro: TableOf<typeof en> = {
  'app.name': 'Distribuție pentru gazde',
  'layout.skip': 'Sari la conținut',
  'layout.organization': 'Organizație: {name}',
  'layout.nav': 'Pagini pentru gazde',
  'layout.owners': 'Proprietari și canale',
  'layout.language': 'Limba',
  'layout.change_language': 'Schimbă limba',
  'layout.sign_out': 'Ieșire',
  'layout.footer': 'Pagini ale serviciului de distribuție, deschise prin platforma dumneavoastră.',
  'owners.title': 'Proprietari și canale',
  'owners.intro':
    'Fiecare proprietar al organizației, cu canalele pe care îi sunt distribuite proprietățile. Conectați un proprietar pentru a-l lega de contul său de pe un canal.',
  'owners.none': 'Această organizație nu are încă proprietari.',
  'owners.no_channels': 'Nicio proprietate a acestui proprietar nu este încă distribuită pe un canal.',
  'owners.channel': 'Canal',
  'owners.state': 'Conexiune',
  'owners.action': 'Acțiune',
  'owners.connected': 'Conexiune activă din {when}',
  'owners.not_connected': 'Fără conexiune',
  'owners.connect': 'Conectează',
  'owners.connect_again': 'Conectează din nou',
  'owners.channel_suspended': '(canal suspendat: conectarea este oprită)',
  'handoff.title': 'Vă ducem la {channel}',
  'signed_out.title': 'Ați ieșit',
  'signed_out.body': 'Pentru a reveni, deschideți din nou paginile pentru gazde din platforma dumneavoastră.',
  'link.used.title': 'Acest link a fost deja folosit',
  'link.used.body':
    'Un link de autentificare funcționează o singură dată. Deschideți din nou paginile pentru gazde din platformă pentru a primi unul nou.',
  'link.expired.title': 'Acest link a expirat',
  'link.expired.body':
    'Un link de autentificare este valabil 5 minute. Deschideți din nou paginile pentru gazde din platformă pentru a primi unul nou.',
  'link.unknown.title': 'Acest link nu este valid',
  'link.unknown.body':
    'Verificați că ați deschis linkul întreg sau deschideți din nou paginile pentru gazde din platformă.',
  'switch.title': 'Schimbați organizația?',
  'switch.body':
    'Sunteți în sesiunea organizației {current}. Acest link deschide sesiunea organizației {next}: dacă continuați, ieșiți din {current}.',
  'switch.continue': 'Continuați ca {next}',
  'switch.stay': 'Rămâneți în {current}',
  'session.ended.title': 'Sesiunea s-a încheiat',
  'session.ended.body':
    'O sesiune se încheie după 8 ore de inactivitate, la 12 ore după autentificare sau când ieșiți. Deschideți din nou paginile pentru gazde din platformă.',
  'form.expired.title': 'Acest formular nu mai este valabil',
  'form.expired.body': 'Reveniți la proprietari, reîncărcați pagina și încercați din nou.',
  'form.invalid.title': 'Această cerere nu poate fi citită',
  'form.invalid.body':
    'Conține un caracter pe care niciun text nu îl poate conține (U+0000), în: {fields}. Reveniți și trimiteți-o din nou fără el.',
  'form.unreadable.title': 'Formularul nu a putut fi citit',
  'form.unreadable.body':
    'Browserul a trimis un formular pe care această pagină nu îl acceptă. Reveniți, reîncărcați pagina și trimiteți-l din nou.',
  'not_found.title': 'Pagină negăsită',
  'not_found.body': 'Nu există o astfel de pagină pentru organizația dumneavoastră.',
  'error.title': 'A apărut o eroare',
  'error.body':
    'Încercați din nou peste câteva momente. Dacă problema persistă, menționați această referință: {reference}.',
  'unavailable.title': 'Indisponibil momentan',
  'unavailable.body': 'Această parte a serviciului nu poate fi accesată acum. Încercați din nou peste câteva momente.',
  'back.owners': 'Înapoi la proprietari și canale',
  'connect.not_configured.title': 'Acest canal nu acceptă încă conexiuni',
  'connect.not_configured.body':
    'Canalul nu a configurat conectarea proprietarilor cu serviciul. Încercați mai târziu sau contactați canalul.',
  'connect.suspended.title': 'Acest canal este suspendat',
  'connect.suspended.body':
    'Canalul nu poate accepta conexiuni noi cât timp este suspendat. Încercați din nou după ce este reactivat.',
  'connect.not_distributed.title': 'Nimic de conectat pe acest canal',
  'connect.not_distributed.body':
    'Nicio proprietate a acestui proprietar nu este listată acum pe canal (o proprietate poate aștepta datele legale). Conectați-l după ce o proprietate este listată.',
  'connect.too_many.title': 'Prea multe conectări pornite',
  'connect.too_many.body':
    'Conectările au fost pornite prea des într-un timp scurt. Încercați din nou peste {seconds} s.',
};

const MESSAGES: Record<HostLocale, TableOf<typeof en>> = { en, ro, it, es };

/** Each language named in itself, for the language switch. */
export const LOCALE_NAMES: Record<HostLocale, string> = { en: 'English', ro: 'Română', it: 'Italiano', es: 'Español' };

/**
 * A text that depends on a count: a form per plural category of the language (CLDR: English has
 * `one`, Romanian `one`/`few`/`other`, Italian and Spanish `one`/`many`/`other`), chosen by the
 * value `count`; `other` is always there and stands in for a category a table leaves out.
 */
export type Plural = Readonly<Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }>;

/** Another language's table for the keys of an English one: a plain text stays plain, a plural stays plural. */
export type TableOf<T> = { readonly [K in keyof T]: T[K] extends string ? string : Plural };

export type MessageValues = Readonly<Record<string, string | number>>;

/** Fills a text's `{name}` places (numbers in the language's format), choosing a plural's form first. */
export function formatMessage(locale: HostLocale, text: string | Plural, values: MessageValues = {}): string {
  let template: string;
  if (typeof text === 'string') template = text;
  else {
    const count = values.count;
    if (typeof count !== 'number') throw new TypeError('a plural text needs a numeric count');
    template = text[pluralCategory(locale, count)] ?? text.other;
  }
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name]!;
    return typeof value === 'number' ? formatNumber(locale, value) : value;
  });
}

export type Translate = (key: MessageKey, values?: MessageValues) => string;

export function translator(locale: HostLocale): Translate {
  const table = MESSAGES[locale];
  return (key, values) => formatMessage(locale, table[key], values);
}
