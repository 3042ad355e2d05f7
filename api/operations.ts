import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { ParameterError, ProblemCode } from '../domain/problems.ts';
import type { Scope } from '../domain/scopes.ts';
import type { AppDeps, Caller } from './context.ts';
import { withReadBack, type ReadBack } from './read-back.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

export type DeploymentEnvironment = 'sandbox' | 'production';

/**
 * What a handler answers. `body` is typed by the operation's answers (`AnswerBody`), so a handler
 * that drops or misnames a field of its schema does not compile. `json`, `jsonChunks` and `html`
 * are text already written: their shape is checked where the text is made (a catalogue record's
 * stored body is typed by its schema, `domain/catalogue/projection.ts`), not here.
 */
export interface OperationResult<Body = unknown> {
  status?: number;
  body?: Body;
  /** The body already serialised, for large answers assembled from stored JSON text. */
  json?: string;
  /** The body as pieces to write one after the other (a page of records), never joined. */
  jsonChunks?: readonly (string | Buffer)[];
  /**
   * What the weak ETag is computed from, when hashing the whole body would cost more than
   * naming what it contains (a page of nights is named by its records' versions and ranges).
   */
  etagBasis?: string;
  headers?: Record<string, string>;
  /**
   * A cursor-paged list's `next_cursor`: when it is a string, the answer also links the next page
   * (`Link: <…>; rel="next"`, RFC 8288), so a channel can ask for it as soon as the headers arrive.
   */
  nextCursor?: string | null;
  /** An HTML page instead of JSON (the owner-connect hand-off); its policy comes in `headers`. */
  html?: string;
}

export interface OperationContext<Q, P, B> {
  query: Q;
  params: P;
  body: B;
  caller: Caller;
  deps: AppDeps;
  req: Request;
  res: Response;
}

/** What an operation's `laterRules` read: the input as received, before any schema. */
export interface LaterRulesContext {
  query: unknown;
  params: unknown;
  body: unknown;
  caller: Caller;
  deps: AppDeps;
}

export interface OperationResponse {
  description: string;
  schema?: z.ZodType;
  /** The answer's media type when it is not JSON. */
  mediaType?: string;
  /** Other media types the same answer comes in, chosen by the request's `Accept`. */
  alternatives?: Record<string, z.ZodType>;
}

export type OperationResponses = Record<number, OperationResponse>;

/** The JSON schema of one answer: its own unless it has another media type, or its JSON alternative. */
type JsonSchemaOf<A> = A extends { mediaType: string }
  ? A extends { alternatives: { 'application/json': infer S extends z.ZodType } }
    ? S
    : never
  : A extends { schema: infer S extends z.ZodType }
    ? S
    : never;

/**
 * The `body` a handler may answer: one of its answers' JSON schemas as the description states it
 * (`z.output`, the side `api/openapi/` describes answers by). An answer without a schema (204,
 * 304) has no body. Answers not known (an operation as its registry holds it): any body.
 */
export type AnswerBody<R extends OperationResponses> = OperationResponses extends R
  ? unknown
  : z.output<JsonSchemaOf<R[keyof R]>>;

/**
 * One operation of an interface: the single source for its route, its validation and its entry
 * in the machine-readable description.
 */
export interface Operation<
  Q = unknown,
  P = unknown,
  B = unknown,
  S extends string = Scope,
  R extends OperationResponses = OperationResponses,
> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path relative to the interface's base, e.g. `/properties/{property_id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** null: no key needed (the description itself); [] : any valid key. Each interface has its own scopes. */
  scopes: S[] | null;
  /**
   * Besides `scopes`, the key must hold at least one of these (an operation serving either, like
   * `/events`). Refused with `required_scopes` listing them and `required_scopes_match: any`.
   */
  anyOfScopes?: S[];
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  body?: z.ZodType<B>;
  /** A whole-record write that takes back what the record's read answers (api/read-back.ts). */
  readBack?: ReadBack;
  /**
   * The rules the handler or its service checks after the schemas (between fields, against stored
   * data), for a request a schema refused: they check what of the input as received is well formed
   * (`wellFormedFields`, api/validation.ts) and answer the rules it breaks, so that the one refusal
   * lists every failed rule. They only read. A request the schemas take is checked by the service.
   */
  laterRules?: (ctx: LaterRulesContext) => Promise<ParameterError[]>;
  /** Each status's answer; the handler's `body` is typed by their schemas (`AnswerBody`). */
  responses: R;
  /** A body cap of its own in bytes, above the interface's (a batch whose largest allowed body needs more). */
  bodyLimit?: number;
  problems: ProblemCode[];
  /** Agreed in the contract, not served yet: answered 501 and marked `x-svc-availability: planned`. */
  planned?: boolean;
  /** Served in some environments only (the sandbox first): planned, as above, in these. */
  plannedIn?: readonly DeploymentEnvironment[];
  /**
   * Served only in these environments (the sandbox's tools): elsewhere the route does not exist
   * (404 `not_found`, as an unknown path) and the operation is absent from the description.
   */
  servedIn?: readonly DeploymentEnvironment[];
  /** Its 200 and 304 answers may be stored by any cache for a while (`Cache-Control: public, max-age=…`, set by the handler) instead of `no-store`. */
  publicCache?: boolean;
  /** A cursor-paged list: its 200 answers link the next page in a `Link` header (`OperationResult.nextCursor`). */
  paged?: boolean;
  /**
   * A read whose handler uses nothing of its caller that can change: the channel's id and name, the
   * key's id and scopes. With a key this process has seen usable, it runs beside the key's check
   * instead of after it; the check still decides the answer (api/middleware/authenticate.ts).
   * Never on an operation that reads the channel's settings or state (its record, its webhooks).
   */
  readsCallerIdentityOnly?: boolean;
  /** Carries the `Deprecation` and `Sunset` headers on every answer, ahead of a v2. */
  deprecation?: { deprecatedAt: Date; sunsetAt: Date; link?: string };
  handler?: (ctx: OperationContext<Q, P, B>) => Promise<OperationResult<AnswerBody<R>>>;
}

/**
 * An operation as an interface's registry holds it: its query, path, body and answer types
 * erased, so declarations of any shape sit in one list (`Operation<Q, P, B, S, R>` is invariant
 * in them, since its handler takes what its schemas give and answers what its responses state).
 */
export type RoutedOperation<S extends string = Scope> = Operation<unknown, unknown, unknown, S, OperationResponses>;

/**
 * The declaration as routed and described: a read-back's fields are folded into the body schema
 * here, once. The handler's input and answer types are erased here and only here: the router
 * parses query, path and body with the declaration's own schemas before it calls the handler, so
 * what the handler receives is what its types say, and it writes the body the handler answered.
 */
export function defineOperation<
  Q = undefined,
  P = undefined,
  B = undefined,
  S extends string = Scope,
  R extends OperationResponses = OperationResponses,
>(operation: Operation<Q, P, B, S, R>): RoutedOperation<S> {
  const routed = operation as unknown as RoutedOperation<S>;
  if (!routed.readBack) return routed;
  if (!routed.body) throw new Error(`${routed.operationId}: a read-back needs a body`);
  return { ...routed, body: withReadBack(routed.body, routed.readBack) };
}

/** True when the operation answers 501 `not_implemented` in this environment. */
export function isPlannedIn(
  operation: Pick<Operation, 'planned' | 'plannedIn'>,
  environment: DeploymentEnvironment,
): boolean {
  return operation.planned === true || (operation.plannedIn?.includes(environment) ?? false);
}

/** False when the operation does not exist in this environment (`servedIn`). */
export function isServedIn(operation: Pick<Operation, 'servedIn'>, environment: DeploymentEnvironment): boolean {
  return operation.servedIn?.includes(environment) ?? true;
}

/** `/properties/{property_id}` → `/properties/:property_id` */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
