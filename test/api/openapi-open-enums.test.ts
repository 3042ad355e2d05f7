import { describe, expect, test } from 'vitest';
import { buildDocument, openApiDocument, type OpenApiDocument } from '../../api/openapi/document.ts';
import type { DescribedOperation } from '../../api/openapi/description-operations.ts';
import { z } from 'zod';

type Node = Record<string, unknown>;

/** JSON Pointers of every `enum` reachable from an answer's schema, `$ref`s followed once each. */
function closedEnumsInAnswers(document: OpenApiDocument): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (value: unknown, where: string): void => {
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${where}/${i}`));
    if (value === null || typeof value !== 'object') return;
    const node = value as Node;
    if ('enum' in node) found.push(where);
    if (typeof node.$ref === 'string' && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      const name = node.$ref.replace('#/components/schemas/', '');
      walk(document.components.schemas[name], `/components/schemas/${name}`);
    }
    // Data is not schema: an example or default naming a value is fine.
    for (const [key, child] of Object.entries(node))
      if (!['examples', 'example', 'default', 'const', 'enum'].includes(key)) walk(child, `${where}/${key}`);
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses))
        walk(response.content, `/paths/${path}/${method}/responses/${status}/content`);
    }
  }
  return found;
}

describe('every enum a channel reads is open', () => {
  test.each(['sandbox', 'production'] as const)(
    'no answer schema of the %s description declares a closed enum',
    (environment) => {
      expect(closedEnumsInAnswers(openApiDocument('https://distribution.test', environment))).toEqual([]);
    },
  );

  test('the check finds a closed enum in an answer, nested behind a reference, and leaves request parameters alone', () => {
    const Kind = z.object({ kind: z.enum(['a', 'b']) }).meta({ id: 'Kind' });
    const operation: DescribedOperation = {
      operationId: 'things',
      method: 'get',
      path: '/things',
      summary: 'Things',
      tags: ['Things'],
      scopes: [],
      query: z.object({ order: z.enum(['asc', 'desc']).optional() }),
      responses: { 200: { description: 'Things', schema: z.object({ data: z.array(Kind) }) } },
      problems: [],
    };
    expect(closedEnumsInAnswers(buildDocument([operation], 'https://svc.example.org'))).toEqual([
      '/components/schemas/Kind/properties/kind',
    ]);
  });

  test('a channel record carries known values as examples, not as a closed list', () => {
    const channel = openApiDocument('https://distribution.test', 'sandbox').components.schemas.Channel as {
      properties: Record<string, Node>;
    };
    expect(channel.properties.environment).toMatchObject({ type: 'string', examples: ['sandbox', 'production'] });
  });
});
