import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import { INTEGRATION_BASE, integrationDocument } from '../../api/integration/index.ts';
import type { JsonSchema } from '../../api/openapi/schemas.ts';
import type { HttpResponse } from './https-client.ts';
import { forValidation, TEST_ORIGIN } from './openapi-validator.ts';

export const integrationDescription = integrationDocument(TEST_ORIGIN);

const DOCUMENT_ID = `${TEST_ORIGIN}${INTEGRATION_BASE}/openapi.json`;
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajvFormats.default(ajv);
ajv.addKeyword('example');
ajv.addSchema(forValidation({ $id: DOCUMENT_ID, $defs: integrationDescription.components.schemas }, DOCUMENT_ID));
const compiled = new Map<string, ValidateFunction>();

interface DescribedResponse {
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: JsonSchema }>;
  'x-error-codes'?: string[];
}

/**
 * Asserts that an answer of the integration interface is one its description promises: the
 * status is described for the operation (any operation of the path, for 405), required headers
 * are present, the body validates (objects closed), and an error's code is listed for the status.
 */
export function expectMatchesIntegrationDescription(method: string, requestPath: string, response: HttpResponse): void {
  const path = requestPath.split('?')[0]!.slice(INTEGRATION_BASE.length);
  const item = (integrationDescription.paths as Record<string, Record<string, { operationId: string; responses: Record<string, DescribedResponse> }>>)[path];
  expect(item, `${path} is not described`).toBeDefined();
  const operation = item![method.toLowerCase()] ?? (response.status === 405 ? Object.values(item!)[0] : undefined);
  expect(operation, `${method} ${path} is not described`).toBeDefined();
  const described = operation!.responses[String(response.status)];
  expect(described, `${response.status} is not described for ${method} ${path}`).toBeDefined();
  const headers = integrationDescription.components.headers as Record<string, { required?: boolean }>;
  for (const name of Object.keys(described!.headers ?? {})) {
    if (headers[name]?.required) expect(response.headers[name.toLowerCase()], `${response.status} of ${method} ${path} lacks ${name}`).toBeDefined();
  }
  if (!described!.content) {
    expect(response.text).toBe('');
    return;
  }
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]!.trim();
  const media = described!.content[mediaType];
  expect(media, `${mediaType} is not described for ${response.status} of ${method} ${path}`).toBeDefined();
  const key = `${operation!.operationId} ${response.status} ${mediaType}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(forValidation(media!.schema, DOCUMENT_ID));
    compiled.set(key, validate);
  }
  const body: unknown = mediaType.endsWith('json') ? response.json : response.text;
  expect(validate(body) ? [] : validate.errors, `${method} ${requestPath} ${response.status} against the description`).toEqual([]);
  if (described!['x-error-codes']) expect(described!['x-error-codes']).toContain(response.json.code ?? response.json.error);
}
