import type { Scope } from '../../domain/scopes.ts';
import type { HttpMethod, Operation } from '../operations.ts';

/**
 * Operations of the contract's Endpoints table not served yet. Each is routed (answering 501
 * `not_implemented` after authentication and the scope check) and described with
 * `x-svc-availability: planned`; serving one means moving it out of this list.
 * Scopes the contract leaves unshown are chosen here and documented in the description.
 */
const planned = (method: HttpMethod, path: string, operationId: string, summary: string, tags: string[], scopes: Scope[]): Operation => ({
  operationId, method, path, summary, tags, scopes, planned: true, problems: [], responses: { 200: { description: summary } },
});

export const plannedOperations: Operation[] = [
  planned('get', '/properties/{property_id}/listing', 'getListingReport', "The channel's last listing report for a property", ['Listing reports'], ['write:listings']),
  planned('put', '/properties/{property_id}/listing', 'putListingReport', 'Report the publication state of a property on the channel', ['Listing reports'], ['write:listings']),
  planned('post', '/listing-stats', 'postListingStats', 'Report daily listing statistics', ['Listing reports'], ['write:listings']),
];
