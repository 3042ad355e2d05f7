/**
 * The host-facing texts of the app's pages in the languages the service's host pages are written
 * in (English, Romanian, Italian, Spanish), chosen by the owner-connect token's `locale` claim (the
 * host's interface language, BCP 47, may be absent), else the browser's `Accept-Language`, else
 * English. Each text is phrased so that it agrees whatever the owner's name: the owner is never
 * the subject of an adjective ("the listings of X are connected", not "X is connected").
 * `{name}` marks a value the page puts in, escaped.
 */

export const LANGUAGES = ['en', 'ro', 'it', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The Intl locale of each language (British English: day before month, 24-hour clock). */
const INTL_LOCALE: Record<Language, string> = { en: 'en-GB', ro: 'ro-RO', it: 'it-IT', es: 'es-ES' };

const en = {
  'confirm.title': 'Connect {name}?',
  'confirm.owner': 'Owner: {name}',
  'confirm.question': 'Link the listings of {name} to your {channel} account {account}?',
  'confirm.button': 'Confirm',
  'confirm.not_you': 'If you did not ask for this, close this page: nothing is linked.',
  'connected.title': 'Connected',
  'connected.body': 'The listings of {name} have been connected to your {channel} account since {when}.',
  'refused.title': 'Not connected',
  'refused.no_token': 'No token was received.',
  'refused.token': 'This connection link cannot be used. Start again from your platform.',
  'refused.not_listed': 'This owner is not listed on this channel.',
  'refused.other_browser': 'This confirmation did not come from the page we showed you.',
  'refused.expired': 'This confirmation has expired. Start again from your platform.',
  'refused.by_service': 'The service refused the connection ({code}).',
  'refused.unreachable': 'The distribution service could not be reached. Try again.',
} as const;

export type TextKey = keyof typeof en;

const ro: Record<TextKey, string> = {
  'confirm.title': 'Conectați {name}?',
  'confirm.owner': 'Proprietar: {name}',
  'confirm.question': 'Legați anunțurile de la {name} de contul dumneavoastră {channel} {account}?',
  'confirm.button': 'Confirmați',
  'confirm.not_you': 'Dacă nu ați cerut acest lucru, închideți pagina: nu se leagă nimic.',
  'connected.title': 'Conectare reușită',
  'connected.body': 'Anunțurile de la {name} sunt conectate la contul dumneavoastră {channel} din {when}.',
  'refused.title': 'Conectarea nu s-a făcut',
  'refused.no_token': 'Nu s-a primit niciun token.',
  'refused.token': 'Acest link de conectare nu poate fi folosit. Reîncepeți din platforma dumneavoastră.',
  'refused.not_listed': 'Acest proprietar nu figurează pe acest canal.',
  'refused.other_browser': 'Această confirmare nu vine de la pagina pe care v-am arătat-o.',
  'refused.expired': 'Această confirmare a expirat. Reîncepeți din platforma dumneavoastră.',
  'refused.by_service': 'Serviciul a refuzat conectarea ({code}).',
  'refused.unreachable': 'Serviciul de distribuție nu a putut fi contactat. Încercați din nou.',
};

const it: Record<TextKey, string> = {
  'confirm.title': 'Collegare {name}?',
  'confirm.owner': 'Proprietario: {name}',
  'confirm.question': 'Collegare gli annunci di {name} al Suo account {channel} {account}?',
  'confirm.button': 'Conferma',
  'confirm.not_you': "Se non l'ha chiesto Lei, chiuda questa pagina: non viene collegato nulla.",
  'connected.title': 'Collegamento riuscito',
  'connected.body': 'Gli annunci di {name} sono collegati al Suo account {channel} dal {when}.',
  'refused.title': 'Collegamento non riuscito',
  'refused.no_token': 'Non è stato ricevuto alcun token.',
  'refused.token': 'Questo link di collegamento non può essere usato. Ricominci dalla Sua piattaforma.',
  'refused.not_listed': 'Questo proprietario non è presente su questo canale.',
  'refused.other_browser': 'Questa conferma non proviene dalla pagina che Le abbiamo mostrato.',
  'refused.expired': 'Questa conferma è scaduta. Ricominci dalla Sua piattaforma.',
  'refused.by_service': 'Il servizio ha rifiutato il collegamento ({code}).',
  'refused.unreachable': 'Non è stato possibile raggiungere il servizio di distribuzione. Riprovi.',
};

const es: Record<TextKey, string> = {
  'confirm.title': '¿Conectar {name}?',
  'confirm.owner': 'Propietario: {name}',
  'confirm.question': '¿Vincular los anuncios de {name} con su cuenta de {channel} {account}?',
  'confirm.button': 'Confirmar',
  'confirm.not_you': 'Si no lo ha pedido usted, cierre esta página: no se vincula nada.',
  'connected.title': 'Conexión realizada',
  'connected.body': 'Los anuncios de {name} están conectados con su cuenta de {channel} desde el {when}.',
  'refused.title': 'Conexión no realizada',
  'refused.no_token': 'No se ha recibido ningún token.',
  'refused.token': 'Este enlace de conexión no se puede usar. Vuelva a empezar desde su plataforma.',
  'refused.not_listed': 'Este propietario no figura en este canal.',
  'refused.other_browser': 'Esta confirmación no procede de la página que le mostramos.',
  'refused.expired': 'Esta confirmación ha caducado. Vuelva a empezar desde su plataforma.',
  'refused.by_service': 'El servicio ha rechazado la conexión ({code}).',
  'refused.unreachable': 'No se ha podido contactar con el servicio de distribución. Vuelva a intentarlo.',
};

const TEXTS: Record<Language, Record<TextKey, string>> = { en, ro, it, es };

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The text `key` in `language` as HTML: the text escaped, each `{name}` replaced by the HTML given
 * for it (values given as plain strings are escaped).
 */
export function text(language: Language, key: TextKey, values: Record<string, string | { html: string }> = {}): string {
  return TEXTS[language][key]
    .split(/(\{\w+\})/)
    .map((part) => {
      const value = /^\{\w+\}$/.test(part) ? values[part.slice(1, -1)] : undefined;
      if (value === undefined) return escapeHtml(part);
      return typeof value === 'string' ? escapeHtml(value) : value.html;
    })
    .join('');
}

/** The language for a BCP 47 tag (`ro-RO` → `ro`), or undefined when the pages are not written in it. */
export function languageOf(tag: string | undefined): Language | undefined {
  const primary = (tag ?? '').split('-')[0]!.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : undefined;
}

/**
 * An instant for people, in the language's format, with its zone named:
 * `28 noiembrie 2026 la 15:04 UTC`. `timeZone` is the signed-in account's (IANA), UTC by default.
 */
export function formatInstant(language: Language, instant: string, timeZone = 'UTC'): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return new Intl.DateTimeFormat(INTL_LOCALE[language], {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(date);
}
