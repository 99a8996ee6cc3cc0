import type { Exact, Immutable, Webhook, WebhookDelivery, WebhookDeliveryList, WebhookList, WebhookWithSecret } from '@wrs/contracts/types';
import type { WebhookDeliverySummary, WebhookSummary } from '@wrs/persistence';

/**
 * The webhook answers, built as literals of the contract's types: a property the contract drops, renames
 * or retypes fails the type check on the line that still sends it (its schemas refuse additional properties).
 */
export function toWebhook(webhook: WebhookSummary): Immutable<Webhook> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    createdAt: webhook.createdAt,
    secretRotatedAt: webhook.secretRotatedAt,
  };
}

export function toWebhookList(webhooks: readonly WebhookSummary[]): Immutable<WebhookList> {
  return { items: webhooks.map(toWebhook) };
}

/** The endpoint with its new secret, the one answer that shows it: `Exact` checks the spread fields against WebhookWithSecret. */
export function toWebhookWithSecret(webhook: WebhookSummary & { readonly secret: string }): Immutable<WebhookWithSecret> {
  const answer = { ...toWebhook(webhook), secret: webhook.secret };
  return answer satisfies Exact<WebhookWithSecret, typeof answer>;
}

export function toWebhookDelivery(delivery: WebhookDeliverySummary): Immutable<WebhookDelivery> {
  return {
    id: delivery.id,
    runId: delivery.runId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    responseStatus: delivery.responseStatus,
    error: delivery.error,
    createdAt: delivery.createdAt,
    lastAttemptAt: delivery.lastAttemptAt,
    nextAttemptAt: delivery.nextAttemptAt,
  };
}

export function toWebhookDeliveryList(deliveries: readonly WebhookDeliverySummary[]): Immutable<WebhookDeliveryList> {
  return { items: deliveries.map(toWebhookDelivery) };
}
