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
  planned('get', '/availability', 'listAvailability', 'Nightly availability, prices and restrictions', ['Availability'], ['read:ari']),
  planned('get', '/quotes', 'getQuote', 'Exact price of a stay (stage 2)', ['Availability'], ['read:ari']),
  planned('get', '/properties/{property_id}/listing', 'getListingReport', "The channel's last listing report for a property", ['Listing reports'], ['write:listings']),
  planned('put', '/properties/{property_id}/listing', 'putListingReport', 'Report the publication state of a property on the channel', ['Listing reports'], ['write:listings']),
  planned('post', '/listing-stats', 'postListingStats', 'Report daily listing statistics', ['Listing reports'], ['write:listings']),
  planned('get', '/owner-connect/keys', 'getOwnerConnectKeys', 'JWKS of the owner-connect token signing keys', ['Owner connect'], []),
  planned('put', '/owners/{owner_id}/connection', 'putOwnerConnection', 'Confirm an owner-connect token', ['Owner connect'], ['read:catalog']),
  planned('delete', '/owners/{owner_id}/connection', 'deleteOwnerConnection', "Remove an owner's connection", ['Owner connect'], ['read:catalog']),
  planned('get', '/webhooks', 'listWebhooks', "The channel's webhook endpoints", ['Webhooks'], ['manage:webhooks']),
  planned('post', '/webhooks', 'createWebhook', 'Register a webhook endpoint', ['Webhooks'], ['manage:webhooks']),
  planned('get', '/webhooks/{webhook_id}', 'getWebhook', 'One webhook endpoint', ['Webhooks'], ['manage:webhooks']),
  planned('delete', '/webhooks/{webhook_id}', 'deleteWebhook', 'Delete a webhook endpoint, its pending deliveries and its secrets', ['Webhooks'], ['manage:webhooks']),
  planned('post', '/webhooks/{webhook_id}/test', 'testWebhook', 'Send a signed ping', ['Webhooks'], ['manage:webhooks']),
  planned('post', '/webhooks/{webhook_id}/enable', 'enableWebhook', 'Re-enable an inactive endpoint after a successful ping', ['Webhooks'], ['manage:webhooks']),
  planned('post', '/webhooks/{webhook_id}/rotate-secret', 'rotateWebhookSecret', 'Issue a new signing secret', ['Webhooks'], ['manage:webhooks']),
  planned('get', '/webhooks/{webhook_id}/deliveries', 'listWebhookDeliveries', 'Deliveries of an endpoint, newest first', ['Webhooks'], ['manage:webhooks']),
  planned('get', '/webhooks/{webhook_id}/deliveries/{delivery_id}', 'getWebhookDelivery', 'Every attempt of one delivery', ['Webhooks'], ['manage:webhooks']),
];
