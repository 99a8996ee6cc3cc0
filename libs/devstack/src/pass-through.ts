import { SERVICE_SCHEMAS, variablesOf } from '@wrs/config';

/** Set by the stack for each process (its ports, the gateway's upstreams): never the caller's value. */
export const STACK_MANAGED_VARIABLES: readonly string[] = ['PORT', 'METRICS_PORT', 'API_UPSTREAM', 'RELAY_UPSTREAM'];

/** Every variable some service of the stack reads, from the config schemas themselves (not a second list). */
export function passThroughVariables(): string[] {
  const all = Object.values(SERVICE_SCHEMAS).flatMap((schema) => variablesOf(schema));
  return [...new Set(all)].filter((name) => !STACK_MANAGED_VARIABLES.includes(name)).sort();
}

/** The caller's values of those variables: what `npm start` hands on to the services. */
export function passThroughEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of passThroughVariables()) {
    const value = env[name];
    if (value !== undefined) {
      picked[name] = value;
    }
  }
  return picked;
}
