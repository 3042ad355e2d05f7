import { jsonPointer } from '../json-pointer.ts';
import type { ParameterError } from '../problems.ts';
import type { PropertyInput } from './source.ts';
import { sourceLanguage, textMapViolations } from './text.ts';

/** A write names a record (by its reference) that does not exist. */
export function unknownReference(pointer: string, what: string, ref: string): ParameterError {
  return { detail: `no ${what} with reference "${ref}"`, code: 'unknown_reference', pointer };
}

/** Text maps of a property checked against the source language of its location's country. */
export function propertyTextErrors(property: PropertyInput, country: string): ParameterError[] {
  const language = sourceLanguage(country);
  const maps: [PropertyKey[], unknown][] = [
    [['name'], property.name],
    [['description'], property.description],
    ...property.photos.flatMap((photo, i): [PropertyKey[], unknown][] => (photo.caption === null ? [] : [[['photos', i, 'caption'], photo.caption]])),
    ...property.rate_plans.map((plan, i): [PropertyKey[], unknown] => [['rate_plans', i, 'name'], plan.name]),
  ];
  return maps.flatMap(([path, map]) =>
    textMapViolations(map, language).map((violation) => ({
      detail: violation.rule === 'source_language_missing' ? `the text must include the source language \`${language}\`` : `text breaks the rule \`${violation.rule}\``,
      code: violation.rule === 'source_language_missing' ? 'source_language_missing' : `text_${violation.rule}`,
      pointer: jsonPointer(violation.language === undefined ? path : [...path, violation.language]),
    })),
  );
}
