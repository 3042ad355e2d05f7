import type { HostLocale } from '../../domain/host-locale.ts';
import { formatMessage, type MessageValues, type TableOf } from './i18n.ts';
import { esListings } from './texts-es.ts';
import { itListings } from './texts-it.ts';

/**
 * The texts of the listings dashboard in English, Romanian, Italian and Spanish (kept beside the
 * framework's table in i18n.ts, with the same rules: the other tables are typed by the English
 * one; a plural text has a form per plural category, chosen by `count`). `{name}` marks a value
 * given at the call.
 */
const en = {
  nav: 'Listings',
  'overview.title': 'Listings on channels',
  'overview.intro':
    'What each channel reported about your properties: whether the listing is live, its public address, its promotion and any rejection.',
  'overview.none': 'This organization has no properties yet.',
  'overview.showing': { one: 'One property', other: 'Properties {from}–{to} of {count}' },
  'overview.none_matching': 'No property matches these filters.',
  'filter.title': 'Filter the properties',
  'filter.channel': 'Channel',
  'filter.any_channel': 'All channels',
  'filter.status': 'Last report',
  'filter.any_status': 'Any',
  'filter.no_report': 'No report yet',
  'filter.withdrawn': 'Withdrawn by a channel',
  'filter.apply': 'Show',
  'filter.clear': 'Show all properties',
  'pager.label': 'Pages of properties',
  'pager.previous': 'Previous page',
  'pager.next': 'Next page',
  'pager.position': 'Page {page} of {pages}',
  'attention.title': 'To act on',
  'attention.none': 'Nothing needs your attention now.',
  'attention.withdrawn_certificate':
    '{property} was withdrawn from {channel}: its classification certificate is no longer valid. Renew it on your platform.',
  'attention.withdrawn_other':
    '{property} was withdrawn from {channel}: it cannot be published as it is. Check it on your platform.',
  'attention.rejected': '{channel} rejected the listing of {property}. Reason: {reason}. Correct it on your platform.',
  'attention.expiring':
    'The certificate of {property} lapses on {date}: it will then be withdrawn from {channels}. Renew it before then.',
  'attention.not_connected': {
    one: '{owner} is not connected to {channel}, which lists one of their properties. Connect them on the owners page.',
    other:
      '{owner} is not connected to {channel}, which lists {count} of their properties. Connect them on the owners page.',
  },
  'attention.owners_link': 'Owners and channels',
  'attention.more': {
    one: 'One more item to act on is not listed here.',
    other: '{count} more items to act on are not listed here.',
  },
  'attention.more_rejected': 'Every listing {channel} rejected',
  'attention.more_withdrawn': 'Every property a channel withdrew',
  'status.published': 'Published',
  'status.unpublished': 'Unpublished',
  'status.pending_review': 'In review',
  'status.rejected': 'Rejected',
  'status.other': 'Reported as “{status}”',
  'field.status': 'Status',
  'field.url': 'Public address',
  'field.promotion': 'Promotion',
  'field.rejection': 'Rejection',
  'field.updated': 'Reported',
  'report.none': 'No report from {channel} yet.',
  'report.open': 'Open the listing on {channel}',
  'report.no_url': 'None',
  'promotion.none': 'Not promoted',
  'promotion.until': 'Promoted until {when}',
  'promotion.open': 'Promoted, no end date',
  'rejection.reason': 'Reason: {reason}',
  'reason.photos': 'Photos',
  'reason.description': 'Description',
  'reason.legal': 'Legal data',
  'reason.duplicate': 'Duplicate of another listing',
  'reason.other': 'the channel’s code “{code}”',
  'rejection.no_text': 'The channel gave no explanation.',
  'updated.text': 'In this state since {since}; last report {received}',
  'visibility.withdrawn': 'Withdrawn from this channel',
  'visibility.deleted': 'Deleted',
  'visibility.pending': 'Not shown to the channel yet',
  'visibility.not_distributed': 'No longer distributed to this channel',
  'property.none_distributed': 'This property is not distributed to any channel.',
  'property.details': 'History and statistics',
  'property.back': 'Back to listings',
  'history.title': 'Report history',
  'history.changed': 'Changed',
  'chart.title': 'Views and clicks, last 30 days',
  'chart.label': '{channel}: views and clicks to booking per day, {from} to {to}',
  'chart.summary': '{views} and {clicks} over {days}; most views in a day: {max}.',
  'chart.count_views': { one: '{count} view', other: '{count} views' },
  'chart.count_clicks': { one: '{count} click to booking', other: '{count} clicks to booking' },
  'chart.count_days': { one: '{count} reported day', other: '{count} reported days' },
  'chart.views_axis': 'Views (most in a day: {max})',
  'chart.clicks_axis': 'Clicks to booking (most in a day: {max})',
  'chart.none': 'No statistics from {channel} in the last 30 days.',
  'chart.views': 'Views',
  'chart.clicks': 'Clicks to booking',
  'chart.table': 'The figures as a table',
  'chart.date': 'Date',
  'chart.no_report': 'no report',
  'bookings.title': 'Bookings',
  'bookings.body': 'Bookings from channels are not part of this service yet.',
} as const;

