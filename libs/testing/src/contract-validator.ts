import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { contractDocument } from '@wrs/contracts';

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or undefined for an empty or non-JSON body. */
  readonly body: unknown;
  readonly text: string;
}

type Json = Record<string, unknown>;

/**
 * Holds every response a test sees to the OpenAPI contract: the status must be declared for the
 * operation (or covered by `default`), the media type must be one it lists, the body must match its
 * schema, declared headers must match theirs, and X-Request-ID must be present. A field renamed in
 * code without the contract fails here.
 */
export class ContractValidator {
  private readonly ajv: Ajv;
  private readonly doc: Json;
  private readonly compiled = new Map<string, ValidateFunction>();
  private fragments = 0;

  constructor() {
    this.doc = toJsonSchemaDialect(structuredClone(contractDocument())) as Json;
    // The OpenAPI `discriminator` is documentation here: oneOf already selects exactly one event schema.
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.doc, 'contract');
  }

  /** Throws with a readable message when the response breaks the contract. */
  assertResponse(method: string, pathTemplate: string, response: ObservedResponse): void {
    const operation = this.operation(method, pathTemplate);
    const responses = operation['responses'] as Json;
    const declared = (responses[String(response.status)] ?? responses['default']) as Json | undefined;
    if (!declared) {
      throw new Error(`${method} ${pathTemplate}: status ${response.status} is not in the contract`);
    }
    const spec = this.resolve(declared);
    const where = `${method} ${pathTemplate} -> ${response.status}`;
    if (!response.headers.get('x-request-id')) {
      throw new Error(`${where}: X-Request-ID header missing`);
    }
    this.checkHeaders(where, spec, response.headers);
    const content = spec['content'] as Record<string, Json> | undefined;
    if (!content) {
      if (response.text.length > 0) {
        throw new Error(`${where}: the contract declares no body, got ${JSON.stringify(response.text.slice(0, 200))}`);
      }
      return;
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = content[mediaType];
    if (!media) {
      throw new Error(`${where}: content type ${mediaType} not in ${Object.keys(content).join(', ')}`);
    }
    if (mediaType.endsWith('json')) {
      this.check(`${where} body`, media['schema'] as Json, response.body);
    }
  }

  /** The operations of the contract as `METHOD /path` strings. */
  operations(): string[] {
    const paths = this.doc['paths'] as Record<string, Json>;
    return Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
  }

  /** Validates a value against a named schema of components/schemas. */
  assertSchema(name: string, value: unknown): void {
    this.check(`schema ${name}`, { $ref: `contract#/components/schemas/${name}` }, value);
  }

  private checkHeaders(where: string, spec: Json, headers: Headers): void {
    for (const [name, raw] of Object.entries((spec['headers'] as Record<string, Json> | undefined) ?? {})) {
      const header = this.resolve(raw);
      const value = headers.get(name);
      if (value === null) {
        if (header['required'] === true) {
          throw new Error(`${where}: required header ${name} missing`);
        }
        continue;
      }
      const schema = header['schema'] as Json | undefined;
      if (schema) {
        this.check(`${where} header ${name}`, schema, value);
      }
    }
  }

  private check(where: string, schema: Json, value: unknown): void {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $id: `fragment-${++this.fragments}`, ...qualifyRefs(schema) });
      this.compiled.set(key, validate);
    }
    if (!validate(value)) {
      throw new Error(`${where} does not match the contract: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
    }
  }

  private operation(method: string, pathTemplate: string): Json {
    const item = (this.doc['paths'] as Record<string, Json>)[pathTemplate];
    const operation = item?.[method.toLowerCase()] as Json | undefined;
    if (!operation) {
      throw new Error(`${method} ${pathTemplate} is not an operation of the contract`);
    }
    return operation;
  }

  private resolve(node: Json): Json {
    let current = node;
    while (typeof current['$ref'] === 'string') {
      current = (current['$ref'] as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json>((acc, part) => acc[part.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, this.doc);
    }
    return current;
  }
}

/** Local `#/...` refs inside a fragment point into the registered contract document. */
function qualifyRefs(node: unknown): Json {
  return JSON.parse(JSON.stringify(node).replace(/"\$ref":"#\//g, '"$ref":"contract#/')) as Json;
}

/** OpenAPI 3.0's `nullable: true` becomes JSON Schema's `anyOf [schema, null]`. */
function toJsonSchemaDialect(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(toJsonSchemaDialect);
  }
  if (typeof node !== 'object' || node === null) {
    return node;
  }
  const converted = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toJsonSchemaDialect(v)]));
  if (converted['nullable'] === true) {
    const { nullable: _, ...rest } = converted;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return converted;
}
