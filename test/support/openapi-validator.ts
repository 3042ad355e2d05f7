import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { openApiDocument, type OperationObject } from '../../api/openapi/document.ts';
import type { HeaderObject } from '../../api/openapi/headers.ts';
import { mapSchema, type JsonSchema } from '../../api/openapi/schemas.ts';
import type { HttpResponse } from './https-client.ts';

/** The origin `startTestApi` announces. */
export const TEST_ORIGIN = 'https://distribution.test';
export const description = openApiDocument(TEST_ORIGIN, 'sandbox');
/** What a production deployment describes: operations served on the sandbox first are planned there. */
export const productionDescription = openApiDocument(TEST_ORIGIN, 'production');

const DOCUMENT_ID = `${TEST_ORIGIN}/openapi.json`;

/**
 * Component refs point into one schema holding every component; and every object that lists its
 * properties is closed, so an answer carrying a field the description does not list fails here,
 * although the description itself leaves objects open for clients (v1 only grows).
 */
export function forValidation(schema: JsonSchema, documentId = DOCUMENT_ID): JsonSchema {
  return mapSchema(schema, (node, parent) => {
    const out = { ...node };
    if (typeof out.$ref === 'string') out.$ref = out.$ref.replace('#/components/schemas/', `${documentId}#/$defs/`);
    const open = out.additionalProperties !== undefined || out.unevaluatedProperties !== undefined;
    if (out.properties !== undefined && !open && parent !== 'allOf') out.unevaluatedProperties = false;
    return out;
  });
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
ajvFormats.default(ajv);
ajv.addKeyword('example');
ajv.addSchema(forValidation({ $id: DOCUMENT_ID, $defs: description.components.schemas }));
const compiled = new Map<string, ValidateFunction>();

function validator(key: string, schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(forValidation(schema));
    compiled.set(key, validate);
  }
  return validate;
}

const templates = Object.keys(description.paths)
  .map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: template.split('{').length - 1,
  }))
  .sort((a, b) => a.params - b.params);

/** The described path a request path falls under, literal segments winning over parameters. */
export function describedPath(requestPath: string): string | undefined {
  const bare = (requestPath.split('?')[0] ?? '').slice(DISTRIBUTION_BASE.length);
  if (!requestPath.startsWith(DISTRIBUTION_BASE)) return undefined;
  return templates.find(({ pattern }) => pattern.test(bare))?.template;
}

/**
 * Asserts that an answer is one the description promises: its path and method (or, for 405, its
 * path) are described, with this status; its required headers are present; its body validates
 * against the schema of its media type; and a problem's `code` is listed for that status.
 */
export function expectMatchesDescription(
  method: string,
  requestPath: string,
  response: HttpResponse,
  document = description,
): void {
  const template = describedPath(requestPath);
  expect(template, `${requestPath} is not described`).toBeDefined();
  const item = document.paths[template!]!;
  const operations: OperationObject[] = Object.values(item);
  const operation =
    (item as Record<string, OperationObject>)[method.toLowerCase()] ??
    (response.status === 405 ? operations[0] : undefined);
  expect(operation, `${method} ${template} is not described`).toBeDefined();
  const described = operation!.responses[String(response.status)];
  expect(described, `${response.status} is not described for ${method} ${template}`).toBeDefined();

  const headers = document.components.headers as Record<string, HeaderObject>;
  for (const name of Object.keys(described!.headers ?? {})) {
    if (headers[name]?.required)
      expect(
        response.headers[name.toLowerCase()],
        `${response.status} of ${method} ${template} lacks ${name}`,
      ).toBeDefined();
  }

  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!described!.content) {
    expect(response.text, `${response.status} of ${method} ${template} is described without a body`).toBe('');
    return;
  }
  const media = described!.content[mediaType];
  expect(media, `${mediaType} is not described for ${response.status} of ${method} ${template}`).toBeDefined();
  const body: unknown = mediaType.endsWith('json') ? response.json : response.text;
  const validate = validator(`${operation!.operationId} ${response.status} ${mediaType}`, media!.schema);
  expect(
    validate(body) ? [] : validate.errors,
    `${method} ${requestPath} ${response.status} against the description`,
  ).toEqual([]);
  if (mediaType === 'application/problem+json') expect(described!['x-problem-codes']).toContain(response.json.code);
}
