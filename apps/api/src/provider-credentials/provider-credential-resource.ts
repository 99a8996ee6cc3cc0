import type { Immutable, ProviderCredential, ProviderCredentialList } from '@wrs/contracts/types';
import type { ProviderCredentialSummary } from '@wrs/persistence';

/** A stored key as answered, a literal of the contract's type: a property the contract drops fails the type check here. */
export function toProviderCredential(credential: ProviderCredentialSummary): Immutable<ProviderCredential> {
  return {
    id: credential.id,
    provider: credential.provider,
    region: credential.region,
    fingerprint: credential.fingerprint,
    lastFour: credential.lastFour,
    createdAt: credential.createdAt,
  };
}

export function toProviderCredentialList(credentials: readonly ProviderCredentialSummary[]): Immutable<ProviderCredentialList> {
  return { items: credentials.map(toProviderCredential) };
}
