import { describe, expect, test } from 'vitest';
import { ListQuery } from '../../api/distribution/catalogue.ts';
import { openApiDocument } from '../../api/openapi/document.ts';
import { EVENT_TYPES, isValidEventPattern, PING_EVENT_TYPE } from '../../domain/events.ts';

// The description states rules the handlers check themselves, so a fuzzer generating from it sends
// only what is refused as invalid (and everything it calls valid is refused for a stated reason).
const document = openApiDocument('https://distribution.test', 'sandbox') as unknown as {
  paths: Record<string, Record<string, { parameters?: { name?: string; schema?: { pattern?: string } }[]; requestBody?: { content: Record<string, { schema: { properties: Record<string, { items?: { enum?: string[] }; uniqueItems?: boolean }> } }> } }>>;
};

describe('the description states the rules the handlers enforce', () => {
  const statusPattern = new RegExp(document.paths['/properties']!.get!.parameters!.find((p) => p.name === 'status')!.schema!.pattern!);

  test.each(['active', 'active,inactive', ' withdrawn , deleted', 'deleted,active,active', '', ',', 'active,', 'gone', 'Active', 'active;inactive'])(
    'status %j: the stated pattern and the query schema agree',
    (status) => {
      expect(statusPattern.test(status)).toBe(ListQuery.safeParse({ status }).success);
    },
  );

  test('webhook events: the stated values are exactly the patterns accepted, without the ping', () => {
    const events = document.paths['/webhooks']!.post!.requestBody!.content['application/json']!.schema.properties.events!;
    expect(events.uniqueItems).toBe(true);
    const stated = events.items!.enum!;
    expect(stated.every(isValidEventPattern)).toBe(true);
    expect(stated).not.toContain(PING_EVENT_TYPE);
    for (const candidate of [...EVENT_TYPES, '*', 'property.*', 'availability.*', 'webhook.*', 'property', 'x.*']) {
      expect(stated.includes(candidate)).toBe(isValidEventPattern(candidate));
    }
  });
});
