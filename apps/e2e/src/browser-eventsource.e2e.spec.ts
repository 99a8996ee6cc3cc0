import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, chromiumMissing, describeNeeding, watchApiAnswers } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/**
 * A real browser's native EventSource, authenticated by the session cookie alone (a browser cannot
 * set headers on it), follows a run to its end and sees every event once.
 */
describeNeeding(chromiumMissing())('headless Chromium follows a run with the native EventSource over a browser session', () => {
  let f: StackFixture;
  let browser: Browser | undefined;

  beforeAll(async () => {
    f = await startStack(['ws-browser']);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await f?.stop();
  });

  it('receives every event exactly once, then the stream stops (204)', async () => {
    if (!browser) {
      throw new Error('Chromium did not start');
    }
    const token = f.token('ws-browser');
    const created = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '1500', SIM_LOG_LINES: '10' } }, provider: 'auto', region: 'auto' },
    });
    const runId = (created.body as { id: string }).id;
    // Our JSON answers carry CSP default-src 'none'; the test page is one of them, so let its script run.
    const context = await browser.newContext({ bypassCSP: true });
    const apiAnswers = watchApiAnswers(context);
    const page = await context.newPage();
    await page.goto(`${f.stack.baseUrl}/version`);
    // Sign in as the console does: the token once, exchanged for the HttpOnly session cookie.
    // In the page: its answers, the stream's too, are checked by watchApiAnswers.
    const signedIn = await page.evaluate(async (t) => {
      const res = await fetch('/api/v1/sessions', { method: 'POST', headers: { authorization: `Bearer ${t}` } });
      return res.status;
    }, token);
    expect(signedIn).toBe(201);
    expect((await context.cookies()).map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([
      ['__Host-wrs_session', true, true, 'Strict'],
    ]);
    const received = await page.evaluate(
      ({ url, types }) =>
        new Promise<{ id: string; type: string }[]>((resolve) => {
          const got: { id: string; type: string }[] = [];
          const source = new EventSource(url);
          for (const type of types) {
            source.addEventListener(type, (e) => got.push({ id: (e as MessageEvent).lastEventId, type }));
          }
          source.onerror = () => {
            if (source.readyState === EventSource.CLOSED) {
              resolve(got);
            }
          };
          setTimeout(() => resolve(got), 20_000);
        }),
      {
        url: `/api/v1/runs/${runId}/events`,
        types: ['run.created', 'run.dispatched', 'run.started', 'run.log', 'run.succeeded', 'run.failed', 'run.canceled'],
      },
    );
    const answers = await apiAnswers.settled();
    expect(answers.violations).toEqual([]);
    expect(answers.checked).toBeGreaterThanOrEqual(4); // the page, the session, the stream and its 204
    await context.close();
    expect(received.map((r) => r.type)).toEqual([
      'run.created',
      'run.dispatched',
      'run.started',
      ...Array.from({ length: 10 }, () => 'run.log'),
      'run.succeeded',
    ]);
    expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
  }, 60_000);
});
