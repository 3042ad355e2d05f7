import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonShapeLimits, jsonShapeViolation, type JsonShapeLimits } from '../../domain/json-shape.ts';

const limits: JsonShapeLimits = { maxDepth: 4, maxKeys: 10, maxObjectKeys: 5, maxArrayItems: 6 };
const scan = (text: string, given = limits) => jsonShapeViolation(Buffer.from(text), given)?.rule ?? null;

describe('the shape of a JSON body', () => {
  test.each([
    ['[[[[]]]]', null],
    ['[[[[[]]]]]', 'max_depth'],
    ['{"a":{"b":{"c":{"d":0}}}}', null],
    ['{"a":{"b":{"c":{"d":{}}}}}', 'max_depth'],
    ['{"a":1,"b":2,"c":3,"d":4,"e":5}', null],
    ['{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}', 'max_object_keys'],
    ['[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3},{"a":1,"b":2}]', 'max_keys'],
    ['[1,2,3,4,5,6]', null],
    ['[1,2,3,4,5,6,7]', 'max_array_items'],
    ['[[1,2,3],[4,5,6],[7,8,9]]', null],
  ])('%s: %s', (text, rule) => {
    expect(scan(text)).toBe(rule);
  });

  test('brackets, colons, commas and escaped quotes inside strings count for nothing', () => {
    expect(scan(`["[[[[[[", "{{{{{{", "a:b:c:d:e:f:g:h:i:j:k", ",,,,,,,,,,", "\\\\", "\\"[[[[[["]`)).toBeNull();
    expect(scan(`{"\\"[[[[[[:":"]]]]],,,,,,"}`)).toBeNull();
  });

  test('an unclosed string or malformed JSON is left to the parser', () => {
    expect(scan('{"a":"[[[[[[[[[[')).toBeNull();
    expect(scan(']]]]][[[[')).toBeNull();
  });

  test('agrees with the parsed value on every JSON document', () => {
    const generous = { maxDepth: 1000, maxKeys: 1e9, maxObjectKeys: 1e9, maxArrayItems: 1e9 };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value);
        const measured = measure(value);
        expect(jsonShapeViolation(Buffer.from(text), generous)).toBeNull();
        const tight = {
          ...generous,
          maxDepth: Math.max(1, measured.depth - 1),
        };
        expect(scan(text, tight)).toBe(measured.depth > tight.maxDepth ? 'max_depth' : null);
        expect(scan(text, { ...generous, maxKeys: Math.max(0, measured.keys - 1) })).toBe(
          measured.keys > 0 ? 'max_keys' : null,
        );
      }),
    );
  });

  test('the key limit scales with the operation body limit: 4,096 at 64 KiB, 65,536 at 1 MiB', () => {
    expect(jsonShapeLimits(64 * 1024).maxKeys).toBe(4096);
    expect(jsonShapeLimits(1024 * 1024).maxKeys).toBe(65_536);
  });
});

/** Depth (containers, outermost included) and keys of a parsed value, the slow way. */
function measure(value: unknown): { depth: number; keys: number } {
  if (Array.isArray(value)) {
    const inner = value.map(measure);
    return {
      depth: 1 + Math.max(0, ...inner.map((m) => m.depth)),
      keys: inner.reduce((sum, m) => sum + m.keys, 0),
    };
  }
  if (value !== null && typeof value === 'object') {
    const inner = Object.values(value).map(measure);
    return {
      depth: 1 + Math.max(0, ...inner.map((m) => m.depth)),
      keys: Object.keys(value).length + inner.reduce((sum, m) => sum + m.keys, 0),
    };
  }
  return { depth: 0, keys: 0 };
}
