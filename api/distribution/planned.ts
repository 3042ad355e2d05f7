import type { Scope } from '../../domain/scopes.ts';
import type { HttpMethod, Operation } from '../operations.ts';

/**
 * Operations agreed for v1 (docs/contract.md#versioning, rule 4) not served yet. Each is routed (answering 501
 * `not_implemented` after authentication and the scope check) and described with
 * `x-svc-availability: planned`; serving one means moving it out of this list.
 * Scopes the contract leaves unshown are chosen here and documented in the description.
 */
export const planned = (
  method: HttpMethod,
  path: string,
  operationId: string,
  summary: string,
  tags: string[],
  scopes: Scope[],
): Operation => ({
  operationId,
  method,
  path,
  summary,
  tags,
  scopes,
  planned: true,
  problems: [],
  responses: { 200: { description: summary } },
});

// Every operation of the contract is served (GET /quotes is still planned in production: `plannedIn`).
export const plannedOperations: Operation[] = [];
