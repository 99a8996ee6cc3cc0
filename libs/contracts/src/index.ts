import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Where the contract lives: beside src/ in the source tree, and copied to the same place in dist/. */
export const CONTRACT_FILE = join(__dirname, '..', 'openapi.yaml');

let cached: OpenApiDocument | undefined;

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly version: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
}

export function contractDocument(): OpenApiDocument {
  cached ??= parse(readFileSync(CONTRACT_FILE, 'utf8')) as OpenApiDocument;
  return cached;
}

export const CONTRACT_VERSION: string = contractDocument().info.version;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the contract, as method and path template. */
export function contractOperations(): { method: string; template: string }[] {
  return Object.entries(contractDocument().paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => ({ method: method.toUpperCase(), template })),
  );
}

/** The one operation the stream-relay serves; the api serves all the others. */
export const RELAY_OPERATION = { method: 'GET', template: '/runs/{runId}/events' } as const;

export function isRelayOperation(op: { method: string; template: string }): boolean {
  return op.method === RELAY_OPERATION.method && op.template === RELAY_OPERATION.template;
}
