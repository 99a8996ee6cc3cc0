import { DEFAULT_PROVIDER_OFFERS, parseProviderOffers } from '@wrs/config';
import type { ProviderOffer } from '@wrs/domain';
import type { EngineSearch } from './container-engine';

/** What `npm start` offers: the variables it sets for the services, and the lines that say why. */
export interface ProviderPlan {
  readonly env: Record<string, string>;
  readonly lines: readonly string[];
  /** False when every run is simulated (no container engine, and no other real provider configured). */
  readonly real: boolean;
}

/**
 * With an engine: real containers for `auto`, the simulator only when asked for by name (a container
 * the engine refuses must fail the run, not pass as a simulated success).
 */
export const ENGINE_OFFERS: readonly ProviderOffer[] = [
  { provider: 'container', regions: ['local'], priority: 0 },
  { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 1, auto: false },
];

const GET_AN_ENGINE = [
  'For real containers, start a Docker Engine API and run npm start again:',
  '  Docker:          start the Docker daemon (its socket is /var/run/docker.sock)',
  '  Podman rootful:  podman system service --time=0 unix:///run/podman/podman.sock &',
  '  Podman rootless: systemctl --user start podman.socket',
  '  or name one:     DOCKER_HOST=unix:///path/to/engine.sock npm start',
];

/**
 * Decides the providers from the environment and the engine search. PROVIDERS_JSON, when set, is the
 * operator's choice and is kept as it is (the engine found is still handed to the container kind).
 */
export function planProviders(env: Readonly<Record<string, string | undefined>>, search: EngineSearch): ProviderPlan {
  const socket: Record<string, string> = search.found ? { CONTAINER_ENGINE_SOCKET: search.found.socket } : {};
  const engineLine = search.found
    ? `container engine: ${search.found.socket} (${search.found.source})`
    : `no container engine answered (${search.tried.join('; ')})`;
  if (env['PROVIDERS_JSON']) {
    const offers = parseProviderOffers(env['PROVIDERS_JSON']);
    const real = offers.some((o) => (o.kind ?? o.provider) !== 'simulator');
    return { env: { ...socket }, real, lines: [`providers: ${describe(offers)} (from PROVIDERS_JSON)`, engineLine] };
  }
  if (search.found) {
    return {
      env: { ...socket, PROVIDERS_JSON: JSON.stringify(ENGINE_OFFERS) },
      real: true,
      lines: [
        `providers: ${describe(ENGINE_OFFERS)}`,
        `${engineLine}: runs with provider "auto" are real containers; "simulator" runs only when asked for by name`,
      ],
    };
  }
  return {
    env: {},
    real: false,
    lines: [
      `providers: ${describe(DEFAULT_PROVIDER_OFFERS)}`,
      engineLine,
      "RUNS ARE SIMULATED: the simulator starts no container and prints none of the workload's output.",
      ...GET_AN_ENGINE,
    ],
  };
}

function describe(offers: readonly ProviderOffer[]): string {
  return [...offers]
    .sort((a, b) => a.priority - b.priority)
    .map((o) => `${o.provider}${o.kind && o.kind !== o.provider ? ` (${o.kind})` : ''} [${o.regions.join(', ')}]`)
    .join(', then ');
}
