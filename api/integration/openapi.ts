import { z } from 'zod';
import {
  INTEGRATION_RATE_LIMIT_PER_MINUTE,
  INTEGRATION_SCOPES,
  type IntegrationScope,
} from '../../domain/integration-tokens.ts';
import { descriptionOperations, type DescribedOperation } from '../openapi/description-operations.ts';
import { HEADERS } from '../openapi/headers.ts';
import { SchemaComponents, type JsonSchema } from '../openapi/schemas.ts';
import { INTEGRATION_ERRORS, RETRY_LATER_CODES, type IntegrationErrorCode } from './errors.ts';
import { INTEGRATION_REVISION, integrationInfo } from './info.ts';

type IntegrationOperation = DescribedOperation<IntegrationScope>;
type Ref = { $ref: string };

const ErrorBody = z
  .object({
    message: z.string().meta({ description: 'Human text in English; never branch on it.' }),
    code: z.string().meta({
      description: 'Stable identifier of the refusal. The list is open: treat an unknown code by its status.',
    }),
    errors: z.record(z.string(), z.array(z.string())).meta({
      description:
        'Per parameter, what is wrong with it (`invalid_parameters`); `required_scopes` with the missing scopes (`insufficient_scope`); empty otherwise.',
    }),
  })
  .meta({ id: 'IntegrationError', description: 'A refusal: every status except 429.' });

const RetryLaterBody = z
  .object({
    error: z.string().meta({ description: '`rate_limited` or `too_many_failed_authentications`; the list is open.' }),
    message: z.string(),
    retry_after: z.int().min(1).meta({ description: 'Seconds to wait, equal to the `Retry-After` header.' }),
  })
  .meta({ id: 'RetryLater', description: 'A 429: come back after `retry_after` seconds.' });

const HEADER_OBJECTS = {
  'Request-Id': HEADERS['Request-Id'],
  'RateLimit-Limit': {
    description: `Requests the installation may make in the current one-minute window (${INTEGRATION_RATE_LIMIT_PER_MINUTE}). Sent once the token was accepted.`,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': HEADERS['RateLimit-Remaining'],
  'RateLimit-Reset': HEADERS['RateLimit-Reset'],
  'RateLimit-Policy': HEADERS['RateLimit-Policy'],
  RateLimit: HEADERS.RateLimit,
  'Retry-After': HEADERS['Retry-After'],
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge with realm `integration`; `error="invalid_token"` for a token sent but refused, `error="insufficient_scope"` with the missing `scope` on 403.',
    schema: { type: 'string' },
  },
  ETag: HEADERS.ETag,
  Allow: HEADERS.Allow,
  'Cache-Control': {
    description: '`no-store` on answers carrying personal data.',
    required: true,
    schema: { type: 'string' },
  },
} as const;
type HeaderName = keyof typeof HEADER_OBJECTS;

const AUTHENTICATION: IntegrationErrorCode[] = [
  'missing_token',
  'invalid_token',
  'token_wrong_environment',
  'token_revoked',
  'installation_disabled',
  'installation_error',
  'rate_limited',
  'too_many_failed_authentications',
];

