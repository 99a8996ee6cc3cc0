import { createHmac } from 'node:crypto';

/**
 * `webhook-signature` as Standard Webhooks defines it: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed by the base64 part of a `whsec_` secret; with several secrets, their signatures space-separated.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
