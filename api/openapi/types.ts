import type { ProblemCode } from '../../domain/problems.ts';
import type { HttpMethod } from '../operations.ts';
import type { HeaderName, HeaderObject } from './headers.ts';
import type { JsonSchema } from './schemas.ts';

/** The parts of OpenAPI 3.1 this service's description uses. */
export type Ref = { $ref: string };

export interface MediaTypeObject {
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, Ref>;
  content?: Record<string, MediaTypeObject>;
  'x-problem-codes'?: ProblemCode[];
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: (ParameterObject | Ref)[];
  requestBody?: { required: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
  deprecated?: boolean;
  'x-required-scopes'?: string[];
  /** The key also needs one of these. */
  'x-required-scopes-any'?: string[];
  'x-svc-availability'?: 'planned';
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<HttpMethod, OperationObject>>>;
  /** OpenAPI 3.1: what the service POSTs to the channel's endpoints, one entry per event type. */
  webhooks?: Record<string, { post: OperationObject }>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, JsonSchema>;
    headers: Partial<Record<HeaderName, HeaderObject>>;
    parameters: Record<string, ParameterObject>;
  };
}
