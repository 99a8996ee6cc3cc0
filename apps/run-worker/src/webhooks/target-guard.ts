import { guardedLookup as lookupPermitting, isPrivateAddress, literalAddress, type AddressPolicy } from '../net/address-guard';

// The ranges and the guarded lookup live in ../net/address-guard, shared with the Kubernetes provider;
// this module keeps the webhooks' names for them.
export { isPrivateAddress };

/** The error a refused target fails with; the sender records it as `refused_target`. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  constructor(readonly address: string) {
    super(`webhook target ${address} is in a loopback, link-local or private range`);
    this.name = 'TargetRefusedError';
  }
}

/** WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the range check as a whole (closed networks, tests). */
function webhookPolicy(allowPrivate: boolean): AddressPolicy {
  return (address) => allowPrivate || !isPrivateAddress(address);
}

/**
 * A `lookup` for the HTTP agent: the addresses it answers are the ones the socket connects to, so the
 * check cannot be raced by a second resolution (DNS rebinding). A name with any refused address is
 * refused as a whole.
 */
export function guardedLookup(allowPrivate: boolean) {
  return lookupPermitting(webhookPolicy(allowPrivate), (address) => new TargetRefusedError(address));
}

/** A URL's host given as an address is connected to without any lookup: it is checked here instead. */
export function literalTargetRefused(url: URL, allowPrivate: boolean): boolean {
  const address = literalAddress(url.hostname);
  return address !== undefined && !webhookPolicy(allowPrivate)(address);
}