/** Every code the operation can answer: the guards', validation's and the envelope's. */
export function integrationErrorCodes(op: IntegrationOperation): IntegrationErrorCode[] {
  const codes = new Set<IntegrationErrorCode>();
  if (op.query || op.params || op.body) codes.add('invalid_parameters');
  if (op.scopes !== null) for (const code of AUTHENTICATION) codes.add(code);
  if (op.scopes?.length) codes.add('insufficient_scope');
  // A body sent is read (and refused when unreadable) after authentication, whatever the method.
  if (op.scopes !== null)
    for (const code of ['invalid_parameters', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  for (const code of ['method_not_allowed', 'internal', 'service_unavailable'] as const) codes.add(code);
  return (Object.keys(INTEGRATION_ERRORS) as IntegrationErrorCode[]).filter((code) => codes.has(code));
}

/**
 * What the description's operations refer to: each schema converted once, and each header object
 * listed the first time an answer names it.
 */
class Components {
  readonly schemas = new SchemaComponents();
  readonly headers: Partial<Record<HeaderName, unknown>> = {};

  constructor() {
    this.schemas.convert(ErrorBody, 'output', 'IntegrationError');
    this.schemas.convert(RetryLaterBody, 'output', 'RetryLater');
  }

  header(name: HeaderName): Ref {
    this.headers[name] = HEADER_OBJECTS[name];
    return { $ref: `#/components/headers/${name}` };
  }

  /** The headers an answer of this status carries. */
  headersFor(op: IntegrationOperation, status: number): Record<string, Ref> {
    const names: HeaderName[] = ['Request-Id'];
    if (op.scopes !== null && ![401, 405].includes(status))
      names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'RateLimit');
    if (op.method === 'get' && (status === 200 || status === 304)) names.push('ETag');
    if (op.scopes !== null && status === 200) names.push('Cache-Control');
    if (status === 429 || status === 503) names.push('Retry-After');
    if (status === 401 || status === 403) names.push('WWW-Authenticate');
    if (status === 405) names.push('Allow');
    return Object.fromEntries(names.map((name) => [name, this.header(name)]));
  }
}

/** The operation's declared answers (with a GET's 304), then one answer per refusal status naming its codes. */
function responsesOf(op: IntegrationOperation, components: Components): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const declared: Record<string, { description: string; schema?: z.ZodType }> = {
    ...op.responses,
    ...(op.method === 'get'
      ? { 304: { description: 'Not modified: `If-None-Match` matched the current `ETag`.' } }
      : {}),
  };
  for (const [status, response] of Object.entries(declared)) {
    const schema =
      response.schema && status !== '304'
        ? components.schemas.convert(response.schema, 'output', op.operationId)
        : undefined;
    responses[status] = {
      description: response.description,
      headers: components.headersFor(op, Number(status)),
      ...(schema ? { content: { [op.mediaType ?? 'application/json']: { schema } } } : {}),
    };
  }
  const byStatus = new Map<number, IntegrationErrorCode[]>();
  for (const code of integrationErrorCodes(op))
    byStatus.set(INTEGRATION_ERRORS[code].status, [...(byStatus.get(INTEGRATION_ERRORS[code].status) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = codes.every((code) => RETRY_LATER_CODES.includes(code));
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${INTEGRATION_ERRORS[code].message}`).join('\n\n'),
      headers: components.headersFor(op, status),
      content: { 'application/json': { schema: components.schemas.ref(retry ? 'RetryLater' : 'IntegrationError') } },
      'x-error-codes': codes,
    };
  }
  return responses;
}

const IF_NONE_MATCH: JsonSchema = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer; 304 when nothing changed since.',
  schema: { type: 'string' },
};

/** One operation's entry under its path. */
function operationObject(op: IntegrationOperation, components: Components): Record<string, unknown> {
  for (const schema of [op.params, op.query]) {
    // No integration operation takes parameters yet; the first one to do so describes them here.
    const properties = schema
      ? components.schemas.resolve(components.schemas.convert(schema, 'input', op.operationId)).properties
      : undefined;
    if (properties && Object.keys(properties).length > 0)
      throw new Error(`${op.operationId}: path and query parameters are not described yet`);
  }
  const parameters: JsonSchema[] = op.method === 'get' ? [IF_NONE_MATCH] : [];
  const needs =
    op.scopes === null
      ? 'No token needed.'
      : `Needs an integration token with ${op.scopes.map((s) => `\`${s}\``).join(' and ')}.`;
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description ? `${op.description}\n\n` : ''}**Authentication**: ${needs}`,
    tags: op.tags,
    security: op.scopes === null ? [] : [{ IntegrationToken: [...op.scopes] }],
    ...(parameters.length ? { parameters } : {}),
    responses: responsesOf(op, components),
    ...(op.scopes !== null ? { 'x-required-scopes': [...op.scopes] } : {}),
  };
}

/** The integration interface's description, built from its registry like the distribution one's. */
export function buildIntegrationDocument(
  operations: readonly IntegrationOperation[],
  publicOrigin: string,
  base: string,
) {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op, components);
  const tags = [...new Set(operations.flatMap((op) => op.tags))].map((name) => ({
    name,
    description:
      name === 'Guests'
        ? "The installing organization's guests."
        : 'This machine-readable description and its changelog.',
  }));
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Distribution Service: integration interface',
      version: INTEGRATION_REVISION,
      description: integrationInfo(base),
    },
    servers: [
      { url: `${publicOrigin}${base}`, description: 'This deployment (one environment: sandbox or production)' },
    ],
    security: [{ IntegrationToken: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        IntegrationToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'Integration token: `svci_live_` (production) or `svci_test_` (sandbox), 64 characters',
          description: `The installation's token, \`Authorization: Bearer <INTEGRATION_TOKEN>\`. Scopes: ${INTEGRATION_SCOPES.map((s) => `\`${s}\``).join(', ')}.`,
        },
      },
      schemas: components.schemas.schemas,
      headers: components.headers,
    },
  };
}

export type IntegrationDocument = ReturnType<typeof buildIntegrationDocument>;

/** The description's own two addresses, described in it as in the distribution interface's. */
export const integrationDescriptionOperations: readonly IntegrationOperation[] = descriptionOperations;
