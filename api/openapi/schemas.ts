import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

export type JsonSchema = { [keyword: string]: unknown };
export type Io = 'input' | 'output';

const COMPONENT_REF = '#/components/schemas/';

// Keywords whose values are data, and keywords whose values map names to schemas.
const DATA_KEYWORDS = new Set(['default', 'example', 'examples', 'enum', 'const']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * Rebuilds a schema bottom-up, calling `visit` on every subschema (never on data such as `enum`
 * or `default`, nor on a property map, so a field named `minimum` or `$ref` stays a field).
 * `parent` is the keyword the subschema sits under, e.g. `allOf`.
 */
export function mapSchema(
  schema: JsonSchema,
  visit: (node: JsonSchema, parent: string | undefined) => JsonSchema,
  parent?: string,
): JsonSchema {
  const sub = (value: unknown, keyword: string): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? mapSchema(value as JsonSchema, visit, keyword)
      : value;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key) || value === null || typeof value !== 'object') out[key] = value;
    else if (SCHEMA_MAPS.has(key))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, sub(child, key)]));
    else if (Array.isArray(value)) out[key] = value.map((child) => sub(child, key));
    else out[key] = sub(value, key);
  }
  return visit(out, parent);
}

/**
 * Per node: `$defs` refs become component refs; zod's safe-integer bounds, which say nothing the
 * contract says, are dropped; and on answers `additionalProperties: false` is dropped, because v1
 * only grows and a client must accept fields added later. Requests keep it: the service refuses
 * unknown fields.
 */
function tidy(node: JsonSchema, io: Io, rename: (def: string) => string): JsonSchema {
  const { $ref, minimum, maximum, additionalProperties, ...rest } = node;
  const out: JsonSchema = { ...rest };
  if ($ref !== undefined)
    out.$ref =
      typeof $ref === 'string' && $ref.startsWith('#/$defs/')
        ? COMPONENT_REF + rename($ref.slice('#/$defs/'.length))
        : $ref;
  if (minimum !== undefined && minimum !== Number.MIN_SAFE_INTEGER) out.minimum = minimum;
  if (maximum !== undefined && maximum !== Number.MAX_SAFE_INTEGER) out.maximum = maximum;
  if (additionalProperties !== undefined && !(io === 'output' && additionalProperties === false))
    out.additionalProperties = additionalProperties;
  return out;
}

/**
 * Turns zod schemas into JSON Schema 2020-12 (the dialect of OpenAPI 3.1), hoisting every schema
 * named with `.meta({ id })` into `components.schemas` so that a shape used by several operations
 * is described once. An input shape that differs from its output shape (defaults, transforms) is
 * kept apart as `<id>Input`.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: Io, context: string): JsonSchema {
    const raw = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const { $schema: _dialect, $defs, ...root } = raw;
    const defs = Object.entries(($defs ?? {}) as Record<string, JsonSchema>);
    // Anonymous defs (zod names them `__schema0` for cycles) are only unique within one conversion.
    const baseName = (def: string) => (def.startsWith('__') ? `${context}${def.slice(1)}` : def);
    const attempt = (suffix: string) => {
      const rename = (def: string) => baseName(def) + suffix;
      const tidyTree = (value: JsonSchema) => mapSchema(value, (node) => tidy(node, io, rename));
      const hoisted = defs.map(([def, body]) => [rename(def), tidyTree(body)] as const);
      const clash = hoisted.some(
        ([name, body]) => this.schemas[name] !== undefined && !isDeepStrictEqual(this.schemas[name], body),
      );
      return { clash, hoisted, root: tidyTree(root) };
    };
    let result = attempt('');
    if (result.clash && io === 'input') result = attempt('Input');
    if (result.clash)
      throw new Error(`${context}: two different schemas share a name among ${defs.map(([def]) => def).join(', ')}`);
    for (const [name, body] of result.hoisted) this.schemas[name] = body;
    return result.root;
  }

  /** The schema behind a root `$ref`, for reading an object's properties. */
  resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) return schema;
    const target = this.schemas[ref.slice(COMPONENT_REF.length)];
    if (!target) throw new Error(`unresolved ${ref}`);
    return this.resolve(target);
  }

  ref(name: string): JsonSchema {
    if (!this.schemas[name]) throw new Error(`no schema component ${name}`);
    return { $ref: COMPONENT_REF + name };
  }
}
