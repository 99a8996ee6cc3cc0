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
