import type { z } from 'zod';
import { jsonPointer } from '../domain/json-pointer.ts';
import type { ParameterError } from '../domain/problems.ts';

export type InputLocation = 'query' | 'params' | 'body' | 'header';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

function ruleCode(issue: z.core.$ZodIssue, input: unknown): string {
  const custom = (issue as { params?: { code?: unknown } }).params?.code;
  if (typeof custom === 'string') return custom;
  switch (issue.code) {
    case 'too_big':
      return 'max';
    case 'too_small':
      return 'min';
    case 'invalid_format':
      return issue.format === 'date' || issue.format === 'datetime' ? 'date_format' : issue.format;
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined ? 'required' : 'type';
    case 'invalid_value':
      return 'enum';
    case 'unrecognized_keys':
      return 'unknown_field';
    default:
      return issue.code;
  }
}

/**
 * The most `errors` entries one refusal lists. A body of a thousand wrong items fails many
 * thousands of rules; listing them all made an answer many times the size of the request (and,
 * at the platform's 1 MiB, one too long for a string). The first ones, in the order the rules
 * found them, are enough to fix the request by; the problem's `detail` says how many failed.
 */
export const MAX_PARAMETER_ERRORS = 100;

/** One entry per failed rule, naming the parameter, header or body pointer it concerns; the first `limit`. */
export function toParameterErrors(
  error: z.ZodError,
  where: InputLocation,
  input: unknown,
  limit: number,
): ParameterError[] {
  return error.issues
    .slice(0, limit)
    .flatMap((issue): ParameterError[] => {
      const code = ruleCode(issue, input);
      const keys =
        issue.code === 'unrecognized_keys'
          ? issue.keys.slice(0, limit).map((key) => [...issue.path, key])
          : [issue.path];
      return keys.map((path) => {
        const detail = issue.message;
        if (where === 'body') return { detail, code, pointer: jsonPointer(path) };
        if (where === 'header') return { detail, code, header: String(path[0] ?? '') };
        return { detail, code, parameter: String(path[0] ?? '') };
      });
    })
    .slice(0, limit);
}

/**
 * The fields of an object input that pass their own schema, as that schema parses them (an absent
 * field with a default gets its default); a field that breaks one of its rules is left out. When
 * the schema refused an input, the rules checked after it (between fields, against stored data)
 * read this, so that the one refusal lists what they find too (`Operation.laterRules`).
 */
export function wellFormedFields<S extends z.ZodObject>(schema: S, input: unknown): Partial<z.output<S>> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return {};
  const fields: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const parsed = (field as z.ZodType).safeParse(memberOf(input, name));
    if (parsed.success) fields[name] = parsed.data;
  }
  return fields as Partial<z.output<S>>;
}

/** A member of an object input as received; undefined when the input is no object or lacks it. */
export function memberOf(input: unknown, name: string): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !Object.hasOwn(input, name))
    return undefined;
  return (input as Record<string, unknown>)[name];
}

/** The items of an array input that pass the item schema, each with its index; none when it is no array. */
export function wellFormedItems<T>(schema: z.ZodType<T>, input: unknown): { index: number; item: T }[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((value: unknown, index) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? [{ index, item: parsed.data }] : [];
  });
}

/**
 * Whether a list breaks its schema's length rule (`max`). The later rules skip such a list's items:
 * it is refused for its length alone, and checking more items than any request holds would cost
 * more than any request taken.
 */
export function tooLong(schema: z.ZodType, input: unknown): boolean {
  const parsed = schema.safeParse(input);
  return !parsed.success && parsed.error.issues.some((issue) => issue.code === 'too_big' && issue.path.length === 0);
}
