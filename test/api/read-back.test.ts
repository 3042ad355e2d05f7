import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { SchemaComponents } from '../../api/openapi/schemas.ts';
import { readBackErrors, ReadBackInstant, withReadBack } from '../../api/read-back.ts';

const Body = z.object({ name: z.string() }).strict().meta({ id: 'ThingInput' });
const readBack = { readOnly: { updated_at: ReadBackInstant }, identity: { field: 'ref', param: 'ref' } };

describe('withReadBack', () => {
  test('the read-back fields are taken and dropped from the parsed value; unknown fields stay refused', () => {
    const schema = withReadBack(Body, readBack);
    expect(schema.parse({ name: 'a', ref: 'x', updated_at: '2026-11-22T10:00:00+02:00' })).toEqual({ name: 'a' });
    expect(schema.safeParse({ name: 'a', colour: 'red' }).success).toBe(false);
    expect(schema.safeParse({ name: 'a', updated_at: 'yesterday' }).success).toBe(false);
  });

  test("the description marks them readOnly and keeps the body schema's id", () => {
    const components = new SchemaComponents();
    expect(components.convert(withReadBack(Body, readBack), 'input', 'test')).toEqual({
      $ref: '#/components/schemas/ThingInput',
    });
    const properties = components.schemas.ThingInput!.properties as Record<string, { readOnly?: boolean }>;
    expect(properties.updated_at?.readOnly).toBe(true);
    expect(properties.ref?.readOnly).toBe(true);
    expect(properties.name?.readOnly).toBeUndefined();
  });

  test('a read-back field that the write itself takes is a declaration error', () => {
    expect(() => withReadBack(Body, { readOnly: { name: z.string() } })).toThrow(/name/);
  });

  test("the identity must name the path's record when sent", () => {
    expect(readBackErrors(readBack, { ref: 'a' }, { ref: 'a' })).toEqual([]);
    expect(readBackErrors(readBack, { ref: 'a' }, { name: 'x' })).toEqual([]);
    expect(readBackErrors(readBack, { ref: 'a' }, { ref: 'b' })).toEqual([
      expect.objectContaining({ pointer: '/ref', code: 'path_mismatch' }),
    ]);
  });
});
