import { HEADERS, type HeaderName } from './headers.ts';
import { Problem } from './problems.ts';
import type { DescriptionProfile } from './profile.ts';
import { SchemaComponents, type JsonSchema } from './schemas.ts';
import type { OpenApiDocument, ParameterObject, Ref } from './types.ts';

/**
 * The `components` of one description, gathered while its operations are described: each schema,
 * header and parameter lands here the first time an operation refers to it, so their order is the
 * order operations meet them.
 */
export class DocumentComponents {
  readonly schemas = new SchemaComponents();
  readonly headers: OpenApiDocument['components']['headers'] = {};
  readonly parameters: Record<string, ParameterObject> = {};
  /** Every refusal's body: the first schema component. */
  readonly problemRef: JsonSchema;
  readonly profile: DescriptionProfile;

  constructor(profile: DescriptionProfile) {
    this.profile = profile;
    this.schemas.convert(Problem, 'output', 'Problem');
    this.problemRef = this.schemas.ref('Problem');
  }

  /** A reference to the header `name`, the profile's own object in place of the shared one. */
  header(name: HeaderName): Ref {
    this.headers[name] = this.profile.headers?.[name] ?? HEADERS[name];
    return { $ref: `#/components/headers/${name}` };
  }

  /** A reference to the parameter `name`, described once by `object`. */
  parameter(name: string, object: ParameterObject): Ref {
    this.parameters[name] = object;
    return { $ref: `#/components/parameters/${name}` };
  }
}
