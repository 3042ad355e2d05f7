import { DISTRIBUTION_BASE, distributionOperations } from '../distribution/index.ts';
import { isPlannedIn, isServedIn, type DeploymentEnvironment } from '../operations.ts';
import { DocumentComponents } from './components.ts';
import { descriptionOperations, type DescribedOperation } from './description-operations.ts';
import { API_REVISION, infoDescription, scopeText, TAG_DESCRIPTIONS } from './info.ts';
import { operationObject } from './operation-object.ts';
import { AUTHENTICATION } from './problems.ts';
import type { DescriptionProfile } from './profile.ts';
import type { OpenApiDocument } from './types.ts';
import { WEBHOOK_TAG, WEBHOOK_TAG_DESCRIPTION, webhookEntries } from './webhooks.ts';

export { API_REVISION } from './info.ts';
export type { DescriptionProfile } from './profile.ts';
export type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from './types.ts';

/** Everything the description lists: the registry, and the description's own two addresses. */
export const describedOperations: readonly DescribedOperation[] = [...distributionOperations, ...descriptionOperations];

/** The distribution interface: channel keys with scopes, rate-limited per channel. */
export const DISTRIBUTION_PROFILE: DescriptionProfile = {
  title: 'Distribution Service: distribution interface',
  version: API_REVISION,
  base: DISTRIBUTION_BASE,
  info: (operations) => infoDescription(operations, DISTRIBUTION_BASE),
  tagDescriptions: TAG_DESCRIPTIONS,
  securityScheme: {
    name: 'ApiKey',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key: `svc_live_` (production) or `svc_test_` (sandbox), 63 characters',
      description:
        "The channel's key, `Authorization: Bearer <API_KEY>`. The scopes an operation needs are listed in its security requirement and `x-required-scopes`.",
    },
  },
  guarded: (op) => op.scopes !== null,
  guardProblems: AUTHENTICATION,
  rateLimited: (op) => op.scopes !== null,
  authentication: scopeText,
  webhooks: { tag: { name: WEBHOOK_TAG, description: WEBHOOK_TAG_DESCRIPTION }, entries: webhookEntries },
};

/** The description of `operations` as served at `publicOrigin`; pure, for tests of its own. */
export function buildDocument(
  operations: readonly DescribedOperation[],
  publicOrigin: string,
  profile: DescriptionProfile = DISTRIBUTION_PROFILE,
): OpenApiDocument {
  const components = new DocumentComponents(profile);
  const paths = pathsOf(components, operations);
  const tags = tagsOf(profile, operations);
  const webhooks = profile.webhooks?.entries(components.schemas);
  if (profile.webhooks) tags.push(profile.webhooks.tag);
  return {
    openapi: '3.1.0',
    info: { title: profile.title, version: profile.version, description: profile.info(operations) },
    servers: [
      {
        url: `${publicOrigin}${profile.base}`,
        description: 'This deployment (one environment: sandbox or production)',
      },
    ],
    security: [{ [profile.securityScheme.name]: [] }],
    tags,
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: {
      securitySchemes: { [profile.securityScheme.name]: profile.securityScheme.scheme },
      schemas: components.schemas.schemas,
      headers: components.headers,
      parameters: components.parameters,
    },
  };
}

/** One path item per path, one operation per method; its schemas, headers and parameters land in `components`. */
function pathsOf(components: DocumentComponents, operations: readonly DescribedOperation[]): OpenApiDocument['paths'] {
  // Answers first: a named schema's component is its output shape; an input shape that differs
  // becomes `<id>Input` whichever operation meets it first.
  for (const op of operations) {
    for (const response of Object.values(op.responses))
      if (response.schema) components.schemas.convert(response.schema, 'output', op.operationId);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
    item[op.method] = operationObject(components, op);
  }
  return paths;
}

/** Each tag the operations use, in the order they first use it. */
function tagsOf(profile: DescriptionProfile, operations: readonly DescribedOperation[]): OpenApiDocument['tags'] {
  return [...new Set(operations.flatMap((op) => op.tags))].map((name) => ({
    name,
    description: profile.tagDescriptions[name] ?? `Operations about ${name.toLowerCase()}.`,
  }));
}

const built = new Map<string, OpenApiDocument>();

/**
 * The operations as one environment serves them: one served on the sandbox first is planned in
 * production; one served only elsewhere (`servedIn`, the sandbox's tools) is left out.
 */
export function operationsIn(environment: DeploymentEnvironment): DescribedOperation[] {
  return describedOperations
    .filter((op) => isServedIn(op, environment))
    .map((op) => (op.plannedIn ? { ...op, planned: isPlannedIn(op, environment) } : op));
}

/** Built once per public origin and environment: the registry does not change while the process runs. */
export function openApiDocument(publicOrigin: string, environment: DeploymentEnvironment): OpenApiDocument {
  const key = `${environment} ${publicOrigin}`;
  let document = built.get(key);
  if (!document) {
    document = buildDocument(operationsIn(environment), publicOrigin);
    built.set(key, document);
  }
  return document;
}
