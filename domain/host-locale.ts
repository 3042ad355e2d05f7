import { pickLanguage } from './problems.ts';

/**
 * The languages the host pages are written in: those of the demo catalogue's hosts (Romania,
 * Italy, Spain) and English for everyone else. Problem titles of the API keep their own two.
 */
export const HOST_LOCALES = ['en', 'ro', 'it', 'es'] as const;
export type HostLocale = (typeof HOST_LOCALES)[number];

/** A BCP 47 language tag as the platform sends it: `ro`, `ro-RO`, `en-GB`, `sr-Latn-RS`. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,4}$/;

/**
 * The host pages' language for a tag: its primary subtag when the pages are written in it
 * (`ro-RO` → `ro`), English otherwise or when no tag is given.
 */
export function resolveHostLocale(tag: string | null | undefined): HostLocale {
  const primary = (tag ?? '').split('-')[0]!.toLowerCase();
  return (HOST_LOCALES as readonly string[]).includes(primary) ? (primary as HostLocale) : 'en';
}

/** The host pages' language for a browser without a session, from its Accept-Language. */
export function negotiateHostLocale(acceptLanguage: string | undefined): HostLocale {
  return pickLanguage(acceptLanguage, HOST_LOCALES);
}

export function isHostLocale(value: unknown): value is HostLocale {
  return typeof value === 'string' && (HOST_LOCALES as readonly string[]).includes(value);
}
