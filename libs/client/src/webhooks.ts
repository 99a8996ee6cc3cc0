import { resultOf } from './api-result';
import type { Transport } from './transport';
import type { ApiResult, SuccessBody } from './types';
import type { CreateWebhookRequest, Webhook, WebhookDelivery, WebhookWithSecret } from '@wrs/contracts/types';

export type { CreateWebhookRequest, Webhook, WebhookDelivery, WebhookWithSecret };

/**
 * The workspace's webhook endpoints (`client.webhooks`). Creates and rotations are never retried, since each
 * makes a new secret and a retry after a lost answer would leave one nobody saw. Reads and deletes retry.
 */
export class WebhooksClient {
  constructor(private readonly transport: Transport) {}

  /** POST /webhooks: the answer's `secret` is shown this once. */
  async create(request: CreateWebhookRequest): Promise<ApiResult<SuccessBody<'/webhooks', 'post', 201>>> {
    return resultOf(
      await this.transport.send({
        method: 'POST',
        path: '/webhooks',
        body: request,
        accept: 'application/json',
        authenticated: true,
        retrySafe: false,
      }),
    );
  }

  /** GET /webhooks. */
  async list(): Promise<ApiResult<SuccessBody<'/webhooks', 'get', 200>>> {
    return resultOf(
      await this.transport.send({ method: 'GET', path: '/webhooks', accept: 'application/json', authenticated: true, retrySafe: true }),
    );
  }

  /** GET /webhooks/{webhookId}. */
  async get(webhookId: string): Promise<ApiResult<SuccessBody<'/webhooks/{webhookId}', 'get', 200>>> {
    return resultOf(
      await this.transport.send({
        method: 'GET',
        path: pathOf(webhookId),
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
      }),
    );
  }

  /** DELETE /webhooks/{webhookId}; a retried delete whose first answer was lost ends in a 404 `webhook_not_found`. */
  async remove(webhookId: string): Promise<ApiResult<undefined>> {
    return resultOf(
      await this.transport.send({
        method: 'DELETE',
        path: pathOf(webhookId),
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
      }),
    );
  }

  /** POST /webhooks/{webhookId}:rotate-secret: the new secret is in this answer only. */
  async rotateSecret(webhookId: string): Promise<ApiResult<SuccessBody<'/webhooks/{webhookId}:rotate-secret', 'post', 200>>> {
    return resultOf(
      await this.transport.send({
        method: 'POST',
        path: `${pathOf(webhookId)}:rotate-secret`,
        accept: 'application/json',
        authenticated: true,
        retrySafe: false,
      }),
    );
  }

  /** GET /webhooks/{webhookId}/deliveries: the latest deliveries, newest first. */
  async deliveries(webhookId: string): Promise<ApiResult<SuccessBody<'/webhooks/{webhookId}/deliveries', 'get', 200>>> {
    return resultOf(
      await this.transport.send({
        method: 'GET',
        path: `${pathOf(webhookId)}/deliveries`,
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
      }),
    );
  }
}

function pathOf(webhookId: string): string {
  return `/webhooks/${encodeURIComponent(webhookId)}`;
}
