import type { PublicKek } from '@wrs/credentials';
import type { ProviderOffer } from '@wrs/domain';

export const CREDENTIALS_OPTIONS = Symbol('CREDENTIALS_OPTIONS');

export interface CredentialsOptions {
  readonly publicKeks: readonly PublicKek[];
  readonly offers: readonly ProviderOffer[];
}
