import { LANGUAGES, type Language } from './problems.ts';

/** The languages the host pages are written in (the same two as the problem titles). */
export const HOST_LOCALES = LANGUAGES;
export type HostLocale = Language;

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

export function isHostLocale(value: unknown): value is HostLocale {
  return typeof value === 'string' && (HOST_LOCALES as readonly string[]).includes(value);
}
