import { jsonPointer } from '../json-pointer.ts';
import type { ParameterError } from '../problems.ts';
import type { PropertyInput } from './source.ts';
import { sourceLanguage, textMapViolations } from './text.ts';

/** A write names a record (by its reference) that does not exist. */
export function unknownReference(pointer: string, what: string, ref: string): ParameterError {
  return { detail: `no ${what} with reference "${ref}"`, code: 'unknown_reference', pointer };
}

/**
 * Text maps of a property checked against the source language of its location's country; with
 * `country` null, every rule but the source language, so the check needs no database and runs
 * before any transaction opens.
 */
export function propertyTextErrors(property: PropertyTexts, country: string | null): ParameterError[] {
  const language = country === null ? null : sourceLanguage(country);
  return textMaps(property).flatMap(([path, map]) =>
    textMapViolations(map, language).map((violation) => ({
      detail:
        violation.rule === 'source_language_missing'
          ? `the text must include the source language \`${language}\``
          : `text breaks the rule \`${violation.rule}\``,
      code: violation.rule === 'source_language_missing' ? 'source_language_missing' : `text_${violation.rule}`,
      pointer: jsonPointer(violation.language === undefined ? path : [...path, violation.language]),
    })),
  );
}

/** Only the source-language rule: each text map must hold the source language of the country. */
export function propertySourceLanguageErrors(property: PropertyTexts, country: string): ParameterError[] {
  const language = sourceLanguage(country);
  return textMaps(property)
    .filter(([, map]) => typeof map === 'object' && map !== null && !Object.hasOwn(map, language))
    .map(([path]) => ({
      detail: `the text must include the source language \`${language}\``,
      code: 'source_language_missing',
      pointer: jsonPointer(path),
    }));
}

/**
 * The fields of a property that hold texts. Any may be left out (of a write whose shape was
 * refused there): its texts are then not checked.
 */
export type PropertyTexts = Partial<Pick<PropertyInput, 'name' | 'description' | 'photos' | 'rate_plans'>>;

function textMaps(property: PropertyTexts): [PropertyKey[], unknown][] {
  return [
    ...(['name', 'description'] as const).flatMap((field): [PropertyKey[], unknown][] =>
      property[field] === undefined ? [] : [[[field], property[field]]],
    ),
    ...(property.photos ?? []).flatMap((photo, i): [PropertyKey[], unknown][] =>
      photo.caption === null ? [] : [[['photos', i, 'caption'], photo.caption]],
    ),
    ...(property.rate_plans ?? []).map((plan, i): [PropertyKey[], unknown] => [['rate_plans', i, 'name'], plan.name]),
  ];
}
