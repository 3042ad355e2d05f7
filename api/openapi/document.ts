import type { z } from 'zod';
import type { ProblemCode } from '../../domain/problems.ts';
import { DISTRIBUTION_BASE, distributionOperations } from '../distribution/index.ts';
import { isPlannedIn, type DeploymentEnvironment } from '../operations.ts';
import { descriptionOperations, type DescribedOperation } from './description-operations.ts';
import { HEADERS, RATE_LIMIT_HEADERS, type HeaderName, type HeaderObject } from './headers.ts';
import { API_REVISION, infoDescription, scopeText, TAG_DESCRIPTIONS } from './info.ts';
import { AUTHENTICATION, codesByStatus, Problem, problemCodesOf, problemDescription } from './problems.ts';
import { SchemaComponents, type JsonSchema } from './schemas.ts';
import type { OpenApiDocument, OperationObject, ParameterObject, Ref, ResponseObject } from './types.ts';
import { WEBHOOK_TAG, WEBHOOK_TAG_DESCRIPTION, webhookEntries } from './webhooks.ts';

export { API_REVISION } from './info.ts';
export type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './types.ts';

/** Everything the description lists: the registry, and the description's own two addresses. */
export const describedOperations: readonly DescribedOperation[] = [...distributionOperations, ...descriptionOperations];

/**
 * What sets one interface's description apart from another's built here (the distribution
 * interface's and the platform's, whose refusals are both problem details): its name, revision,
 * credentials and the refusals its guards add to every operation that needs them.
 */
export interface DescriptionProfile {
  title: string;
  version: string;
  base: string;
  info: (operations: readonly DescribedOperation[]) => string;
  tagDescriptions: Record<string, string>;
  securityScheme: { name: string; scheme: Record<string, unknown> };
  /** Whether the operation needs the interface's credentials. */
  guarded: (op: DescribedOperation) => boolean;
  /** Refusals of the interface's guards, listed on every guarded operation. */
  guardProblems: readonly ProblemCode[];
  /** Whether its answers after the guards carry the `RateLimit-*` fields. */
  rateLimited: (op: DescribedOperation) => boolean;
  /** The `**Authentication**:` line of an operation. */
  authentication: (op: DescribedOperation) => string;
  /** Header objects of its own, in place of the distribution interface's. */
  headers?: Partial<Record<HeaderName, HeaderObject>>;
  /** The `webhooks` section and its tag, for an interface that sends webhooks. */
  webhooks?: {
    tag: { name: string; description: string };
    entries: (schemas: SchemaComponents) => NonNullable<OpenApiDocument['webhooks']>;
  };
}

/** The distribution interface: channel keys with scopes, rate-limited per channel. */
export const DISTRIBUTION_PROFILE: DescriptionProfile = {
  title: 'Distribution Service: distribution interface',
  version: API_REVISION,
  base: DISTRIBUTION_BASE,
  info: (operations) => infoDescription(operations, DISTRIBUTION_BASE),
  tagDescriptions: TAG_DESCRIPTIONS,
  securityScheme: {
    name: 'ApiKey',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key: `svc_live_` (production) or `svc_test_` (sandbox), 63 characters',
      description:
        "The channel's key, `Authorization: Bearer <API_KEY>`. The scopes an operation needs are listed in its security requirement and `x-required-scopes`.",
    },
  },
  guarded: (op) => op.scopes !== null,
  guardProblems: AUTHENTICATION,
  rateLimited: (op) => op.scopes !== null,
  authentication: scopeText,
  webhooks: { tag: { name: WEBHOOK_TAG, description: WEBHOOK_TAG_DESCRIPTION }, entries: webhookEntries },
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer; 304 when nothing changed since.',
  schema: { type: 'string' },
};

