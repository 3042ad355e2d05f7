import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { DescribedOperation } from '../../api/openapi/description-operations.ts';
import { buildDocument, type OperationObject } from '../../api/openapi/document.ts';

// Shapes the served registry does not use yet, so the builder is proven before an operation needs it.
const Page = z.object({ id: z.string(), size: z.int().default(10) }).meta({ id: 'Thing' });
const listThings: DescribedOperation = {
  operationId: 'listThings',
  method: 'get',
  path: '/things',
  summary: 'Things',
  tags: ['Things'],
  scopes: ['read:catalog'],
  query: z.object({
    limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Page size' }),
    status: z.array(z.enum(['active', 'inactive'])).optional(),
    from: z.iso.date(),
  }),
  responses: {
    200: { description: 'A page', schema: z.object({ data: z.array(Page), next_cursor: z.string().nullable() }) },
  },
  problems: ['invalid_cursor', 'sync_window_expired'],
};
const putThing: DescribedOperation = {
  operationId: 'putThing',
  method: 'put',
  path: '/things/{thing_id}/parts/{part_id}',
  summary: 'Put a thing',
  tags: ['Things'],
  scopes: [],
  params: z.object({ thing_id: z.string().regex(/^thg_/) }),
  body: Page,
  responses: { 200: { description: 'The thing', schema: Page }, 404: { description: 'No such thing' } },
  problems: ['not_found'],
  deprecation: {
    deprecatedAt: new Date('2027-01-01T00:00:00Z'),
    sunsetAt: new Date('2027-03-01T00:00:00Z'),
    link: 'https://example.org/v2',
  },
};
const rotate: DescribedOperation = {
  operationId: 'rotate',
  method: 'post',
  path: '/things/{thing_id}/rotate',
  summary: 'Rotate',
  tags: ['Things'],
  scopes: ['manage:webhooks'],
  body: z.object({ expire_immediately: z.boolean().optional() }),
  responses: { 204: { description: 'Rotated' } },
  problems: [],
};

const document = buildDocument([listThings, putThing, rotate], 'https://svc.example.org');
const op = (path: string, method: string) => (document.paths[path] as Record<string, OperationObject>)[method]!;

describe('parameters and bodies from the zod schemas', () => {
  test('query parameters: required only without a default, lists comma-separated, descriptions lifted', () => {
    expect(op('/things', 'get').parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'Page size',
        schema: { default: 100, type: 'integer', minimum: 1, maximum: 500 },
      },
      {
        name: 'status',
        in: 'query',
        required: false,
        style: 'form',
        explode: false,
        schema: { type: 'array', items: { type: 'string', enum: ['active', 'inactive'] } },
      },
      {
        name: 'from',
        in: 'query',
        required: true,
        schema: expect.objectContaining({ type: 'string', format: 'date' }),
      },
      { $ref: '#/components/parameters/If-None-Match' },
    ]);
  });

  test('path parameters: from the params schema, or a plain string for a templated name it lacks', () => {
    const parameters = op('/things/{thing_id}/parts/{part_id}', 'put').parameters;
    expect(parameters).toEqual([
      { name: 'thing_id', in: 'path', required: true, schema: { type: 'string', pattern: '^thg_' } },
      { name: 'part_id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  test('a body is required unless {} is valid; a named schema is one component, with its input shape apart', () => {
    expect(op('/things/{thing_id}/parts/{part_id}', 'put').requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } },
    });
    expect(op('/things/{thing_id}/rotate', 'post').requestBody?.required).toBe(false);
    expect(op('/things/{thing_id}/parts/{part_id}', 'put').responses['200']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
    });
    expect(document.components.schemas.Thing).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, size: { type: 'integer', default: 10 } },
      required: ['id', 'size'],
    });
    expect(document.components.schemas.ThingInput).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, size: { type: 'integer', default: 10 } },
      required: ['id'],
    });
  });

  test('request objects keep refusing unknown fields; answers leave room for fields added within v1', () => {
    const strictBody: DescribedOperation = {
      ...rotate,
      operationId: 'strict',
      path: '/strict',
      body: z.strictObject({ a: z.string() }),
      responses: { 200: { description: 'ok', schema: z.strictObject({ b: z.string() }) } },
    };
    const doc = buildDocument([strictBody], 'https://svc.example.org');
    const strict = (doc.paths['/strict'] as Record<string, OperationObject>).post!;
    expect(strict.requestBody?.content['application/json']?.schema).toMatchObject({ additionalProperties: false });
    expect(strict.responses['200']?.content?.['application/json']?.schema).not.toHaveProperty('additionalProperties');
  });
  test('a field named like a keyword stays a field, and data is left alone', () => {
    const odd = z.object({
      $ref: z.string(),
      minimum: z.int().min(Number.MIN_SAFE_INTEGER),
      properties: z.enum(['a']),
      n: z.int().default(Number.MAX_SAFE_INTEGER),
    });
    const doc = buildDocument(
      [
        {
          ...rotate,
          operationId: 'odd',
          path: '/odd',
          body: undefined,
          responses: { 200: { description: 'odd', schema: odd } },
        },
      ],
      'https://svc.example.org',
    );
    const schema = (doc.paths['/odd'] as Record<string, OperationObject>).post!.responses['200']?.content?.[
      'application/json'
    ]?.schema;
    expect(schema).toEqual({
      type: 'object',
      properties: {
        $ref: { type: 'string' },
        minimum: { type: 'integer' },
        properties: { type: 'string', enum: ['a'] },
        n: { type: 'integer', default: Number.MAX_SAFE_INTEGER },
      },
      required: ['$ref', 'minimum', 'properties', 'n'],
    });
  });
});

