/**
 * The worst bodies of each shape for `npm run bench:bodies` (bench/bodies.ts), built to just under
 * an operation's size limit, where the service reads them: the client (bench/bodies-client.ts)
 * builds them from these descriptions, so megabytes never cross the processes' channel.
 */
import type { JsonShapeLimits } from '../domain/json-shape.ts';

export type JsonShape =
  'deep_arrays' | 'deep_objects' | 'wide_arrays' | 'many_keys' | 'keys_at_limit' | 'long_strings' | 'many_escapes';
export type FormShape = 'form_many_fields' | 'form_fields_at_limit' | 'form_long_value' | 'form_many_escapes';
export type Shape = JsonShape | FormShape;

export const JSON_SHAPES: readonly JsonShape[] = [
  'deep_arrays',
  'deep_objects',
  'wide_arrays',
  'many_keys',
  'keys_at_limit',
  'long_strings',
  'many_escapes',
];
export const FORM_SHAPES: readonly FormShape[] = [
  'form_many_fields',
  'form_fields_at_limit',
  'form_long_value',
  'form_many_escapes',
];

export interface BodySpec {
  shape: Shape;
  /** Bytes the body may take: the operation's limit less room for the framing. */
  bytes: number;
  /** The body's top-level keys to fill (the operation's own, so its rules run on them). */
  keys: readonly string[];
  /** A top-level key whose value is an array in the operation's body, if it has one. */
  arrayKey: string | undefined;
  /** What the service reads at most of this body (domain/json-shape.ts). */
  limits: JsonShapeLimits;
}

const repeatTo = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));

/** Digits in groups, the text rules' hardest input: everything looks like a start of a phone number. */
const DIGITS = '0721 234 5 ';
const ESCAPES = String.raw`\u00e9\n\"\\\u0041`;

function jsonBody(spec: BodySpec): string {
  const { bytes, keys } = spec;
  const share = Math.floor((bytes - 16 * keys.length) / Math.max(1, keys.length));
  const each = (value: (bytes: number) => string) => `{${keys.map((key) => `"${key}":${value(share)}`).join(',')}}`;
  switch (spec.shape as JsonShape) {
    case 'deep_arrays': {
      const depth = Math.floor((bytes - 8) / 2);
      return `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    }
    case 'deep_objects': {
      const depth = Math.floor((bytes - 8) / 6);
      return `{"a":${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}}`;
    }
    case 'wide_arrays': {
      // As many empty objects as one array may hold, in the operation's own list: each fails its rules.
      const items = Math.min(spec.limits.maxArrayItems, Math.floor((bytes - 16) / 3));
      return `{"${spec.arrayKey ?? 'a'}":[${'{},'.repeat(items - 1)}{}]}`;
    }
    case 'many_keys': {
      const count = Math.floor(bytes / 10);
      return `{${Array.from({ length: count }, (_, i) => `"${i.toString(36).padStart(4, '0')}":0`).join(',')}}`;
    }
    case 'keys_at_limit': {
      // As many keys as are read, as many in each object as one may hold, each naming a number:
      // the most a body can make the parser build and the rules report on (an unknown key each)
      // without being refused for its shape.
      const perObject = spec.limits.maxObjectKeys;
      const objects = Math.max(1, Math.floor(spec.limits.maxKeys / (perObject + 1)));
      const pad = Math.max(1, Math.floor(bytes / (objects * (perObject + 1))) - 6);
      const name = (i: number) => `"${i.toString(36).padStart(pad, '0')}"`;
      const inner = `{${Array.from({ length: perObject }, (_, i) => `${name(i)}:0`).join(',')}}`;
      return `{${Array.from({ length: objects }, (_, i) => `${name(i)}:${inner}`).join(',')}}`;
    }
    case 'long_strings':
      return each((share) => `"${repeatTo(DIGITS, share)}"`);
    case 'many_escapes':
      return each((share) => `"${repeatTo(ESCAPES, share)}"`);
  }
  throw new Error(`not a JSON shape: ${spec.shape}`);
}

function formBody(spec: BodySpec): string {
  const { bytes } = spec;
  switch (spec.shape as FormShape) {
    case 'form_many_fields':
      return Array.from({ length: Math.floor(bytes / 6) }, (_, i) => `f${i.toString(36)}=`).join('&');
    case 'form_fields_at_limit':
      return Array.from({ length: 50 }, (_, i) => `f${i}=${'x'.repeat(Math.floor(bytes / 50) - 8)}`).join('&');
    case 'form_long_value':
      return `return_to=${repeatTo('0721%20234%205%20', bytes - 16)}`;
    case 'form_many_escapes':
      return `return_to=${repeatTo('%C3%A9%00%22', bytes - 16)}`;
  }
  throw new Error(`not a form shape: ${spec.shape}`);
}

export function buildBody(spec: BodySpec): Buffer {
  return Buffer.from(spec.shape.startsWith('form_') ? formBody(spec) : jsonBody(spec));
}
