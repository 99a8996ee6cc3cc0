import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { sealSecret } from '@wrs/credentials';
import { isUuid } from '@wrs/domain';
import { Webhooks, type WebhookDeliverySummary, type WebhookSummary } from '@wrs/persistence';
import { ProblemError } from '@wrs/problem';
import { NOT_CONFIGURED_RETRY_SECONDS } from '../not-configured';
import { CREDENTIALS_OPTIONS, type CredentialsOptions } from '../provider-credentials/credentials-options';
import type { CreateWebhookDto } from './create-webhook.dto';

export type WebhookWithSecret = WebhookSummary & { readonly secret: string };

/** Endpoints a workspace may have (the contract says so). */
export const MAX_WEBHOOKS_PER_WORKSPACE = 16;

/** Bound into the seal, as for provider keys: a sealed secret copied to another row does not open. */
export function webhookSecretAssociatedData(workspaceId: string, id: string): string {
  return `webhook/${workspaceId}/${id}`;
}

/**
 * Endpoints and their secrets. A secret is made here, shown in the answer once and stored sealed for
 * the run-worker, which alone can open it to sign; the api keeps no way to read it back.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: Webhooks,
    @Inject(CREDENTIALS_OPTIONS) private readonly options: CredentialsOptions,
  ) {}

  async create(workspaceId: string, body: CreateWebhookDto): Promise<WebhookWithSecret> {
    const id = randomUUID();
    const { secret, sealed } = this.newSecret(workspaceId, id);
    const summary = await this.webhooks.add(
      { id, workspaceId, url: body.url, events: body.events ?? ['completed'], sealed },
      MAX_WEBHOOKS_PER_WORKSPACE,
    );
    if (!summary) {
      throw new ProblemError('webhook_limit_reached', { params: { limit: MAX_WEBHOOKS_PER_WORKSPACE } });
    }
    return { ...summary, secret };
  }

  list(workspaceId: string): Promise<WebhookSummary[]> {
    return this.webhooks.list(workspaceId);
  }

  async get(workspaceId: string, id: string): Promise<WebhookSummary> {
    return found(isUuid(id) ? await this.webhooks.get(workspaceId, id) : null);
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    found(isUuid(id) && (await this.webhooks.remove(workspaceId, id)) ? true : null);
  }

  async rotate(workspaceId: string, id: string): Promise<WebhookWithSecret> {
    found(isUuid(id) ? await this.webhooks.get(workspaceId, id) : null);
    const { secret, sealed } = this.newSecret(workspaceId, id);
    const summary = found(await this.webhooks.rotate(workspaceId, id, sealed));
    return { ...summary, secret };
  }

  async deliveries(workspaceId: string, id: string): Promise<WebhookDeliverySummary[]> {
    return found(isUuid(id) ? await this.webhooks.deliveries(workspaceId, id) : null);
  }

  private newSecret(workspaceId: string, id: string): { secret: string; sealed: unknown } {
    const kek = this.options.publicKeks[0];
    if (!kek) {
      throw new ProblemError('dependency_unavailable', {
        detail: 'webhook secret encryption is not configured',
        headers: { 'Retry-After': String(NOT_CONFIGURED_RETRY_SECONDS) },
      });
    }
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    return { secret, sealed: sealSecret(secret, kek, webhookSecretAssociatedData(workspaceId, id)) };
  }
}

function found<T>(value: T | null): T {
  if (value === null) {
    throw new ProblemError('webhook_not_found');
  }
  return value;
}
