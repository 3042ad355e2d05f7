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

/** A value still to visit, with the way back to the input's root (shared, never copied). */
interface Visit {
  value: unknown;
  parent: Visit | null;
  key: PropertyKey;
}

function pathOf(visit: Visit, last?: PropertyKey): PropertyKey[] {
  const path: PropertyKey[] = last === undefined ? [] : [last];
  for (let at: Visit | null = visit; at && at.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The paths of the offending strings, in document order (a key holding a NUL is reported when its
 * object is reached, before the values of the keys ahead of it), stopping at `limit`. Walked without
 * recursion, so a deep body costs no stack, and each value is visited once with a link to its
 * parent: a path is built only for a string that holds a NUL, so the walk is linear in the input's
 * size however deep it nests (the body's depth is bounded before this runs: domain/json-shape.ts).
 */
function nulPaths(input: unknown, limit: number): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const pending: Visit[] = [{ value: input, parent: null, key: '' }];
  while (pending.length > 0 && found.length < limit) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes(NUL)) found.push(pathOf(visit));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], parent: visit, key: i });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (key.includes(NUL)) found.push(pathOf(visit, key));
        else pending.push({ value: (value as Record<string, unknown>)[key], parent: visit, key });
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
