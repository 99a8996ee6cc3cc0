import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedWebhook } from './webhook-receiver';

/**
 * The Standard Webhooks check written from the convention, not from the sender's code: the timestamp
 * within five minutes, and one `v1` signature equal (in constant time) to the HMAC-SHA256 of
 * `id.timestamp.body` under the secret's base64-decoded key.
 */
export function verifyStandardWebhook(secret: string, received: ReceivedWebhook): boolean {
  const id = String(received.headers['webhook-id']);
  const timestamp = String(received.headers['webhook-timestamp']);
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) {
    return false;
  }
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${received.body}`)
    .digest();
  return String(received.headers['webhook-signature'])
    .split(' ')
    .map((part) => part.split(','))
    .some(([version, signature]) => {
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
