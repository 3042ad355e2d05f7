import { jsonPointer } from '../domain/json-pointer.ts';
import type { ParameterError } from '../domain/problems.ts';
import type { InputLocation } from './validation.ts';

/**
 * U+0000 is refused in every string a request carries, keys of objects included, before any rule
 * of the operation runs: PostgreSQL stores no NUL in text or jsonb, and the driver's refusal
 * (a protocol violation) says nothing useful to the caller. Raw NULs in the request line and the
 * headers never get this far: Node's parser answers 400 to them.
 */
const NUL = '\u0000';

/** Enough to show a client what is wrong without echoing a body of a thousand offending strings. */
export const MAX_NUL_ERRORS = 50;

const DETAIL = 'must not contain the character U+0000 (NUL)';

/**
 * The paths of the offending strings, walked without recursion so a deeply nested body costs no
 * stack, and stopping at `limit`.
 */
function nulPaths(input: unknown, limit: number): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  while (pending.length > 0 && found.length < limit) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) found.push(path);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        if (key.includes(NUL)) found.push([...path, key]);
        else pending.push({ value: member, path: [...path, key] });
      }
    }
  }
  return found.slice(0, limit);
}

/** One `control_character` entry per string holding a NUL, named as the location names its inputs. */
export function nulCharacterErrors(input: unknown, where: InputLocation, limit = MAX_NUL_ERRORS): ParameterError[] {
  return nulPaths(input, limit).map((path): ParameterError => {
    const code = 'control_character';
    if (where === 'body') return { detail: DETAIL, code, pointer: jsonPointer(path) };
    if (where === 'header') return { detail: DETAIL, code, header: String(path[0] ?? '') };
    return { detail: DETAIL, code, parameter: String(path[0] ?? '') };
  });
}

/** Every offending string of a request's inputs, at most MAX_NUL_ERRORS in all. */
export function requestNulErrors(inputs: Partial<Record<InputLocation, unknown>>): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const where of ['params', 'query', 'body', 'header'] as const) {
    if (inputs[where] === undefined) continue;
    errors.push(...nulCharacterErrors(inputs[where], where, MAX_NUL_ERRORS - errors.length));
    if (errors.length >= MAX_NUL_ERRORS) break;
  }
  return errors;
}
