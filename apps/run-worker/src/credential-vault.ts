import type { KeyObject } from 'node:crypto';
import { openSecret, type SealedSecret } from '@wrs/credentials';
import type { ProviderCredentials } from '@wrs/persistence';

/**
 * The one place a stored provider key is decrypted: in the run-worker, at dispatch, for the provider
 * and region the run was placed on. The plaintext goes to the provider call and nowhere else.
 */
export class CredentialVault {
  constructor(
    private readonly credentials: ProviderCredentials,
    private readonly privateKeks: ReadonlyMap<string, KeyObject>,
  ) {}

  async open(workspaceId: string, provider: string, region: string): Promise<string | null> {
    const record = await this.credentials.forDispatch(workspaceId, provider, region);
    if (!record) {
      return null;
    }
    // Sealed with the record's workspace and id as associated data (see the api's credentials service).
    return openSecret(record.sealed as SealedSecret, this.privateKeks, `${record.workspaceId}/${record.id}`);
  }
}
