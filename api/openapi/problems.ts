import { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../../domain/problems.ts';
import type { Operation } from '../operations.ts';

const ParameterError = z
  .union([
    z.object({
      detail: z.string(),
      code: z.string(),
      parameter: z.string().meta({ description: 'Name of the query or path parameter.' }),
    }),
    z.object({
      detail: z.string(),
      code: z.string(),
      header: z.string().meta({ description: 'Name of the request header.' }),
    }),
    z.object({
      detail: z.string(),
      code: z.string(),
      pointer: z.string().meta({ description: 'RFC 6901 JSON Pointer into the request body.' }),
    }),
  ])
  .meta({
    id: 'ParameterError',
    description:
      'One failed rule. `code` names the rule (for example `max`, `date_format`, `url_not_allowed`, `max_nights`); exactly one of `parameter`, `header` or `pointer` says where.',
  });

export const Problem = z
  .object({
    type: z.url().meta({ description: 'Address of the page describing this problem type: `{problem_base}/<slug>`.' }),
    code: z.string().meta({
      description: 'Stable identifier of the refusal. The list is open: treat an unknown code by its status.',
    }),
    title: z.string().meta({ description: 'Human text in the language of `Accept-Language`; never branch on it.' }),
    status: z.int().min(400).max(599),
    detail: z.string().optional().meta({ description: 'Detail of this occurrence.' }),
    instance: z
      .string()
      .regex(/^urn:uuid:[0-9a-f-]{36}$/)
      .meta({ description: '`urn:uuid:` followed by the `Request-Id`.' }),
    request_id: z.uuid().meta({ description: 'Equal to the `Request-Id` header.' }),
    required_scopes: z.array(z.string()).optional().meta({
      description:
        'Only with `insufficient_scope`: the scopes the key lacks; every one is needed unless `required_scopes_match` is `any`.',
    }),
    required_scopes_match: z
      .string()
      .optional()
      .meta({
        description:
          'Only with `insufficient_scope`, when one of `required_scopes` is enough (an operation that takes either of two scopes): `any`. Absent: every listed scope is needed. Open enum.',
        examples: ['any'],
      }),
    errors: z.array(ParameterError).optional().meta({
      description:
        'Only with `invalid_parameters`: one entry per failed rule, every rule the request breaks in one answer (query, path and body together, with the rules between fields and against stored data). A rule that reads a field whose own shape is broken is not checked: that field is named once. At most 100 entries; `detail` then says more failed.',
    }),
    horizon_end: z.iso.date().optional().meta({
      description:
        "Only with `window_beyond_horizon`: the property's `horizon_end`; for a listing of several properties, the latest `horizon_end` of any.",
    }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details, served as `application/problem+json`.' });

/** The channel key's refusals: the distribution interface's guards. */
export const AUTHENTICATION: ProblemCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'api_key_wrong_environment',
  'api_key_expired',
  'api_key_revoked',
  'too_many_failed_authentications',
  'partner_suspended',
  'rate_limited',
];

const takesBody = (operation: Operation) =>
  operation.body !== undefined || ['post', 'put', 'patch'].includes(operation.method);

/**
 * Every code the operation can answer: its own and those of the envelope the interface router and
 * the app wrap around it. 405 and 503 are listed on every operation: the contract answers them the
 * same way on every path, and OpenAPI has no place for an answer to a method a path lacks.
 */
export function problemCodesOf(
  operation: Operation,
  guards: readonly ProblemCode[] = operation.scopes !== null ? AUTHENTICATION : [],
): ProblemCode[] {
  const codes = new Set<ProblemCode>(operation.problems);
  for (const code of guards) codes.add(code);
  if (operation.scopes && operation.scopes.length > 0) codes.add('insufficient_scope');
  if (operation.query || operation.params || operation.body) codes.add('invalid_parameters');
  if (takesBody(operation))
    for (const code of ['invalid_parameters', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  codes.add('method_not_allowed');
  if (operation.planned) codes.add('not_implemented');
  codes.add('internal');
  codes.add('service_unavailable');
  return [...codes];
}

/** Codes grouped by HTTP status, statuses ascending, codes in catalogue order. */
export function codesByStatus(codes: readonly ProblemCode[]): Map<number, ProblemCode[]> {
  const ordered = (Object.keys(PROBLEMS) as ProblemCode[]).filter((code) => codes.includes(code));
  const groups = new Map<number, ProblemCode[]>();
  for (const code of ordered.sort((a, b) => PROBLEMS[a].status - PROBLEMS[b].status)) {
    const status = PROBLEMS[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return groups;
}

export function problemDescription(codes: readonly ProblemCode[]): string {
  return codes.map((code) => `\`${code}\`: ${PROBLEMS[code].title.en}. ${PROBLEMS[code].description}`).join('\n\n');
}
