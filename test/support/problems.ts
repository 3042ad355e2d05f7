import { expect } from 'vitest';
import type { HttpResponse } from './https-client.ts';

const BASE_FIELDS = ['type', 'code', 'title', 'status', 'instance', 'request_id'];

/** Asserts an RFC 9457 answer with exactly the contract's fields for that code. */
export function expectProblem(response: HttpResponse, status: number, code: string, extraFields: string[] = []): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json;
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.type).toBe(`https://distribution.test/problems/${code.replaceAll('_', '-')}`);
  expect(body.request_id).toBe(response.headers['request-id']);
  expect(body.instance).toBe(`urn:uuid:${response.headers['request-id']}`);
  expect(response.headers['request-id']).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  const allowed = new Set([...BASE_FIELDS, 'detail', ...extraFields]);
  for (const field of Object.keys(body)) expect(allowed, `unexpected field ${field}`).toContain(field);
  for (const field of [...BASE_FIELDS, ...extraFields]) expect(body, `missing field ${field}`).toHaveProperty(field);
}
