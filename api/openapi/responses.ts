import type { z } from 'zod';
import type { ProblemCode } from '../../domain/problems.ts';
import type { DocumentComponents } from './components.ts';
import type { DescribedOperation } from './description-operations.ts';
import { RATE_LIMIT_HEADERS, type HeaderName } from './headers.ts';
import { codesByStatus, problemCodesOf, problemDescription } from './problems.ts';
import type { Ref, ResponseObject } from './types.ts';

/** Every successful GET carries a weak ETag and answers 304 to it (api/conditional.ts). */
export const isConditional = (op: DescribedOperation): boolean => op.method === 'get';

/** The header fields of `op`'s answer with `status`, refusing with `codes` if any. */
function headersFor(
  components: DocumentComponents,
  op: DescribedOperation,
  status: number,
  codes: readonly ProblemCode[],
): Record<string, Ref> {
  const names: HeaderName[] = ['Request-Id'];
  // Every answer to a request with a usable key counts and says so (a 405 too); a 401 had none.
  if (components.profile.rateLimited(op) && status !== 401) names.push(...RATE_LIMIT_HEADERS);
  if (isConditional(op) && (status === 200 || status === 304)) names.push('ETag');
  if (op.publicCache && (status === 200 || status === 304)) names.push('Cache-Control');
  if (status === 429 || status === 503) names.push('Retry-After');
  if (status === 401 || codes.includes('insufficient_scope')) names.push('WWW-Authenticate');
  if (status === 405) names.push('Allow');
  if (codes.length > 0) names.push('Content-Language');
  if (op.deprecation) names.push('Deprecation', 'Sunset');
  if (op.deprecation?.link !== undefined || (op.paged && status === 200)) names.push('Link');
  return Object.fromEntries(names.map((name) => [name, components.header(name)]));
}

function contentOf(
  components: DocumentComponents,
  op: DescribedOperation,
  body: z.ZodType,
  mediaType: string | undefined,
  alternatives: Record<string, z.ZodType> = {},
): ResponseObject['content'] {
  const { schemas } = components;
  const content: NonNullable<ResponseObject['content']> = {
    [mediaType ?? op.mediaType ?? 'application/json']: { schema: schemas.convert(body, 'output', op.operationId) },
  };
  for (const [type, schema] of Object.entries(alternatives))
    content[type] = { schema: schemas.convert(schema, 'output', op.operationId) };
  return content;
}

/** The answers `op` declares, with the 304 of a conditional GET. */
function declaredResponses(components: DocumentComponents, op: DescribedOperation): Record<string, ResponseObject> {
  const declared = { ...op.responses };
  if (isConditional(op)) declared[304] ??= { description: 'Not modified: `If-None-Match` matched the current `ETag`.' };
  const responses: Record<string, ResponseObject> = {};
  for (const [status, response] of Object.entries(declared)) {
    const body = status === '204' || status === '304' ? undefined : response.schema;
    responses[status] = {
      description: response.description,
      headers: headersFor(components, op, Number(status), []),
      ...(body ? { content: contentOf(components, op, body, response.mediaType, response.alternatives) } : {}),
    };
  }
  return responses;
}

/** Every answer of `op`: the declared ones, then its refusals merged in by status. */
export function responsesOf(components: DocumentComponents, op: DescribedOperation): Record<string, ResponseObject> {
  const { profile } = components;
  const responses = declaredResponses(components, op);
  for (const [status, codes] of codesByStatus(problemCodesOf(op, profile.guarded(op) ? profile.guardProblems : []))) {
    const own = responses[status];
    responses[status] = {
      description: own ? `${own.description}\n\n${problemDescription(codes)}` : problemDescription(codes),
      headers: { ...own?.headers, ...headersFor(components, op, status, codes) },
      content: { ...own?.content, 'application/problem+json': { schema: components.problemRef } },
      'x-problem-codes': codes,
    };
  }
  return responses;
}