export type ListingsTextKey = keyof typeof en;
export type EnglishListingsTexts = typeof en;
export const LISTINGS_TEXT_KEYS = Object.keys(en) as ListingsTextKey[];

const ro: TableOf<typeof en> = {
  nav: 'Anunțuri',
  'overview.title': 'Anunțuri pe canale',
  'overview.intro':
    'Ce a raportat fiecare canal despre proprietățile dumneavoastră: dacă anunțul este publicat, adresa lui publică, promovarea și eventuala respingere.',
  'overview.none': 'Această organizație nu are încă proprietăți.',
  'overview.showing': {
    one: 'O proprietate',
    few: 'Proprietățile {from}–{to} din {count}',
    other: 'Proprietățile {from}–{to} din {count}',
  },
  'overview.none_matching': 'Nicio proprietate nu corespunde acestor filtre.',
  'filter.title': 'Filtrați proprietățile',
  'filter.channel': 'Canal',
  'filter.any_channel': 'Toate canalele',
  'filter.status': 'Ultimul raport',
  'filter.any_status': 'Oricare',
  'filter.no_report': 'Încă fără raport',
  'filter.withdrawn': 'Retrase de un canal',
  'filter.apply': 'Afișează',
  'filter.clear': 'Afișează toate proprietățile',
  'pager.label': 'Paginile proprietăților',
  'pager.previous': 'Pagina anterioară',
  'pager.next': 'Pagina următoare',
  'pager.position': 'Pagina {page} din {pages}',
  'attention.title': 'De rezolvat',
  'attention.none': 'Nimic nu necesită atenția dumneavoastră acum.',
  'attention.withdrawn_certificate':
    'Proprietatea {property} a fost retrasă de pe {channel}: certificatul de clasificare nu mai este valabil. Reînnoiți-l în platformă.',
  'attention.withdrawn_other':
    'Proprietatea {property} a fost retrasă de pe {channel}: nu poate fi publicată așa cum este. Verificați-o în platformă.',
  'attention.rejected':
    '{channel} a respins anunțul proprietății {property}. Motiv: {reason}. Corectați-l în platformă.',
  'attention.expiring':
    'Certificatul proprietății {property} expiră pe {date}: atunci proprietatea va fi retrasă de pe {channels}. Reînnoiți-l înainte de această dată.',
  'attention.not_connected': {
    one: 'Nu există încă o conexiune între {owner} și {channel}, care listează una dintre proprietățile acestui proprietar. Creați-o din pagina proprietarilor.',
    other:
      'Nu există încă o conexiune între {owner} și {channel}, care listează {count} dintre proprietățile acestui proprietar. Creați-o din pagina proprietarilor.',
  },
  'attention.owners_link': 'Proprietari și canale',
  // Romanian puts "de" between a count and its noun when the count's last two digits are 0 or 20-99.
  'attention.more': {
    one: 'Încă un element de rezolvat nu este afișat aici.',
    few: 'Încă {count} elemente de rezolvat nu sunt afișate aici.',
    other: 'Încă {count} de elemente de rezolvat nu sunt afișate aici.',
  },
  'attention.more_rejected': 'Toate anunțurile respinse de {channel}',
  'attention.more_withdrawn': 'Toate proprietățile retrase de un canal',
  'status.published': 'Publicat',
  'status.unpublished': 'Nepublicat',
  'status.pending_review': 'În verificare',
  'status.rejected': 'Respins',
  'status.other': 'Raportat ca „{status}”',
  'field.status': 'Stare',
  'field.url': 'Adresă publică',
  'field.promotion': 'Promovare',
  'field.rejection': 'Respingere',
  'field.updated': 'Raportat',
  'report.none': 'Niciun raport de la {channel} încă.',
  'report.open': 'Deschideți anunțul pe {channel}',
  'report.no_url': 'Niciuna',
  'promotion.none': 'Nepromovat',
  'promotion.until': 'Promovat până la {when}',
  'promotion.open': 'Promovat, fără dată de încheiere',
  'rejection.reason': 'Motiv: {reason}',
  'reason.photos': 'Fotografii',
  'reason.description': 'Descriere',
  'reason.legal': 'Date legale',
  'reason.duplicate': 'Duplicat al altui anunț',
  'reason.other': 'codul canalului „{code}”',
  'rejection.no_text': 'Canalul nu a dat nicio explicație.',
  'updated.text': 'În această stare din {since}; ultimul raport {received}',
  'visibility.withdrawn': 'Retrasă de pe acest canal',
  'visibility.deleted': 'Ștearsă',
  'visibility.pending': 'Încă neafișată canalului',
  'visibility.not_distributed': 'Nu mai este distribuită pe acest canal',
  'property.none_distributed': 'Această proprietate nu este distribuită pe niciun canal.',
  'property.details': 'Istoric și statistici',
  'property.back': 'Înapoi la anunțuri',
  'history.title': 'Istoricul rapoartelor',
  'history.changed': 'Modificat',
  'chart.title': 'Vizualizări și clicuri, ultimele 30 de zile',
  'chart.label': '{channel}: vizualizări și clicuri spre rezervare pe zi, {from} – {to}',
  'chart.summary': '{views} și {clicks} în {days}; cele mai multe vizualizări într-o zi: {max}.',
  // Romanian puts "de" between a count and its noun when the count's last two digits are 0 or 20-99.
  'chart.count_views': { one: '{count} vizualizare', few: '{count} vizualizări', other: '{count} de vizualizări' },
  'chart.count_clicks': {
    one: '{count} clic spre rezervare',
    few: '{count} clicuri spre rezervare',
    other: '{count} de clicuri spre rezervare',
  },
  'chart.count_days': {
    one: '{count} zi raportată',
    few: '{count} zile raportate',
    other: '{count} de zile raportate',
  },
  'chart.views_axis': 'Vizualizări (cele mai multe într-o zi: {max})',
  'chart.clicks_axis': 'Clicuri spre rezervare (cele mai multe într-o zi: {max})',
  'chart.none': 'Nicio statistică de la {channel} în ultimele 30 de zile.',
  'chart.views': 'Vizualizări',
  'chart.clicks': 'Clicuri spre rezervare',
  'chart.table': 'Cifrele sub formă de tabel',
  'chart.date': 'Data',
  'chart.no_report': 'fără raport',
  'bookings.title': 'Rezervări',
  'bookings.body': 'Rezervările venite de pe canale nu fac încă parte din acest serviciu.',
};

const TEXTS: Record<HostLocale, TableOf<typeof en>> = { en, ro, it: itListings, es: esListings };

export type ListingsTranslate = (key: ListingsTextKey, values?: MessageValues) => string;

export function listingsTexts(locale: HostLocale): ListingsTranslate {
  const table = TEXTS[locale];
  return (key, values) => formatMessage(locale, table[key], values);
}

/** A property's name in the host's language, else English, else its first language, else its reference. */
export function propertyName(name: Record<string, string> | null | undefined, locale: HostLocale, ref: string): string {
  return name?.[locale] ?? name?.en ?? Object.values(name ?? {})[0] ?? ref;
}

/** The reasons the served description names for a rejection (`rejection.reason`), each with a text of its own. */
export const KNOWN_REJECTION_REASONS = ['photos', 'description', 'legal', 'duplicate'] as const;

/**
 * A rejection's reason in the host's language: a known code by its text, any other (the enum is
 * open, a channel may send a word of its own) as the channel's code, quoted and said to be one.
 */
export function rejectionReason(code: string, tl: ListingsTranslate): string {
  return (KNOWN_REJECTION_REASONS as readonly string[]).includes(code)
    ? tl(`reason.${code}` as ListingsTextKey)
    : tl('reason.other', { code });
}
