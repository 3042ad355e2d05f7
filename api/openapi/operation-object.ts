import type { DocumentComponents } from './components.ts';
import type { DescribedOperation } from './description-operations.ts';
import { isConditional, responsesOf } from './responses.ts';
import type { JsonSchema } from './schemas.ts';
import type { OperationObject, ParameterObject, Ref } from './types.ts';

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer; 304 when nothing changed since.',
  schema: { type: 'string' },
};

const PLANNED =
  '\n\n**Planned**: part of the contract, not served yet. Answers 501 `not_implemented` after authentication and the scope check.';

/** The path and query parameters `op`'s zod schemas declare, each path one named in `templated`. */
function declaredParameters(
  components: DocumentComponents,
  op: DescribedOperation,
  templated: readonly string[],
): ParameterObject[] {
  const { schemas } = components;
  const out: ParameterObject[] = [];
  for (const [location, zodSchema] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!zodSchema) continue;
    const object = schemas.resolve(schemas.convert(zodSchema, 'input', op.operationId));
    const required = new Set((object.required ?? []) as string[]);
    for (const [name, property] of Object.entries((object.properties ?? {}) as Record<string, JsonSchema>)) {
      if (location === 'path' && !templated.includes(name))
        throw new Error(`${op.operationId}: path parameter ${name} is not in ${op.path}`);
      const { description, ...schema } = property;
      const list = schemas.resolve(schema).type === 'array';
      out.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        schema,
        ...(typeof description === 'string' ? { description } : {}),
        // Lists in a query are comma-separated, not repeated (docs/contract.md#lists-pages-and-changes, rule 7).
        ...(list ? { style: 'form', explode: false } : {}),
      });
    }
  }
  return out;
}

/** `op`'s parameters: the declared ones, any path segment left undeclared, `If-None-Match` on a GET. */
function parametersOf(components: DocumentComponents, op: DescribedOperation): (ParameterObject | Ref)[] {
  const templated = [...op.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');
  const out: (ParameterObject | Ref)[] = declaredParameters(components, op, templated);
  for (const name of templated) {
    if (!out.some((p) => 'name' in p && p.name === name && p.in === 'path'))
      out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (isConditional(op)) out.push(components.parameter('If-None-Match', IF_NONE_MATCH));
  return out;
}

/** OpenAPI's alternatives: any one requirement of the list is enough. */
function securityOf(scheme: string, op: DescribedOperation): Record<string, string[]>[] {
  const scopes = [...(op.scopes ?? [])];
  return op.anyOfScopes?.length
    ? op.anyOfScopes.map((scope) => ({ [scheme]: [...scopes, scope] }))
    : [{ [scheme]: scopes }];
}

function requestBodyOf(components: DocumentComponents, op: DescribedOperation): OperationObject['requestBody'] {
  if (!op.body) return undefined;
  return {
    required: !op.body.safeParse({}).success,
    content: { 'application/json': { schema: components.schemas.convert(op.body, 'input', op.operationId) } },
  };
}

/** The description of one operation; its components land in `components`. */
export function operationObject(components: DocumentComponents, op: DescribedOperation): OperationObject {
  const { profile } = components;
  const parameters = parametersOf(components, op);
  const planned = op.planned ? PLANNED : '';
  const requestBody = requestBodyOf(components, op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description ? `${op.description}\n\n` : ''}**Authentication**: ${profile.authentication(op)}${planned}`,
    tags: op.tags,
    security: profile.guarded(op) ? securityOf(profile.securityScheme.name, op) : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(components, op),
    ...(op.deprecation ? { deprecated: true } : {}),
    ...(op.scopes !== null ? { 'x-required-scopes': [...op.scopes] } : {}),
    ...(op.anyOfScopes?.length ? { 'x-required-scopes-any': [...op.anyOfScopes] } : {}),
    ...(op.planned ? { 'x-svc-availability': 'planned' as const } : {}),
  };
}
