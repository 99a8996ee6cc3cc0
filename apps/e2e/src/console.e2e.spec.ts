import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  assertApiAnswer,
  CHROMIUM,
  chromiumMissing,
  contractValidator,
  describeNeeding,
  watchApiAnswers,
  type BrowserAnswers,
} from '@wrs/testing';
import { fulfillDependencyUnavailable } from './console/console-browser';
import { startStack, type StackFixture } from './stack-fixture';

const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts', 'console');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/**
 * The web console in headless Chromium against the compiled stack, with its CSP enforced (no bypass):
 * a person signs in with a token once, creates a run and watches it live, cancels another after
 * confirming, sees errors with their code and request id, and signs out; a forged request without the
 * CSRF token is refused. Screenshots of the list and run pages (desktop and phone) go to
 * test-artifacts/console/.
 */
describeNeeding(chromiumMissing())('the web console in headless Chromium', () => {
  let f: StackFixture;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let apiAnswers: BrowserAnswers;
  let origin: string;
  let token: string;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  // The page's requests, as `METHOD /path`.
  const requests: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    f = await startStack(['ws-console', 'ws-elsewhere']);
    origin = new URL(f.stack.baseUrl).origin;
    token = f.token('ws-console');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    context = await browser.newContext({ viewport: DESKTOP });
    apiAnswers = watchApiAnswers(context);
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) {
        cspViolations.push(message.text());
      }
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  });

  afterAll(async () => {
    await browser?.close();
    await f?.stop();
  });

  const screenshot = async (name: string): Promise<void> => {
    const path = join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`console screenshot: ${path}`);
  };
  const createViaApi = async (env: Record<string, string>, workspace = 'ws-console'): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token: workspace === 'ws-console' ? token : f.token(workspace),
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const eventTypes = (): Promise<string[]> =>
    page.locator('ol.events li').evaluateAll((items) => items.map((li) => li.getAttribute('data-event-type') ?? ''));
  const eventIds = (list: 'events' | 'logs'): Promise<number[]> =>
    page.locator(`ol.${list} li`).evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-event-id'))));

  it('is served under /console with a strict CSP, and its pages are the same file', async () => {
    for (const path of ['/console', '/console/', '/console/runs/abc', '/console/new']) {
      // The console's static files are not operations of the API contract: raw fetch.
      const res = await fetch(`${origin}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      await res.text();
    }
    // A missing static file is the console's answer too (a problem, but no API operation).
    const missing = await fetch(`${origin}/console/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await missing.text();
  });

  it('says a pasted token that no token can be (a line break inside, a NUL, a non-Latin-1 character) is malformed, and sends nothing', async () => {
    await page.goto(`${origin}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const field = page.getByLabel('Access token');
    // The field turns a line break into a space (the server would answer 401); fetch throws on the others.
    for (const pasted of [`${token.slice(0, 30)}\n${token.slice(30)}`, `${token.slice(0, 30)}\u0000${token.slice(30)}`, `${token}\u2026`]) {
      requests.length = 0;
      await field.fill(pasted);
      await page.keyboard.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'The token is malformed' }).waitFor({ timeout: 5000 });
      expect(requests).toEqual([]);
      // Not "could not reach the service", and the token is not shown back.
      expect(await page.locator('[data-error-code]').count()).toBe(0);
      expect(await field.inputValue()).toBe('');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await page.content()).not.toContain(token.slice(30));
    }
  });

  it('signs in with the token once, by keyboard; the token is then nowhere in the page, its URL or storage', async () => {
    await page.goto(`${origin}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Access token').focus();
    // Pasted with the whitespace a copy often brings (a trailing newline): trimmed.
    await page.keyboard.insertText(` ${token}\n`);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.locator('[data-workspace]').textContent()).toBe('ws-console');
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([['__Host-wrs_session', true, true, 'Strict']]);
    // Page-side expressions as strings: this file is type-checked for Node, without the DOM's globals.
    // Nothing in storage (no run created yet, so no remembered image): not the token, not the CSRF token,
    // no cookie readable by script.
    const stored = await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]');
    expect(stored).toEqual([0, 0, '']);
    expect(page.url()).not.toContain(token);
    expect(await page.content()).not.toContain(token);
    expect(await page.getByLabel('Access token').count()).toBe(0);
    // A reload asks for the session (200) and stays signed in.
    requests.length = 0;
    await page.reload();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(requests.filter((r) => r.includes('/sessions/current'))).toEqual(['GET /api/v1/sessions/current']);
  });

  it('starts the New run form with no image, refuses an empty one itself, and then offers the last image created', async () => {
    const posts: string[] = [];
    const onRequest = (request: { method(): string; url(): string }): void => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/runs')) {
        posts.push(request.url());
      }
    };
    page.on('request', onRequest);
    try {
      await page.getByRole('link', { name: 'New run' }).first().click();
      await page.getByRole('heading', { name: 'New run' }).waitFor();
      const image = page.getByLabel('Image');
      // No image that works on one machine and fails on the next: empty, an example, and the offline image named.
      expect(await image.inputValue()).toBe('');
      expect(await image.getAttribute('placeholder')).toBe('e.g. busybox:1.36');
      expect(await page.locator('#image-help [data-local-image]').textContent()).toBe('localhost/wrs-test/base:bookworm');
      for (const value of ['', '   ']) {
        await image.fill(value);
        await page.getByRole('button', { name: 'Create run' }).click();
        await page.locator('#image-error').waitFor();
        expect(await page.locator('#image-error').textContent()).toBe('Enter the image to run (for example busybox:1.36).');
        expect(await image.getAttribute('aria-invalid')).toBe('true');
        expect(await image.evaluate((input) => (input as unknown as { validationMessage: string }).validationMessage)).toBe(
          'Enter the image to run (for example busybox:1.36).',
        );
      }
      expect(posts).toEqual([]);
      expect(page.url()).toBe(`${origin}/console/new`);
      await image.fill('localhost/wrs-test/base:bookworm');
      expect(await page.locator('#image-error').isVisible()).toBe(false);
      await page.getByLabel(/^Environment/).fill('SIM_DURATION_MS=50');
      await page.getByRole('button', { name: 'Create run' }).click();
      await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
      expect(posts).toHaveLength(1);
      // The next form (and after a reload) starts with the image of the run this browser created last.
      await page.getByRole('link', { name: 'New run' }).first().click();
      await page.getByRole('heading', { name: 'New run' }).waitFor();
      expect(await page.getByLabel('Image').inputValue()).toBe('localhost/wrs-test/base:bookworm');
      await page.reload();
      await page.getByRole('heading', { name: 'New run' }).waitFor();
      expect(await page.getByLabel('Image').inputValue()).toBe('localhost/wrs-test/base:bookworm');
    } finally {
      page.off('request', onRequest);
    }
  });

  it('creates a run from the form and shows its events and log lines as they arrive', async () => {
    await page.getByRole('link', { name: 'New run' }).first().click();
    await page.getByRole('heading', { name: 'New run' }).waitFor();
    await page.getByLabel('Image').fill('busybox:1.36');
    await page.getByLabel(/^Environment/).fill('SIM_DURATION_MS=4000\nSIM_LOG_LINES=6');
    await page.getByRole('button', { name: 'Create run' }).click();
    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    const runId = page.url().split('/').pop() ?? '';
    // Live: a log line is on the page while the run has not finished.
    await page.locator('ol.logs li').first().waitFor();
    expect((await eventTypes()).filter((t) => t === 'run.succeeded')).toEqual([]);
    await page.locator('[data-stream-status="live"]').waitFor();
    await page.locator('.details [data-state="running"]').waitFor();
    await screenshot('run-page-live-desktop');
    await page.locator('li[data-event-type="run.succeeded"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-stream-status="ended"]').waitFor();
    await page.locator('.details [data-state="succeeded"]').waitFor();
    // Log lines are in the Log panel only; Events lists what changes the run's state.
    expect(await eventTypes()).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    expect(await page.locator('ol.logs li').count()).toBe(6);
    await expect(page.getByRole('heading', { name: 'Placement' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('.placement').textContent()).toContain('simulator');
    // The form's Idempotency-Key finds the run.
    const key = await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
    const byKey = await f.client.call(
      'GET /runs',
      `/runs?idempotencyKey=${encodeURIComponent((key.body as { idempotencyKey: string }).idempotencyKey)}`,
      { token },
    );
    expect((byKey.body as { items: { id: string }[] }).items.map((r) => r.id)).toEqual([runId]);
    await screenshot('run-page-desktop');
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: one run, found again', async () => {
    const sentKeys: string[] = [];
    let lose = true;
    await page.route('**/api/v1/runs', async (route) => {
      sentKeys.push(route.request().headers()['idempotency-key'] ?? '');
      if (lose) {
        lose = false;
        // The server gets the request and creates the run; the browser never sees the answer.
        const answer = await route.fetch();
        const text = await answer.text();
        assertApiAnswer('POST', answer.url(), {
          status: answer.status(),
          headers: new Headers(answer.headers()),
          text,
          body: JSON.parse(text) as unknown,
        });
        expect(answer.status()).toBe(201);
        await route.abort('connectionreset');
      } else {
        await route.continue();
      }
    });
    try {
      await page.goto(`${origin}/console/new`);
      await page.getByLabel('Image').fill('busybox:1.36');
      await page.getByLabel(/^Environment/).fill('SIM_DURATION_MS=100');
      await page.getByRole('button', { name: 'Create run' }).click();
      await page.getByRole('alert').locator('[data-error-code="network_error"]').waitFor();
      await page.getByRole('button', { name: 'Retry (same request)' }).click();
      await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    } finally {
      await page.unroute('**/api/v1/runs');
    }
    expect(sentKeys).toHaveLength(2);
    expect(sentKeys[1]).toBe(sentKeys[0]);
    const runId = page.url().split('/').pop();
    const byKey = await f.client.call('GET /runs', `/runs?idempotencyKey=${encodeURIComponent(sentKeys[0] ?? '')}`, { token });
    expect((byKey.body as { items: { id: string }[] }).items.map((r) => r.id)).toEqual([runId]);
  });

  it('resumes the event stream after a dropped connection with no gap and no duplicate', async () => {
    const runId = await createViaApi({ SIM_DURATION_MS: '6000', SIM_LOG_LINES: '12' });
    await page.goto(`${origin}/console/runs/${runId}`);
    await page.locator('ol.logs li').first().waitFor();
    await page.evaluate(`{
      const status = document.querySelector('[data-stream-status]');
      window.seenStatuses = [];
      new MutationObserver(() => window.seenStatuses.push(status.dataset.streamStatus)).observe(status, { attributes: true });
    }`);
    // Every connection to the relay drops at once; the browser's EventSource reconnects by itself.
    await f.stack.restart('stream-relay');
    await page.locator('li[data-event-type="run.succeeded"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-stream-status="ended"]').waitFor();
    // The drop was seen and recovered from (however many attempts the restart took).
    const seen = await page.evaluate<string[]>('window.seenStatuses');
    expect(seen[0]).toBe('reconnecting');
    expect(seen).toContain('live');
    expect(seen[seen.length - 1]).toBe('ended');
    const [events, logs] = [await eventIds('events'), await eventIds('logs')];
    expect(events).toEqual([...events].sort((a, b) => a - b));
    expect(logs).toEqual([...logs].sort((a, b) => a - b));
    expect(new Set([...events, ...logs]).size).toBe(events.length + logs.length);
    expect(await eventTypes()).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    expect(logs).toHaveLength(12);
  });

  it('cancels a run only after confirmation (keyboard: Escape keeps it running)', async () => {
    const runId = await createViaApi({ SIM_DURATION_MS: '120000' });
    await page.goto(`${origin}/console/runs/${runId}`);
    const cancel = page.getByRole('button', { name: 'Cancel run…' });
    await page.locator('.details [data-state="running"]').waitFor();
    await cancel.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Cancel this run?' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await page.locator('li[data-event-type="run.cancel_requested"]').count()).toBe(0);
    await cancel.focus();
    await page.keyboard.press('Enter');
    // "Keep running" has the focus; Tab reaches "Cancel run".
    await page.keyboard.press('Tab');
    const sent = page.waitForRequest((request) => request.url().endsWith(`${runId}:cancel`));
    await page.keyboard.press('Enter');
    const headers = (await sent).headers();
    expect(headers['if-match']).toMatch(/^"[1-9]\d*"$/);
    expect(headers['x-csrf-token']).toEqual(expect.any(String));
    await page.locator('li[data-event-type="run.canceled"]').waitFor({ timeout: 20_000 });
    await page.locator('.details [data-state="canceled"]').waitFor();
    const run = await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
    expect(run.body).toMatchObject({ state: 'canceled', cancellation: { requestedBy: 'test-user' } });
  });

  it('shows an error with its code and request id', async () => {
    await page.goto(`${origin}/console/new`);
    // Provider and region are choices; an image name the contract refuses is an error the form can send.
    await page.getByLabel('Image').fill('not an image');
    await page.getByRole('button', { name: 'Create run' }).click();
    const alert = page.getByRole('alert');
    await alert.locator('[data-error-code="validation_failed"]').waitFor();
    const requestId = await alert.locator('[data-request-id]').getAttribute('data-request-id');
    expect(requestId).toMatch(/^[\w-]{8,}$/);
    await page.goto(`${origin}/console/runs/${randomUUID()}`);
    await page.getByRole('alert').locator('[data-error-code="run_not_found"]').waitFor();
  });

  it("lists the workspace's runs, live and filtered, and only its own", async () => {
    const foreign = await createViaApi({ SIM_DURATION_MS: '100' }, 'ws-elsewhere');
    const running = await createViaApi({ SIM_DURATION_MS: '3000' });
    await page.goto(`${origin}/console/`);
    const item = page.locator(`li[data-run-id="${running}"]`);
    await item.waitFor();
    await item.getByRole('link').focus();
    // Live: the list is polled, so the state changes on the page without a reload, and a keyboard
    // user's focus stays on the run it was on.
    await item.locator('[data-state="succeeded"]').waitFor({ timeout: 20_000 });
    expect(await page.evaluate<string | undefined>("document.activeElement?.closest('li')?.dataset.runId")).toBe(running);
    expect(await page.locator(`li[data-run-id="${foreign}"]`).count()).toBe(0);
    expect(await page.locator('li.run').count()).toBeGreaterThanOrEqual(4);
    await screenshot('runs-list-desktop');
    await page.getByLabel('canceled').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/state=canceled/);
    await page.locator('li.run').first().waitFor();
    const states = await page.locator('li.run [data-state]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state')));
    expect(states).toEqual(['canceled']);
  });

  it('pages through the list with Older and Newer', async () => {
    await Promise.all(Array.from({ length: 20 }, () => createViaApi({ SIM_DURATION_MS: '50' })));
    await page.goto(`${origin}/console/`);
    await page.locator('li.run').nth(19).waitFor();
    const first = await page.locator('li.run').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('Page 2').waitFor();
    const second = await page.locator('li.run').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.getByText('Page 1').waitFor();
  });

  it('is readable on a phone-sized screen (no sideways scrolling)', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${origin}/console/`);
    await page.locator('li.run').first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await screenshot('runs-list-phone');
    const runId = await page.locator('li.run').first().getAttribute('data-run-id');
    await page.goto(`${origin}/console/runs/${runId}`);
    await page.locator('.details [data-state]').waitFor();
    await page.locator('[data-stream-status="ended"]').waitFor({ timeout: 20_000 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await screenshot('run-page-phone');
    await page.setViewportSize(DESKTOP);
  });

  it('refuses a forged change made without the CSRF token (403 csrf_failed), in the browser and from another origin', async () => {
    const runId = await createViaApi({ SIM_DURATION_MS: '60000' });
    // In the signed-in page: the cookie goes along, but script that does not know the token is refused.
    const inBrowser = await page.evaluate(async (id) => {
      const res = await fetch(`/api/v1/runs/${id}:cancel`, { method: 'POST' });
      return { status: res.status, headers: [...res.headers.entries()], text: await res.text() };
    }, runId);
    const observed = {
      status: inBrowser.status,
      headers: new Headers(inBrowser.headers),
      text: inBrowser.text,
      body: JSON.parse(inBrowser.text) as unknown,
    };
    contractValidator().assertResponse('POST', '/runs/{runId}:cancel', observed);
    expect(observed.status).toBe(403);
    expect(observed.body).toMatchObject({ code: 'csrf_failed' });
    // A cross-site form post carries the cookie (at worst) but neither the token nor our Origin.
    const cookie = (await context.cookies()).find((c) => c.name === '__Host-wrs_session');
    const forged = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, {
      headers: { cookie: `${cookie?.name}=${cookie?.value}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ code: 'csrf_failed' });
    const run = await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
    expect(run.body).toMatchObject({ cancellation: null });
  });

  it('reports a sign-out the server did not carry out (503) as an error and stays signed in', async () => {
    await page.goto(`${origin}/console/`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const deletes: string[] = [];
    await page.route('**/api/v1/sessions/current', async (route) => {
      if (route.request().method() !== 'DELETE') {
        await route.continue();
        return;
      }
      deletes.push(route.request().url());
      await fulfillDependencyUnavailable(route);
    });
    try {
      await page.getByRole('button', { name: 'Sign out' }).click();
      const alert = page.getByRole('alert');
      await alert.locator('[data-error-code="dependency_unavailable"]').waitFor();
      expect(await alert.textContent()).toContain('Sign-out failed; you are still signed in');
    } finally {
      await page.unroute('**/api/v1/sessions/current');
    }
    expect(deletes).toHaveLength(1);
    // Still signed in, and not told otherwise: the page, the cookie and the remembered image stay.
    expect(await page.getByText('You are signed out.').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Sign in' }).count()).toBe(0);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).isEnabled()).toBe(true);
    expect((await context.cookies()).map((c) => c.name)).toEqual(['__Host-wrs_session']);
    expect(await page.evaluate<string[]>('Object.keys(localStorage)')).toEqual(['wrs.console.lastImage']);
    const still = await page.evaluate(async () => (await fetch('/api/v1/runs')).status);
    expect(still).toBe(200);
  });

  it('signs out: the session ends, the remembered image is forgotten and the sign-in form is back', async () => {
    await page.goto(`${origin}/console/`);
    expect(await page.evaluate<string[]>('Object.keys(localStorage)')).toEqual(['wrs.console.lastImage']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('You are signed out.').waitFor();
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate('[localStorage.length, sessionStorage.length]')).toEqual([0, 0]);
    // Every load asks for the session (here its 401, which the browser logs) and shows the sign-in form.
    requests.length = 0;
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(requests.filter((r) => r.includes('/sessions/current'))).toEqual(['GET /api/v1/sessions/current']);
    // In the page, so the answer is checked by watchApiAnswers.
    const after = await page.evaluate(async () => (await fetch('/api/v1/runs')).status);
    expect(after).toBe(401);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('forgets the remembered image when the session ends without a sign-out here: on the open page, or found gone at the next load', async () => {
    const rememberAnImage = async (signInWith: string): Promise<void> => {
      await page.goto(`${origin}/console/`);
      await page.getByLabel('Access token').fill(signInWith);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      await page.getByRole('link', { name: 'New run' }).first().click();
      await page.getByLabel('Image').fill('busybox');
      await page.getByLabel(/^Environment/).fill('SIM_DURATION_MS=120000');
      await page.getByRole('button', { name: 'Create run' }).click();
      await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
      await page.locator('.details [data-state]').waitFor();
      expect(await page.evaluate<string[]>('Object.keys(localStorage)')).toEqual(['wrs.console.lastImage']);
    };

    // A session ends on the server while the run page is open (here deleted from elsewhere, as a sign-out
    // in another browser does: no clock involved): the page's next refresh is a 401, the sign-in form is
    // back and the image is forgotten.
    await rememberAnImage(token);
    const cookie = (await context.cookies()).find((c) => c.name === '__Host-wrs_session');
    expect(cookie).toBeDefined();
    const cookieHeader = `${cookie?.name}=${cookie?.value}`;
    const current = await f.client.call('GET /sessions/current', '/sessions/current', { headers: { cookie: cookieHeader } });
    expect(current.status).toBe(200);
    const csrf = (current.body as { csrfToken: string }).csrfToken;
    const ended = await f.client.call('DELETE /sessions/current', '/sessions/current', {
      headers: { cookie: cookieHeader, 'x-csrf-token': csrf },
    });
    expect(ended.status).toBe(204);
    await page.getByText('Your session has ended; sign in again.').waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('[localStorage.length, sessionStorage.length]')).toEqual([0, 0]);

    // Ended while no page was open: the browser dropped the cookie (as it does at its Max-Age, the
    // session's expiry), and the next load finds no session, as the next person to sign in would.
    await rememberAnImage(token);
    await page.goto('about:blank');
    await context.clearCookies();
    await page.goto(`${origin}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('[localStorage.length, sessionStorage.length]')).toEqual([0, 0]);

    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('got from the API only answers the contract allows (each one the browser saw, checked)', async () => {
    const answers = await apiAnswers.settled();
    expect(answers.violations).toEqual([]);
    expect(answers.checked).toBeGreaterThan(10);
  });
});
