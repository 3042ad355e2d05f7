import { expect } from 'vitest';
import { INTERNAL_BASE } from '../../api/internal/catalogue.ts';
import { platformDocument } from '../../api/internal/openapi.ts';
import type { OperationObject } from '../../api/openapi/document.ts';
import type { JsonSchema } from '../../api/openapi/schemas.ts';
import type { HttpResponse } from './https-client.ts';
import { describedAnswers } from './described-answers.ts';
import { TEST_ORIGIN } from './openapi-validator.ts';

export const platformDescription = platformDocument(TEST_ORIGIN);

const answers = describedAnswers(
  `${TEST_ORIGIN}${INTERNAL_BASE}/openapi.json`,
  platformDescription,
  'platform description',
);

const templates = Object.keys(platformDescription.paths)
  .map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: template.split('{').length - 1,
  }))
  .sort((a, b) => a.params - b.params);

/** The described path a request path falls under (literal segments win), or undefined for a path the interface does not have. */
export function describedPlatformPath(requestPath: string): string | undefined {
  if (!requestPath.startsWith(INTERNAL_BASE)) return undefined;
  const bare = (requestPath.split('?')[0] ?? '').slice(INTERNAL_BASE.length);
  return templates.find(({ pattern }) => pattern.test(bare))?.template;
}

/**
 * Asserts that an answer of the platform interface is one its description promises: its path and
 * method (any method of the path, for 405) are described with this status, required headers are
 * present, the body validates against its media type's schema (objects closed), and a problem's
 * code is listed for the status.
 */
export function expectMatchesPlatformDescription(method: string, requestPath: string, response: HttpResponse): void {
  const template = describedPlatformPath(requestPath);
  expect(template, `${requestPath} is not described`).toBeDefined();
  const item = platformDescription.paths[template!] as Record<string, OperationObject>;
  const operation = item[method.toLowerCase()] ?? (response.status === 405 ? Object.values(item)[0] : undefined);
  expect(operation, `${method} ${template} is not described`).toBeDefined();
  const checked = answers.expectDescribed(operation!, method, template!, requestPath, response);
  if (checked?.mediaType === 'application/problem+json')
    expect(checked.described['x-problem-codes']).toContain(response.json.code);
}

/**
 * Whether the description's schema for the JSON body of an operation takes `body`: what a client
 * validating against the description (or a fuzzer generating from it) would conclude.
 */
export function platformDescriptionTakesBody(method: string, template: string, body: unknown): boolean {
  const operation = (platformDescription.paths[template] as Record<string, OperationObject> | undefined)?.[
    method.toLowerCase()
  ];
  const schema = (operation as { requestBody?: { content: Record<string, { schema: JsonSchema }> } } | undefined)
    ?.requestBody?.content['application/json']?.schema;
  expect(schema, `${method} ${template} describes no JSON body`).toBeDefined();
  return answers.validator(`${operation!.operationId} request`, schema!)(body);
}
