import { describe, expect, test } from 'vitest';
import { platformDocument } from '../../api/internal/openapi.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import { WEBHOOK_EVENT_TYPES as DESCRIBED_TYPES } from '../../api/openapi/webhooks.ts';
import { EVENT_TYPES, PING_EVENT_TYPE } from '../../domain/events.ts';

// The description's `webhooks` section (OpenAPI 3.1): what the service POSTs to an endpoint.
describe('the webhooks section', () => {
  test.each(['sandbox', 'production'] as const)(
    '%s: one entry per event type and the test ping, each with the three Standard Webhooks headers',
    (environment) => {
      const document = openApiDocument('https://distribution.test', environment);
      expect(Object.keys(document.webhooks ?? {})).toEqual([...EVENT_TYPES, PING_EVENT_TYPE]);
      expect(DESCRIBED_TYPES).toEqual([...EVENT_TYPES, PING_EVENT_TYPE]);
      for (const [type, entry] of Object.entries(document.webhooks!)) {
        const headers = (entry.post.parameters ?? []).map((p) => ('name' in p ? [p.name, p.in, p.required] : p));
        expect(headers, type).toEqual([
          ['webhook-id', 'header', true],
          ['webhook-timestamp', 'header', true],
          ['webhook-signature', 'header', true],
        ]);
        const schema = entry.post.requestBody!.content['application/json']!.schema;
        const component = document.components.schemas[String(schema.$ref).split('/').pop()!]!;
        expect((component.properties as Record<string, unknown>).type, type).toEqual({ type: 'string', const: type });
      }
    },
  );

  test('an entry needs no key and lists no answer of the interface: a receiver answers it', () => {
    const document = openApiDocument('https://distribution.test', 'sandbox');
    for (const entry of Object.values(document.webhooks!)) {
      expect(entry.post.security).toEqual([]);
      expect(Object.keys(entry.post.responses)).toEqual(['default']);
      expect(entry.post.tags).toEqual(['Webhook events']);
    }
    expect(document.tags.map((tag) => tag.name)).toContain('Webhook events');
    // The platform is sent no webhook.
    expect(platformDocument('https://distribution.test').webhooks).toBeUndefined();
  });
});
