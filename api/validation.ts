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

/** One entry per failed rule, naming the parameter, header or body pointer it concerns. */
export function toParameterErrors(error: z.ZodError, where: InputLocation, input: unknown): ParameterError[] {
  return error.issues.flatMap((issue): ParameterError[] => {
    const code = ruleCode(issue, input);
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    return keys.map((path) => {
      const detail = issue.message;
      if (where === 'body') return { detail, code, pointer: jsonPointer(path) };
      if (where === 'header') return { detail, code, header: String(path[0] ?? '') };
      return { detail, code, parameter: String(path[0] ?? '') };
    });
  });
}
