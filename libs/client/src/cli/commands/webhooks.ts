import type { WrsClient } from '../../client';
import type { Webhook, WebhookDelivery, WebhookWithSecret } from '../../webhooks';
import { EXIT, type ExitCode } from '../exit-codes';
import type { Invocation } from '../arguments';
import type { CliIo } from '../io';
import { visible } from '../visible';

/** `wrs webhooks ...`: the workspace's endpoints. A secret is printed once, by create and rotate-secret. */
export async function webhooksCommand(client: WrsClient, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const json = invocation.options.json === true;
  const id = invocation.operand ?? '';
  const show = (kind: string, value: unknown, lines: string[]): void => {
    if (json) {
      io.out(JSON.stringify({ kind, [kind]: value }));
    } else {
      // A delivery's last answer is another server's text: its control characters are written out.
      lines.forEach((line) => io.out(visible(line)));
    }
  };
  switch (invocation.command) {
    case 'webhooks create': {
      const { url, event } = invocation.options;
      const { value } = await client.webhooks.create({ url: url ?? '', ...(event?.length ? { events: event as Webhook['events'] } : {}) });
      show('webhook', value, withSecretLines(value));
      break;
    }
    case 'webhooks list': {
      const { value } = await client.webhooks.list();
      show('webhooks', value.items, value.items.flatMap(webhookLines));
      break;
    }
    case 'webhooks get': {
      const { value } = await client.webhooks.get(id);
      show('webhook', value, webhookLines(value));
      break;
    }
    case 'webhooks rotate-secret': {
      const { value } = await client.webhooks.rotateSecret(id);
      show('webhook', value, withSecretLines(value));
      break;
    }
    case 'webhooks deliveries': {
      const { value } = await client.webhooks.deliveries(id);
      show('deliveries', value.items, value.items.map(deliveryLine));
      break;
    }
    case 'webhooks delete':
      await client.webhooks.remove(id);
      show('deleted', id, [`webhook ${id} deleted`]);
      break;
  }
  return EXIT.ok;
}

function webhookLines(hook: Webhook): string[] {
  return [`webhook ${hook.id}  ${hook.url}`, `  events     ${hook.events.join(' ')}`, `  created    ${hook.createdAt}`];
}

function withSecretLines(hook: WebhookWithSecret): string[] {
  return [...webhookLines(hook), `  secret     ${hook.secret}   (shown this once: keep it to verify webhook-signature)`];
}

function deliveryLine(d: WebhookDelivery): string {
  const answer = d.responseStatus === null ? (d.error ?? '-') : `${d.responseStatus}${d.error ? ` ${d.error}` : ''}`;
  const next = d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : '';
  return `${d.id}  ${d.type}  run ${d.runId}  ${d.status}  attempts ${d.attempts}  ${answer}${next}`;
}
