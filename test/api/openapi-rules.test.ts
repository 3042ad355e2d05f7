import { describe, expect, test } from 'vitest';
import { ListQuery } from '../../api/distribution/catalogue.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import { isValidEventPattern, MAX_EVENT_PATTERNS } from '../../domain/events.ts';

// The description states the rules the validators enforce, so a fuzzer generating from it sends
// only what is refused as invalid (and everything it calls valid is refused for a stated reason).
const document = openApiDocument('https://distribution.test', 'sandbox') as unknown as {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name?: string; schema?: { pattern?: string } }[];
        requestBody?: {
          content: Record<
            string,
            {
              schema: {
                properties: Record<
                  string,
                  { items?: { pattern?: string; maxLength?: number }; uniqueItems?: boolean; maxItems?: number }
                >;
              };
            }
          >;
        };
      }
    >
  >;
};

describe('the description states the rules the handlers enforce', () => {
  const statusPattern = new RegExp(
    document.paths['/properties']!.get!.parameters!.find((p) => p.name === 'status')!.schema!.pattern!,
  );

  test.each([
    'active',
    'active,inactive',
    ' withdrawn , deleted',
    'deleted,active,active',
    '',
    ',',
    'active,',
    'gone',
    'Active',
    'active;inactive',
  ])('status %j: the stated pattern and the query schema agree', (status) => {
    expect(statusPattern.test(status)).toBe(ListQuery.safeParse({ status }).success);
  });

  const events = document.paths['/webhooks']!.post!.requestBody!.content['application/json']!.schema.properties.events!;

  test.each([
    '*',
    'property.*',
    'availability.updated',
    'booking.created',
    'webhook.ping',
    'Property.*',
    'property',
    'a.b.c',
    '*.*',
    ' property.updated',
    `property.${'x'.repeat(92)}`,
  ])('webhook event %j: the stated pattern and length agree with the validator', (candidate) => {
    const stated = new RegExp(events.items!.pattern!).test(candidate) && candidate.length <= events.items!.maxLength!;
    expect(stated).toBe(isValidEventPattern(candidate));
  });

  test("webhook events: distinct, up to the contract's 20, no closed list that would cap them below it", () => {
    expect(events.uniqueItems).toBe(true);
    expect(events.maxItems).toBe(MAX_EVENT_PATTERNS);
    expect(MAX_EVENT_PATTERNS).toBe(20);
    expect(events.items).not.toHaveProperty('enum');
  });
});
