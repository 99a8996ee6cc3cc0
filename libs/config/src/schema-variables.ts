import { getMetadataStorage } from 'class-validator';
import { ApiEnv, CommonEnv, RelayEnv } from './env-schemas';
import { GatewayEnv } from './gateway-env';
import { WorkerEnv } from './worker-env';

/** The schema each process of the stack validates its environment with (`migrate` reads the common part). */
export const SERVICE_SCHEMAS = {
  api: ApiEnv,
  'stream-relay': RelayEnv,
  'run-worker': WorkerEnv,
  gateway: GatewayEnv,
  migrate: CommonEnv,
} as const;

export type SchemaService = keyof typeof SERVICE_SCHEMAS;

/**
 * The variables a schema reads: every property with a validation decorator (loadConfig whitelists, so
 * a variable without one is dropped anyway). Read from class-validator's metadata, so a variable added
 * to a schema is known everywhere that asks (e.g. what `npm start` passes on) without a second list.
 */
export function variablesOf(schema: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** Which of the stack's processes read a variable. */
export function servicesReading(variable: string): SchemaService[] {
  return (Object.keys(SERVICE_SCHEMAS) as SchemaService[]).filter((service) => variablesOf(SERVICE_SCHEMAS[service]).includes(variable));
}