/** The description of `operations` as served at `publicOrigin`; pure, for tests of its own. */
export function buildDocument(
  operations: readonly DescribedOperation[],
  publicOrigin: string,
  profile: DescriptionProfile = DISTRIBUTION_PROFILE,
): OpenApiDocument {
  const schemas = new SchemaComponents();
  schemas.convert(Problem, 'output', 'Problem');
  const problemRef = schemas.ref('Problem');
  const headers: OpenApiDocument['components']['headers'] = {};
  const header = (name: HeaderName): Ref => {
    headers[name] = profile.headers?.[name] ?? HEADERS[name];
    return { $ref: `#/components/headers/${name}` };
  };
  const parameters: Record<string, ParameterObject> = {};

  // Every successful GET carries a weak ETag and answers 304 to it (api/conditional.ts).
  const isConditional = (op: DescribedOperation) => op.method === 'get';

  function headersFor(op: DescribedOperation, status: number, codes: readonly ProblemCode[]): Record<string, Ref> {
    const names: HeaderName[] = ['Request-Id'];
    // Every answer to a request with a usable key counts and says so (a 405 too); a 401 had none.
    if (profile.rateLimited(op) && status !== 401) names.push(...RATE_LIMIT_HEADERS);
    if (isConditional(op) && (status === 200 || status === 304)) names.push('ETag');
    if (op.publicCache && (status === 200 || status === 304)) names.push('Cache-Control');
    if (status === 429 || status === 503) names.push('Retry-After');
    if (status === 401 || codes.includes('insufficient_scope')) names.push('WWW-Authenticate');
    if (status === 405) names.push('Allow');
    if (codes.length > 0) names.push('Content-Language');
    if (op.deprecation) names.push('Deprecation', 'Sunset');
    if (op.deprecation?.link !== undefined || (op.paged && status === 200)) names.push('Link');
    return Object.fromEntries(names.map((name) => [name, header(name)]));
  }

  function parametersOf(op: DescribedOperation): (ParameterObject | Ref)[] {
    const out: (ParameterObject | Ref)[] = [];
    const templated = [...op.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');
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
    for (const name of templated) {
      if (!out.some((p) => 'name' in p && p.name === name && p.in === 'path'))
        out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
    if (isConditional(op)) {
      parameters['If-None-Match'] = IF_NONE_MATCH;
      out.push({ $ref: '#/components/parameters/If-None-Match' });
    }
    return out;
  }

  function contentOf(
    op: DescribedOperation,
    body: z.ZodType,
    mediaType: string | undefined,
    alternatives: Record<string, z.ZodType> = {},
  ): ResponseObject['content'] {
    const content: NonNullable<ResponseObject['content']> = {
      [mediaType ?? op.mediaType ?? 'application/json']: { schema: schemas.convert(body, 'output', op.operationId) },
    };
    for (const [type, schema] of Object.entries(alternatives))
      content[type] = { schema: schemas.convert(schema, 'output', op.operationId) };
    return content;
  }

  function responsesOf(op: DescribedOperation): Record<string, ResponseObject> {
    const declared = { ...op.responses };
    if (isConditional(op))
      declared[304] ??= { description: 'Not modified: `If-None-Match` matched the current `ETag`.' };
    const responses: Record<string, ResponseObject> = {};
    for (const [status, response] of Object.entries(declared)) {
      const body = status === '204' || status === '304' ? undefined : response.schema;
      responses[status] = {
        description: response.description,
        headers: headersFor(op, Number(status), []),
        ...(body ? { content: contentOf(op, body, response.mediaType, response.alternatives) } : {}),
      };
    }
    for (const [status, codes] of codesByStatus(problemCodesOf(op, profile.guarded(op) ? profile.guardProblems : []))) {
      const own = responses[status];
      responses[status] = {
        description: own ? `${own.description}\n\n${problemDescription(codes)}` : problemDescription(codes),
        headers: { ...own?.headers, ...headersFor(op, status, codes) },
        content: { ...own?.content, 'application/problem+json': { schema: problemRef } },
        'x-problem-codes': codes,
      };
    }
    return responses;
  }

  function securityOf(op: DescribedOperation): Record<string, string[]>[] {
    const scopes = [...(op.scopes ?? [])];
    const scheme = profile.securityScheme.name;
    return op.anyOfScopes?.length
      ? op.anyOfScopes.map((scope) => ({ [scheme]: [...scopes, scope] }))
      : [{ [scheme]: scopes }];
  }

  function operationObject(op: DescribedOperation): OperationObject {
    const parameters = parametersOf(op);
    const planned = op.planned
      ? '\n\n**Planned**: part of the contract, not served yet. Answers 501 `not_implemented` after authentication and the scope check.'
      : '';
    return {
      operationId: op.operationId,
      summary: op.summary,
      description: `${op.description ? `${op.description}\n\n` : ''}**Authentication**: ${profile.authentication(op)}${planned}`,
      tags: op.tags,
      // OpenAPI's alternatives: any one requirement of the list is enough.
      security: profile.guarded(op) ? securityOf(op) : [],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.body
        ? {
            requestBody: {
              required: !op.body.safeParse({}).success,
              content: { 'application/json': { schema: schemas.convert(op.body, 'input', op.operationId) } },
            },
          }
        : {}),
      responses: responsesOf(op),
      ...(op.deprecation ? { deprecated: true } : {}),
      ...(op.scopes !== null ? { 'x-required-scopes': [...op.scopes] } : {}),
      ...(op.anyOfScopes?.length ? { 'x-required-scopes-any': [...op.anyOfScopes] } : {}),
      ...(op.planned ? { 'x-svc-availability': 'planned' as const } : {}),
    };
  }

  // Answers first: a named schema's component is its output shape; an input shape that differs
  // becomes `<id>Input` whichever operation meets it first.
  for (const op of operations) {
    for (const response of Object.values(op.responses))
      if (response.schema) schemas.convert(response.schema, 'output', op.operationId);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
    item[op.method] = operationObject(op);
  }
  const tags = [...new Set(operations.flatMap((op) => op.tags))].map((name) => ({
    name,
    description: profile.tagDescriptions[name] ?? `Operations about ${name.toLowerCase()}.`,
  }));
  const webhooks = profile.webhooks?.entries(schemas);
  if (profile.webhooks) tags.push(profile.webhooks.tag);

  return {
    openapi: '3.1.0',
    info: { title: profile.title, version: profile.version, description: profile.info(operations) },
    servers: [
      {
        url: `${publicOrigin}${profile.base}`,
        description: 'This deployment (one environment: sandbox or production)',
      },
    ],
    security: [{ [profile.securityScheme.name]: [] }],
    tags,
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: {
      securitySchemes: { [profile.securityScheme.name]: profile.securityScheme.scheme },
      schemas: schemas.schemas,
      headers,
      parameters,
    },
  };
}

const built = new Map<string, OpenApiDocument>();

/** The operations as one environment serves them: one served on the sandbox first is planned in production. */
export function operationsIn(environment: DeploymentEnvironment): DescribedOperation[] {
  return describedOperations.map((op) => (op.plannedIn ? { ...op, planned: isPlannedIn(op, environment) } : op));
}

/** Built once per public origin and environment: the registry does not change while the process runs. */
export function openApiDocument(publicOrigin: string, environment: DeploymentEnvironment): OpenApiDocument {
  const key = `${environment} ${publicOrigin}`;
  let document = built.get(key);
  if (!document) {
    document = buildDocument(operationsIn(environment), publicOrigin);
    built.set(key, document);
  }
  return document;
}
