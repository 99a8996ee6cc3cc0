import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CredentialFingerprintIndex } from '@wrs/auth';
import { kindOf } from '@wrs/config';
import { lastFour, parseKubernetesCredential, sealSecret } from '@wrs/credentials';
import { isUuid } from '@wrs/domain';
import { ProviderCredentials, type ProviderCredentialSummary } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import { NOT_CONFIGURED_RETRY_SECONDS } from '../not-configured';
import type { CreateProviderCredentialDto } from './create-provider-credential.dto';
import { CREDENTIALS_OPTIONS, type CredentialsOptions } from './credentials-options';

/** The additional data bound into the seal: a sealed record copied to another row does not open. */
export function credentialAssociatedData(workspaceId: string, id: string): string {
  return `${workspaceId}/${id}`;
}

@Injectable()
export class ProviderCredentialsService {
  constructor(
    private readonly credentials: ProviderCredentials,
    private readonly fingerprints: CredentialFingerprintIndex,
    @Inject(CREDENTIALS_OPTIONS) private readonly options: CredentialsOptions,
  ) {}

  async add(workspaceId: string, body: CreateProviderCredentialDto): Promise<ProviderCredentialSummary> {
    const kek = this.options.publicKeks[0];
    const fingerprint = this.fingerprints.fingerprint(body.secret);
    if (!kek || !fingerprint) {
      throw new ProblemError('dependency_unavailable', {
        detail: 'provider credential encryption is not configured',
        headers: { 'Retry-After': String(NOT_CONFIGURED_RETRY_SECONDS) },
      });
    }
    const offered = this.options.offers.find((o) => o.provider === body.provider);
    if (!offered) {
      throw new ProblemError('unsupported_provider', {
        params: { provider: body.provider, allowed: this.options.offers.map((o) => o.provider) },
      });
    }
    if (body.region !== undefined && !offered.regions.includes(body.region)) {
      throw new ProblemError('unsupported_region', { params: { region: body.region, allowed: offered.regions } });
    }
    if (kindOf(offered) === 'kubernetes') {
      // Caught here, not at a run's dispatch: the format is in the contract (a JSON object naming the cluster).
      const parsed = parseKubernetesCredential(body.secret);
      if (!parsed.ok) {
        throw new ProblemError('validation_failed', {
          params: { errors: [{ field: 'secret', message: `not a kubernetes credential: ${parsed.problem}` }] },
        });
      }
    }
    const id = randomUUID();
    const summary = await this.credentials.add({
      id,
      workspaceId,
      provider: body.provider,
      region: body.region ?? null,
      fingerprint,
      lastFour: lastFour(body.secret),
      sealed: sealSecret(body.secret, kek, credentialAssociatedData(workspaceId, id)),
    });
    await this.fingerprints.add(fingerprint);
    return summary;
  }

  list(workspaceId: string): Promise<ProviderCredentialSummary[]> {
    return this.credentials.list(workspaceId);
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const removed = isUuid(id) ? await this.credentials.remove(workspaceId, id) : null;
    if (!removed) {
      throw new ProblemError('provider_credential_not_found');
    }
    if (!(await this.credentials.fingerprintInUse(removed.fingerprint))) {
      await this.fingerprints.remove(removed.fingerprint);
    }
  }
}
