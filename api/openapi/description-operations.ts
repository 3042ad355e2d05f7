import { z } from 'zod';
import type { Scope } from '../../domain/scopes.ts';
import type { RoutedOperation } from '../operations.ts';

/** An operation whose answer is not JSON names its media type. */
export type DescribedOperation<S extends string = Scope> = RoutedOperation<S> & { mediaType?: string };

export const DESCRIPTION_PATH = '/openapi.json';
export const CHANGELOG_PATH = '/CHANGELOG.md';

/**
 * The description describes itself and its changelog, so a client finds both from it. They are
 * served by `descriptionRouter`, not the interface router: they need no key and are not JSON only.
 * Needing no scope (`never`), they fit every interface's list of operations.
 */
export const descriptionOperations: DescribedOperation<never>[] = [
  {
    operationId: 'getOpenApiDescription',
    method: 'get',
    path: DESCRIPTION_PATH,
    summary: 'This machine-readable description (OpenAPI 3.1)',
    description: 'One address for all of v1; `info.version` names the revision.',
    tags: ['Description'],
    scopes: null,
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        schema: z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ version: z.string() }) }),
      },
      304: { description: 'Not modified: `If-None-Match` matched the current `ETag`.' },
    },
    problems: [],
  },
  {
    operationId: 'getChangelog',
    method: 'get',
    path: CHANGELOG_PATH,
    summary: 'Changes of each revision of v1',
    description: 'Markdown, newest revision first; one entry per `info.version`.',
    tags: ['Description'],
    scopes: null,
    mediaType: 'text/markdown',
    responses: {
      200: { description: 'The changelog', schema: z.string() },
      304: { description: 'Not modified: `If-None-Match` matched the current `ETag`.' },
    },
    problems: [],
  },
];