describe('the problem envelope', () => {
  test.each([
    [
      '/things',
      'get',
      {
        400: ['invalid_parameters', 'invalid_cursor'],
        401: 5,
        403: ['insufficient_scope', 'partner_suspended'],
        405: ['method_not_allowed'],
        410: ['sync_window_expired'],
        429: ['rate_limited', 'too_many_failed_authentications'],
        500: ['internal'],
        503: ['service_unavailable'],
      },
    ],
    [
      '/things/{thing_id}/parts/{part_id}',
      'put',
      {
        400: ['invalid_parameters'],
        401: 5,
        403: ['partner_suspended'],
        404: ['not_found'],
        405: ['method_not_allowed'],
        413: ['payload_too_large'],
        415: ['unsupported_media_type'],
        429: ['rate_limited', 'too_many_failed_authentications'],
        500: ['internal'],
        503: ['service_unavailable'],
      },
    ],
  ] as const)('%s %s lists its codes per status', (path, method, expected) => {
    const responses = op(path, method).responses;
    for (const [status, codes] of Object.entries(expected)) {
      const listed = responses[status]?.['x-problem-codes'];
      if (typeof codes === 'number') expect(listed).toHaveLength(codes);
      else expect(listed, status).toEqual(codes);
      expect(responses[status]?.content?.['application/problem+json']?.schema).toEqual({
        $ref: '#/components/schemas/Problem',
      });
    }
    const problemStatuses = Object.entries(responses)
      .filter(([, r]) => r['x-problem-codes'])
      .map(([s]) => s);
    expect(problemStatuses.sort()).toEqual(Object.keys(expected).sort());
  });

  test('a declared answer and a problem of the same status are one response', () => {
    const notFound = op('/things/{thing_id}/parts/{part_id}', 'put').responses['404']!;
    expect(notFound.description).toMatch(/^No such thing\n\n`not_found`/);
    expect(notFound['x-problem-codes']).toEqual(['not_found']);
  });

  test('headers: Retry-After on 429 and 503, WWW-Authenticate on 401 and scope refusals, Allow on 405, the rate limit on all but 401', () => {
    const responses = op('/things', 'get').responses;
    expect(Object.keys(responses['429']!.headers!)).toContain('Retry-After');
    expect(Object.keys(responses['503']!.headers!)).toContain('Retry-After');
    expect(Object.keys(responses['401']!.headers!)).toEqual(['Request-Id', 'WWW-Authenticate', 'Content-Language']);
    expect(Object.keys(responses['403']!.headers!)).toContain('WWW-Authenticate');
    expect(Object.keys(responses['405']!.headers!)).toEqual([
      'Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'RateLimit-Policy',
      'RateLimit',
      'Allow',
      'Content-Language',
    ]);
    expect(Object.keys(responses['200']!.headers!)).toEqual([
      'Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'RateLimit-Policy',
      'RateLimit',
      'ETag',
    ]);
  });

  test('a deprecated operation is marked and every answer names its Deprecation and Sunset', () => {
    const put = op('/things/{thing_id}/parts/{part_id}', 'put');
    expect(put.deprecated).toBe(true);
    for (const response of Object.values(put.responses))
      expect(Object.keys(response.headers!)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(document.components.headers).toHaveProperty('Sunset');
  });
});

describe('refusing a registry that cannot be described', () => {
  test('a params schema naming a parameter the path lacks', () => {
    const wrong: DescribedOperation = { ...putThing, params: z.object({ thing_id: z.string(), other: z.string() }) };
    expect(() => buildDocument([wrong], 'https://svc.example.org')).toThrow(/other is not in/);
  });

  test('the same method and path twice', () => {
    expect(() => buildDocument([rotate, { ...rotate, operationId: 'again' }], 'https://svc.example.org')).toThrow(
      /described twice/,
    );
  });
});
