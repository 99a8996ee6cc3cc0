/** What an engine's failed pull means for the run. */
export type PullFailureCode = 'image_not_found' | 'registry_auth_failed' | 'provider_error';

// Registries answer 401/403 with these words (distribution, Docker Hub, Harbor, Podman's wording of them).
const AUTH_REFUSED =
  /unauthori[sz]ed|authentication required|\bdenied\b|forbidden|no basic auth credentials|incorrect username or password/i;
// The registry itself says the name or tag does not exist (distribution's MANIFEST_UNKNOWN, NAME_UNKNOWN).
const NOT_FOUND = /manifest unknown|name unknown|manifest for \S+ not found/i;

/**
 * Classifies a pull the engine refused, from its HTTP status (Docker answers some failures with one)
 * and its message (Podman answers 200 and reports the failure in the progress stream). Auth comes
 * first: Docker Hub answers a missing private repository "denied", and that is all a registry says.
 */
export function pullFailureCode(status: number | undefined, message: string): PullFailureCode {
  if (status === 401 || status === 403 || AUTH_REFUSED.test(message)) {
    return 'registry_auth_failed';
  }
  if (status === 404 || NOT_FOUND.test(message)) {
    return 'image_not_found';
  }
  // Anything else (an unreachable registry, TLS, the engine's disk): nothing is said about the image.
  return 'provider_error';
}
