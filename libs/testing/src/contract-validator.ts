import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { contractDocument } from '@wrs/contracts';

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or undefined for an empty or non-JSON body. */
  readonly body: unknown;
  readonly text: string;
  /** The body could not be read (a browser dropped it): status, headers and content type are checked. */
  readonly bodyUnread?: boolean;
}

type Json = Record<string, unknown>;

/**
 * Holds every response a test sees to the OpenAPI contract: the status must be declared for the
 * operation itself (`default` never counts: an operation lists every status it answers), the media type
 * must be one it lists, the body must match its schema, declared headers must match theirs, and
 * X-Request-ID must be present. A field renamed in code without the contract fails here.
 */
export class ContractValidator {
  private readonly ajv: Ajv;
  private readonly doc: Json;
  private readonly compiled = new Map<string, ValidateFunction>();
  private fragments = 0;
  private patterns?: { method: string; template: string; pattern: RegExp }[];

  /** `document` defaults to the contract; the validator's own tests pass small documents. */
  constructor(document: object = contractDocument()) {
    this.doc = toJsonSchemaDialect(structuredClone(document)) as Json;
    // The OpenAPI `discriminator` is documentation here: oneOf already selects exactly one event schema.
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.doc, 'contract');
  }

  /** Throws with a readable message when the response breaks the contract. */
  assertResponse(method: string, pathTemplate: string, response: ObservedResponse): void {
    const operation = this.operation(method, pathTemplate);
    const responses = operation['responses'] as Json;
    const declared = responses[String(response.status)] as Json | undefined;
    if (!declared) {
      throw new Error(`${method} ${pathTemplate}: status ${response.status} is not declared for this operation`);
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
    if (mediaType.endsWith('json') && !response.bodyUnread) {
      this.check(`${where} body`, media['schema'] as Json, response.body);
    }
  }

  /**
   * A request that names no operation of the contract: its answer must be the problem the contract's
   * description promises (404 `route_not_found`, or 405 `method_not_allowed` with Allow).
   */
  assertOutsideContract(method: string, path: string, response: ObservedResponse): void {
    const named = this.operationFor(method, path);
    if (named) {
      throw new Error(`${method} ${path} is the operation ${method} ${named}: check it with assertResponse`);
    }
    const where = `${method} ${path} (no operation) -> ${response.status}`;
    if (!response.headers.get('x-request-id')) {
      throw new Error(`${where}: X-Request-ID header missing`);
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim();
    if (mediaType !== 'application/problem+json') {
      throw new Error(`${where}: content type ${mediaType}, expected application/problem+json`);
    }
    this.check(`${where} body`, { $ref: '#/components/schemas/Problem' }, response.body);
    const { code, status } = response.body as { code: string; status: number };
    const expected: Record<number, string> = { 404: 'route_not_found', 405: 'method_not_allowed' };
    if (status !== response.status || expected[response.status] !== code) {
      throw new Error(
        `${where}: a request outside the contract is answered 404 route_not_found or 405 method_not_allowed, got ${status} ${code}`,
      );
    }
    if (response.status === 405 && !response.headers.get('allow')) {
      throw new Error(`${where}: 405 without Allow`);
    }
  }

  /** The path template of the operation a concrete method and path (after the server URL) name, if any. */
  operationFor(method: string, path: string): string | undefined {
    this.patterns ??= this.operations().map((op) => {
      const [m, template] = op.split(' ') as [string, string];
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/:]+')}/?$`);
      return { method: m, template, pattern };
    });
    const bare = path.split('?')[0] ?? '';
    return this.patterns.find((op) => op.method === method.toUpperCase() && op.pattern.test(bare))?.template;
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

/**
 * OpenAPI 3.0.3's `nullable: true` adds null to the `type` beside it, and does nothing without one (so
 * `allOf: [$ref]` + `nullable` still refuses null, as Prism and the spec say). An enum must list null
 * itself to allow it. The contract's `x-propertyNames` extension becomes JSON Schema's `propertyNames`.
 */
function toJsonSchemaDialect(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(toJsonSchemaDialect);
  }
  if (typeof node !== 'object' || node === null) {
    return node;
  }
  // `x-propertyNames` is JSON Schema's `propertyNames`, which OpenAPI 3.0 lacks (label keys).
  const converted = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k === 'x-propertyNames' ? 'propertyNames' : k, toJsonSchemaDialect(v)]),
  );
  if ('nullable' in converted) {
    const { nullable, ...rest } = converted;
    return nullable === true && typeof rest['type'] === 'string' ? { ...rest, type: [rest['type'], 'null'] } : rest;
  }
  return converted;
}
