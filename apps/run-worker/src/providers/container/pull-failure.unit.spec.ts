import { pullFailureCode } from './pull-failure';

// Messages without a status are Podman 4.3's, measured against Debian's docker-registry 2.8; those with
// one are Docker's wording of the same answers (no Docker engine here to measure them).
describe('pullFailureCode', () => {
  it.each([
    [
      undefined,
      'initializing source docker://127.0.0.1:15000/wrs/nope:1: reading manifest 1 in 127.0.0.1:15000/wrs/nope: manifest unknown: manifest unknown',
    ],
    [404, 'manifest for 127.0.0.1:15000/wrs/nope:1 not found: manifest unknown: manifest unknown'],
    [undefined, 'name unknown: repository name not known to registry'],
  ])('the registry saying the image does not exist is image_not_found (%s %s)', (status, message) => {
    expect(pullFailureCode(status, message)).toBe('image_not_found');
  });

  it.each([
    [
      undefined,
      'initializing source docker://127.0.0.1:15000/wrs/tiny:1: reading manifest 1 in 127.0.0.1:15000/wrs/tiny: unauthorized: authentication required',
    ],
    [401, 'Head "http://127.0.0.1:15000/v2/wrs/tiny/manifests/1": no basic auth credentials'],
    [
      404,
      "pull access denied for private/thing, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
    ],
    [403, 'forbidden'],
  ])('a registry refusing access is registry_auth_failed, before any "does not exist" (%s %s)', (status, message) => {
    expect(pullFailureCode(status, message)).toBe('registry_auth_failed');
  });

  it.each([
    [undefined, 'pinging container registry localhost: Get "https://localhost/v2/": dial tcp 127.0.0.1:443: connect: connection refused'],
    [undefined, 'pinging container registry registry.invalid: dial tcp: lookup registry.invalid: no such host'],
    [500, 'write /var/lib/containers/storage/overlay: no space left on device'],
  ])('a failure that says nothing about the image stays provider_error (%s %s)', (status, message) => {
    expect(pullFailureCode(status, message)).toBe('provider_error');
  });
});
