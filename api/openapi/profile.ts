import type { ProblemCode } from '../../domain/problems.ts';
import type { DescribedOperation } from './description-operations.ts';
import type { HeaderName, HeaderObject } from './headers.ts';
import type { SchemaComponents } from './schemas.ts';
import type { OpenApiDocument } from './types.ts';

/**
 * What sets one interface's description apart from another's built here (the distribution
 * interface's and the platform's, whose refusals are both problem details): its name, revision,
 * credentials and the refusals its guards add to every operation that needs them.
 */
export interface DescriptionProfile {
  title: string;
  version: string;
  base: string;
  info: (operations: readonly DescribedOperation[]) => string;
  tagDescriptions: Record<string, string>;
  securityScheme: { name: string; scheme: Record<string, unknown> };
  /** Whether the operation needs the interface's credentials. */
  guarded: (op: DescribedOperation) => boolean;
  /** Refusals of the interface's guards, listed on every guarded operation. */
  guardProblems: readonly ProblemCode[];
  /** Whether its answers after the guards carry the `RateLimit-*` fields. */
  rateLimited: (op: DescribedOperation) => boolean;
  /** The `**Authentication**:` line of an operation. */
  authentication: (op: DescribedOperation) => string;
  /** Header objects of its own, in place of the distribution interface's. */
  headers?: Partial<Record<HeaderName, HeaderObject>>;
  /** The `webhooks` section and its tag, for an interface that sends webhooks. */
  webhooks?: {
    tag: { name: string; description: string };
    entries: (schemas: SchemaComponents) => NonNullable<OpenApiDocument['webhooks']>;
  };
}
