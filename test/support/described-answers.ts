import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { JsonSchema } from '../../api/openapi/schemas.ts';
import type { HttpResponse } from './https-client.ts';
import { forValidation } from './openapi-validator.ts';

export interface DescribedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema }>;
  'x-error-codes'?: string[];
  'x-problem-codes'?: string[];
}

export interface DescribedOperation {
  operationId: string;
  responses: Record<string, DescribedResponse>;
}

/**
 * Checks answers against one served description (the integration's, the platform's): a
 * validator per schema, compiled once, with every object closed.
 */
export function describedAnswers(
  documentId: string,
  document: { components: { schemas?: unknown; headers?: unknown } },
  label: string,
) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajvFormats.default(ajv);
  ajv.addKeyword('example');
  ajv.addSchema(forValidation({ $id: documentId, $defs: document.components.schemas }, documentId));
  const compiled = new Map<string, ValidateFunction>();
  const headers = (document.components.headers ?? {}) as Record<string, { required?: boolean }>;

  /** The validator of `schema`, compiled once under `key`. */
  function validator(key: string, schema: JsonSchema): ValidateFunction {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(forValidation(schema, documentId));
      compiled.set(key, validate);
    }
    return validate;
  }

  /**
   * Asserts that the status is described for the operation, required headers are present and the
   * body validates against its media type's schema; answers what was described, for the caller's
   * check of error codes.
   */
  function expectDescribed(
    operation: DescribedOperation,
    method: string,
    where: string,
    requestPath: string,
    response: HttpResponse,
  ): { described: DescribedResponse; mediaType: string } | undefined {
    const described = operation.responses[String(response.status)];
    expect(described, `${response.status} is not described for ${method} ${where}`).toBeDefined();
    for (const name of Object.keys(described!.headers ?? {})) {
      if (headers[name]?.required)
        expect(
          response.headers[name.toLowerCase()],
          `${response.status} of ${method} ${where} lacks ${name}`,
        ).toBeDefined();
    }
    if (!described!.content) {
      expect(response.text, `${response.status} of ${method} ${where} is described without a body`).toBe('');
      return undefined;
    }
    const mediaType = (response.headers['content-type'] ?? '').split(';')[0]!.trim();
    const media = described!.content[mediaType];
    expect(media, `${mediaType} is not described for ${response.status} of ${method} ${where}`).toBeDefined();
    const validate = validator(`${operation.operationId} ${response.status} ${mediaType}`, media!.schema);
    const body: unknown = mediaType.endsWith('json') ? response.json : response.text;
    expect(
      validate(body) ? [] : validate.errors,
      `${method} ${requestPath} ${response.status} against the ${label}`,
    ).toEqual([]);
    return { described: described!, mediaType };
  }

  return { validator, expectDescribed };
}
