import { descriptionOperations, type DescribedOperation } from '../openapi/description-operations.ts';
import { buildDocument, type DescriptionProfile, type OpenApiDocument } from '../openapi/document.ts';
import { HEADERS } from '../openapi/headers.ts';
import { INTERNAL_BASE, internalOperations } from './catalogue.ts';
import { PLATFORM_REVISION, PLATFORM_TAG_DESCRIPTIONS, platformInfo } from './info.ts';

/** Everything the platform description lists: the registry, and the description's own two addresses. */
export const describedPlatformOperations: readonly DescribedOperation[] = [
  ...internalOperations,
  ...descriptionOperations,
];

const open = new Set(descriptionOperations.map((op) => op.operationId));

/** The platform interface: one token, no scopes, no rate limit; refusals are problem details as on the distribution interface. */
export const PLATFORM_PROFILE: DescriptionProfile = {
  title: 'Distribution Service: platform interface',
  version: PLATFORM_REVISION,
  base: INTERNAL_BASE,
  info: () => platformInfo(INTERNAL_BASE),
  tagDescriptions: PLATFORM_TAG_DESCRIPTIONS,
  securityScheme: {
    name: 'PlatformToken',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'The platform token: 32 or more characters',
      description:
        "The platform's token, `Authorization: Bearer <PLATFORM_TOKEN>` (the deployment's `PLATFORM_TOKEN`). Channel keys and integration tokens are refused.",
    },
  },
  guarded: (op) => !open.has(op.operationId),
  guardProblems: ['platform_token_invalid', 'too_many_failed_authentications'],
  rateLimited: () => false,
  authentication: (op) => (open.has(op.operationId) ? 'No token needed.' : 'Needs the platform token.'),
  headers: {
    'WWW-Authenticate': {
      ...HEADERS['WWW-Authenticate'],
      description:
        'RFC 6750 challenge with realm `platform`; `error="invalid_token"` for a token that was sent but refused.',
    },
  },
};

const documents = new Map<string, OpenApiDocument>();

/** Built once per public origin: the registry does not change while the process runs. */
export function platformDocument(publicOrigin: string): OpenApiDocument {
  let document = documents.get(publicOrigin);
  if (!document) {
    document = buildDocument(describedPlatformOperations, publicOrigin, PLATFORM_PROFILE);
    documents.set(publicOrigin, document);
  }
  return document;
}
