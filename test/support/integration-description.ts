import { expect } from 'vitest';
import { INTEGRATION_BASE, integrationDocument } from '../../api/integration/index.ts';
import type { HttpResponse } from './https-client.ts';
import { describedAnswers, type DescribedOperation } from './described-answers.ts';
import { TEST_ORIGIN } from './openapi-validator.ts';

export const integrationDescription = integrationDocument(TEST_ORIGIN);

const answers = describedAnswers(
  `${TEST_ORIGIN}${INTEGRATION_BASE}/openapi.json`,
  integrationDescription,
  'description',
);

/**
 * Asserts that an answer of the integration interface is one its description promises: the
 * status is described for the operation (any operation of the path, for 405), required headers
 * are present, the body validates (objects closed), and an error's code is listed for the status.
 */
export function expectMatchesIntegrationDescription(method: string, requestPath: string, response: HttpResponse): void {
  const path = requestPath.split('?')[0]!.slice(INTEGRATION_BASE.length);
  const item = (integrationDescription.paths as Record<string, Record<string, DescribedOperation>>)[path];
  expect(item, `${path} is not described`).toBeDefined();
  const operation = item![method.toLowerCase()] ?? (response.status === 405 ? Object.values(item!)[0] : undefined);
  expect(operation, `${method} ${path} is not described`).toBeDefined();
  const checked = answers.expectDescribed(operation!, method, path, requestPath, response);
  if (checked?.described['x-error-codes'])
    expect(checked.described['x-error-codes']).toContain(response.json.code ?? response.json.error);
}
