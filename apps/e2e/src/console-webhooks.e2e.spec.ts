import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chromiumMissing,
  describeNeeding,
  eventually,
  startWebhookReceiver,
  verifyStandardWebhook,
  type WebhookReceiver,
} from '@wrs/testing';
import type { Page } from 'playwright-core';
import { drawnDirection, openConsoleBrowser, renderedTexts, signIn, type ConsoleBrowser } from './console/console-browser';
import { startStack, type StackFixture } from './stack-fixture';

/**
 * The console's Webhooks page in headless Chromium against the compiled stack: an endpoint added there
 * shows its secret once, that secret verifies what arrives at a real HTTPS receiver on loopback, the
 * deliveries table shows it delivered, a rotation shows a new secret, and a delete empties the list.
 */
describeNeeding(chromiumMissing())("the console's Webhooks page in headless Chromium", () => {
  let f: StackFixture;
  let b: ConsoleBrowser | undefined;
  let page: Page;
  let receiver: WebhookReceiver;
  const caDir = mkdtempSync(join(tmpdir(), 'wrs-console-webhook-ca-'));

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    writeFileSync(join(caDir, 'ca.pem'), receiver.caCertificate);
    f = await startStack(['ws-console-hooks'], { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem') });
    b = await openConsoleBrowser();
    page = b.page;
    await signIn(page, new URL(f.stack.baseUrl).origin, f.token('ws-console-hooks'));
  });

  afterAll(async () => {
    await b?.browser.close();
    await f?.stop();
    await receiver?.close();
    rmSync(caDir, { recursive: true, force: true });
  });

  it('adds an endpoint (secret shown once), shows its delivery, rotates its secret and deletes it', async () => {
    const origin = new URL(f.stack.baseUrl).origin;
    await page.goto(`${origin}/console/webhooks`);
    await page.getByLabel('Endpoint URL (https)').fill(`${receiver.origin}/console`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('[data-secret]').getAttribute('data-secret')) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.locator('[data-webhook-id]').waitFor();
    const run = await f.client.call('POST /runs', '/runs', {
      token: f.token('ws-console-hooks'),
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    expect(run.status).toBe(201);
    const [arrived] = await eventually(
      () => Promise.resolve(receiver.received.length > 0 ? receiver.received : undefined),
      30_000,
      'the delivery',
    );
    expect(verifyStandardWebhook(secret, arrived!)).toBe(true);
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Deliveries' }).click();
        return (await page.locator('tr[data-delivery-status="delivered"]').count()) === 1 ? true : undefined;
      },
      20_000,
      'the delivery shown as delivered',
    );
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await eventually(
      async () => {
        const shown = (await page.locator('[data-secret]').getAttribute('data-secret')) ?? secret;
        return shown !== secret ? shown : undefined;
      },
      10_000,
      'the new secret',
    );
    expect(rotated).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
  });

  it("shows an endpoint URL's bidirectional controls as escapes, not obeyed (Trojan Source)", async () => {
    const token = f.token('ws-console-hooks');
    // The API keeps the URL as given; with the override acting it would read ".../bank.com".
    const created = await f.client.call('POST /webhooks', '/webhooks', {
      token,
      body: { url: 'https://hooks.example.com/\u202emoc.knab\u202c', events: ['completed'] },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    let deleted: ReturnType<StackFixture['client']['call']> | undefined;
    try {
      await page.goto(`${new URL(f.stack.baseUrl).origin}/console/webhooks`);
      const url = page.locator(`[data-webhook-id="${id}"] strong`);
      await url.waitFor();
      expect(await renderedTexts(page, `[data-webhook-id="${id}"] strong`)).toEqual(['https://hooks.example.com/\\u202emoc.knab\\u202c']);
      expect(await url.locator('span.control').count()).toBe(2);
      expect(await drawnDirection(url, 'moc.knab')).toBe('ltr');
    } finally {
      // Cleanup only. Its answer is checked below, so that a failure above is the one reported.
      deleted = f.client.call('DELETE /webhooks/{webhookId}', `/webhooks/${id}`, { token });
      await deleted.catch(() => undefined);
    }
    expect((await deleted).status).toBe(204);
  });
});
