import { randomUUID } from 'node:crypto';
import { chromiumMissing, describeNeeding, eventually } from '@wrs/testing';
import type { APIResponse, Page, Route } from 'playwright-core';
import {
  drawnDirection,
  failNextRequest,
  fulfillDependencyUnavailable,
  listedRuns,
  openConsoleBrowser,
  optionValues,
  PHONE,
  renderedTexts,
  screenshot,
  signIn,
  verticalBox,
  type ConsoleBrowser,
} from './console/console-browser';
import { startStack, type StackFixture } from './stack-fixture';

const PROVIDERS = [
  { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 0 },
  { provider: 'sim-east', kind: 'simulator', regions: ['east-1'], priority: 1 },
];
const LOG_LINES = 40;

/**
 * The console's pages in headless Chromium against the compiled stack (issue #23 item 6): provider
 * and region are the choices GET /workspaces/current publishes; log lines are in the Log panel only;
 * the list's filters and page are in the URL (reload, back and forward keep them); on a phone the
 * run's state and log come first.
 */
describeNeeding(chromiumMissing())("the console's pages in headless Chromium", () => {
  let f: StackFixture;
  let b: ConsoleBrowser | undefined;
  let page: Page;
  let origin: string;
  let token: string;
  let logRun: string;

  beforeAll(async () => {
    f = await startStack(['ws-pages'], { PROVIDERS_JSON: JSON.stringify(PROVIDERS) });
    origin = new URL(f.stack.baseUrl).origin;
    token = f.token('ws-pages');
    b = await openConsoleBrowser();
    page = b.page;
    await signIn(page, origin, token);
  });

  afterAll(async () => {
    await b?.browser.close();
    await f?.stop();
  });

  const createViaApi = async (env: Record<string, string>): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const runOf = async (id: string): Promise<{ state: string; terminal: boolean; provider: string; region: string; logLines: number }> =>
    (await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token })).body as never;
  const finished = (ids: string[]): Promise<true> =>
    eventually(async () => ((await Promise.all(ids.map(runOf))).every((r) => r.terminal) ? true : undefined), 30_000, 'runs finished');

  it('offers as provider and region the choices GET /workspaces/current publishes, with auto', async () => {
    const workspace = await f.client.call('GET /workspaces/current', '/workspaces/current', { token });
    const placements = (workspace.body as { placements: { provider: string; regions: string[] }[] }).placements;
    expect(placements.map((p) => p.provider)).toEqual(['simulator', 'sim-east']);
    await page.goto(`${origin}/console/new`);
    await page.locator('#provider:enabled').waitFor();
    expect(await optionValues(page, 'Provider')).toEqual(['auto', ...placements.map((p) => p.provider)]);
    expect(await optionValues(page, 'Region')).toEqual(['auto', ...placements.flatMap((p) => p.regions)]);
    await page.getByLabel('Provider', { exact: true }).selectOption('sim-east');
    expect(await optionValues(page, 'Region')).toEqual(['auto', 'east-1']);
    await page.getByLabel('Region', { exact: true }).selectOption('east-1');
    await page.getByLabel('Image').fill('busybox');
    await page.getByLabel(/^Environment/).fill('SIM_DURATION_MS=100');
    await page.getByRole('button', { name: 'Create run' }).click();
    await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    const runId = page.url().split('/').pop() ?? '';
    expect(await runOf(runId)).toMatchObject({ provider: 'sim-east', region: 'east-1' });
    await page.locator('.details [data-state="succeeded"]').waitFor({ timeout: 20_000 });
  });

  it(`shows a run's ${LOG_LINES} log lines in the Log panel, and under Events only what changes its state`, async () => {
    logRun = await createViaApi({ SIM_DURATION_MS: '2000', SIM_LOG_LINES: String(LOG_LINES) });
    await page.goto(`${origin}/console/runs/${logRun}`);
    await page.locator('[data-stream-status="ended"]').waitFor({ timeout: 20_000 });
    await page.locator('.details [data-state="succeeded"]').waitFor();
    expect((await runOf(logRun)).logLines).toBe(LOG_LINES);
    const lines = await page.locator('ol.logs li').allTextContents();
    expect(lines).toEqual(Array.from({ length: LOG_LINES }, (_, i) => `simulated output line ${i + 1} of ${LOG_LINES}`));
    const events = await page.locator('ol.events li').evaluateAll((items) => items.map((li) => li.getAttribute('data-event-type')));
    expect(events).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    // Together the two lists are the stream: each event once, in order.
    const ids = await page
      .locator('ol.events li, ol.logs li')
      .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-event-id'))));
    expect(ids).toHaveLength(LOG_LINES + 4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps the list's filter and page in the URL: reload, back and forward show the same runs", async () => {
    const succeeded = await Promise.all(Array.from({ length: 24 }, () => createViaApi({ SIM_DURATION_MS: '50' })));
    // The newest run, so the unfiltered first page shows it and the filtered one must not.
    const failed = await createViaApi({ SIM_DURATION_MS: '50', SIM_EXIT_CODE: '3' });
    await finished([failed, ...succeeded]);
    await page.goto(`${origin}/console/`);
    await page.locator(`li.run[data-run-id="${failed}"]`).waitFor();
    await page.getByLabel('succeeded').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\?state=succeeded$/);
    await page.getByText('Page 1').waitFor();
    const first = await listedRuns(page);
    expect(first).toHaveLength(20);
    expect(first).not.toContain(failed);

    await page.getByRole('button', { name: 'Older →' }).click();
    await page.waitForURL(/\?state=succeeded&cursor=[\w-]+&page=2$/);
    await page.getByText('Page 2').waitFor();
    const second = await listedRuns(page);
    const all = await f.client.call('GET /runs', '/runs?state=succeeded&limit=100', { token });
    expect(second).toEqual((all.body as { items: { id: string }[] }).items.slice(20).map((r) => r.id));
    expect(second.filter((id) => first.includes(id))).toEqual([]);

    const pageTwo = page.url();
    await page.reload();
    await page.getByText('Page 2').waitFor();
    expect(page.url()).toBe(pageTwo);
    expect(await page.getByLabel('succeeded').isChecked()).toBe(true);
    expect(await listedRuns(page)).toEqual(second);

    // Opened afresh (a bookmark, a shared link): the same page; "Newer" goes to the first page.
    const fresh = await page.context().newPage();
    try {
      await fresh.goto(pageTwo);
      await fresh.getByText('Page 2').waitFor();
      expect(await listedRuns(fresh)).toEqual(second);
      await fresh.getByRole('button', { name: '← Newer' }).click();
      await fresh.getByText('Page 1').waitFor();
      expect(await listedRuns(fresh)).toEqual(first);
    } finally {
      await fresh.close();
    }

    // "Newer" after the reload still knows the way back (history.state survives it).
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.getByText('Page 1').waitFor();
    expect(await listedRuns(page)).toEqual(first);

    await page.goBack();
    await page.getByText('Page 2').waitFor();
    expect(await listedRuns(page)).toEqual(second);
    await page.goBack();
    await page.getByText('Page 1').waitFor();
    expect(page.url()).toBe(`${origin}/console/?state=succeeded`);
    expect(await listedRuns(page)).toEqual(first);
    await page.goBack();
    await page.locator(`li.run[data-run-id="${failed}"]`).waitFor();
    expect(await page.getByLabel('succeeded').isChecked()).toBe(false);
    await page.goForward();
    await page.getByText('Page 1').waitFor();
    expect(await page.getByLabel('succeeded').isChecked()).toBe(true);
    expect(await listedRuns(page)).toEqual(first);

    // A run's page has its own URL, which a reload keeps; back returns to the filtered list.
    await page.locator(`li.run[data-run-id="${first[3]}"] a`).click();
    await page.waitForURL(`${origin}/console/runs/${first[3]}`);
    await page.reload();
    await page.locator('.details [data-state="succeeded"]').waitFor();
    await page.goBack();
    await page.getByText('Page 1').waitFor();
    expect(page.url()).toBe(`${origin}/console/?state=succeeded`);
    expect(await listedRuns(page)).toEqual(first);
  });

  it("shows a run's labels, and filters the list by labels kept in the URL", async () => {
    const create = async (labels: Record<string, string>): Promise<string> => {
      const res = await f.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '50' }, labels }, provider: 'auto', region: 'auto' },
      });
      expect(res.status).toBe(201);
      return (res.body as { id: string }).id;
    };
    const ml = await create({ team: 'ml', env: 'prod' });
    const web = await create({ team: 'web', env: 'prod' });
    await finished([ml, web]);
    await page.goto(`${origin}/console/`);
    await page.locator(`li.run[data-run-id="${web}"] code.label`, { hasText: 'team=web' }).waitFor();
    await page.getByLabel('Labels', { exact: true }).fill('env=prod team=ml');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\?label=env%3Dprod&label=team%3Dml$/);
    await eventually(
      async () => ((await listedRuns(page)).join() === ml ? true : undefined),
      10_000,
      'the list filtered to the labelled run',
    );
    await page.reload();
    expect(await page.getByLabel('Labels', { exact: true }).inputValue()).toBe('env=prod team=ml');
    await page.goto(`${origin}/console/runs/${ml}`);
    await page.locator('.details code.label', { hasText: 'team=ml' }).waitFor();
  });

  it("on a phone (390x844) shows the run's state and its log above the fold, events below", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${origin}/console/runs/${logRun}`);
    await page.locator('[data-stream-status="ended"]').waitFor({ timeout: 20_000 });
    const box = (selector: string): Promise<{ top: number; bottom: number }> => verticalBox(page, selector);
    expect(await page.evaluate<number>('window.scrollY')).toBe(0);
    const state = await box('.details [data-state="succeeded"]');
    const firstLine = await box('ol.logs li');
    const events = await box('ol.events');
    expect(state.bottom).toBeLessThanOrEqual(PHONE.height);
    expect(firstLine.bottom).toBeLessThanOrEqual(PHONE.height);
    expect(state.top).toBeLessThan(firstLine.top);
    expect(firstLine.top).toBeLessThan(events.top);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'run-page-log-phone');

    // The list: the filters start folded, so runs are on the first screen.
    await page.goto(`${origin}/console/`);
    await page.locator('li.run').first().waitFor();
    expect(await page.getByLabel('succeeded').isVisible()).toBe(false);
    expect((await box('li.run')).bottom).toBeLessThanOrEqual(PHONE.height);
    await screenshot(page, 'runs-list-folded-phone');
    await page.getByText('Filters', { exact: true }).click();
    expect(await page.getByLabel('succeeded').isVisible()).toBe(true);
  });

  it("keeps a log line's spaces, clears a failed refresh once the run loads again, and says a malformed run address is not found", async () => {
    await page.goto(`${origin}/console/runs/${logRun}`);
    await page.locator('ol.logs li').first().waitFor();
    // Run in the page, where getComputedStyle is a global (this project's types have no DOM).
    const whiteSpace = await page
      .locator('ol.logs li')
      .first()
      .evaluate(
        (li) => (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(li).whiteSpace,
      );
    expect(whiteSpace).toBe('pre-wrap');

    const running = await createViaApi({ SIM_DURATION_MS: '60000' });
    const runUrl = `**/api/v1/runs/${running}`;
    // The page's first read of the run fails (503); the refresh 3 s later gets through.
    const failed = await failNextRequest(page, runUrl);
    try {
      await page.goto(`${origin}/console/runs/${running}`);
      await page.getByRole('alert').locator('[data-error-code="dependency_unavailable"]').waitFor();
      await page.locator('.details [data-state="running"]').waitFor({ timeout: 20_000 });
      await page.getByRole('alert').locator('[data-error-code]').waitFor({ state: 'detached', timeout: 10_000 });
    } finally {
      await page.unroute(runUrl);
    }
    expect(failed()).toBe(1);

    await page.goto(`${origin}/console/runs/%E0`);
    await page.getByRole('alert').locator('[data-error-code="run_not_found"]').waitFor();
  });

  it("keeps a failed cancel's error through a failed refresh and the successful one after it", async () => {
    const running = await createViaApi({ SIM_DURATION_MS: '120000' });
    const cancelUrl = `**/api/v1/runs/${running}:cancel`;
    const runUrl = `**/api/v1/runs/${running}`;
    await page.goto(`${origin}/console/runs/${running}`);
    await page.locator('.details [data-state="running"]').waitFor({ timeout: 20_000 });
    const cancelError = page.getByRole('alert').filter({ hasText: 'Cancel failed' });
    await page.route(cancelUrl, fulfillDependencyUnavailable, { times: 1 });
    try {
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      await page.getByRole('dialog', { name: 'Cancel this run?' }).getByRole('button', { name: 'Cancel run' }).click();
      await cancelError.locator('[data-error-code="dependency_unavailable"]').waitFor();
    } finally {
      await page.unroute(cancelUrl);
    }
    const requestId = await cancelError.locator('[data-request-id]').getAttribute('data-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    // The next refresh (every 3 s) fails; the one after it gets through and clears only its own error.
    const failed = await failNextRequest(page, runUrl);
    try {
      const loadError = page.getByRole('alert').filter({ hasText: 'Could not load the run' });
      await loadError.waitFor({ timeout: 10_000 });
      await loadError.waitFor({ state: 'hidden', timeout: 10_000 });
    } finally {
      await page.unroute(runUrl);
    }
    expect(failed()).toBe(1);
    expect(await cancelError.locator('[data-request-id]').getAttribute('data-request-id', { timeout: 1000 })).toBe(requestId);
    expect(await page.locator('.details [data-state="running"]').count()).toBe(1);
  });

  it("clears a failed cancel's error when the run ends, as the Cancel button goes", async () => {
    const running = await createViaApi({ SIM_DURATION_MS: '120000' });
    const cancelUrl = `**/api/v1/runs/${running}:cancel`;
    await page.goto(`${origin}/console/runs/${running}`);
    await page.locator('.details [data-state="running"]').waitFor({ timeout: 20_000 });
    const cancelButton = page.getByRole('button', { name: 'Cancel run…' });
    const cancelError = page.getByRole('alert').filter({ hasText: 'Cancel failed' });
    await page.route(cancelUrl, fulfillDependencyUnavailable, { times: 1 });
    try {
      await cancelButton.click();
      await page.getByRole('dialog', { name: 'Cancel this run?' }).getByRole('button', { name: 'Cancel run' }).click();
      await cancelError.locator('[data-error-code="dependency_unavailable"]').waitFor();
    } finally {
      await page.unroute(cancelUrl);
    }
    // The run ends by another hand (here a cancel through the API): the page shows it final, with no
    // Cancel button and no error about a cancel that no longer matters.
    expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${running}:cancel`, { token })).status).toBe(202);
    await page.locator('.details [data-state="canceled"]').waitFor({ timeout: 20_000 });
    expect(await cancelButton.isVisible()).toBe(false);
    expect(await cancelError.count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('shows no error for a cancel that failed (503, no answer) after a refresh showed the run ended', async () => {
    const answers: [string, (route: Route) => Promise<void>][] = [
      ['503', fulfillDependencyUnavailable],
      ['no answer', (route) => route.abort('failed')],
    ];
    for (const [name, answer] of answers) {
      const running = await createViaApi({ SIM_DURATION_MS: '120000' });
      const cancelUrl = `**/api/v1/runs/${running}:cancel`;
      await page.goto(`${origin}/console/runs/${running}`);
      await page.locator('.details [data-state="running"]').waitFor({ timeout: 20_000 });
      // The page's cancel is held on its way until the page shows the run ended, then fails.
      let arrived!: () => void;
      const held = new Promise<void>((resolve) => (arrived = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let answered!: () => void;
      const failed = new Promise<void>((resolve) => (answered = resolve));
      await page.route(
        cancelUrl,
        async (route) => {
          arrived();
          await released;
          await answer(route);
          answered();
        },
        { times: 1 },
      );
      try {
        await page.getByRole('button', { name: 'Cancel run…' }).click();
        await page.getByRole('dialog', { name: 'Cancel this run?' }).getByRole('button', { name: 'Cancel run' }).click();
        await held;
        // The run ends by another hand meanwhile (a cancel through the API); a refresh shows it.
        expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${running}:cancel`, { token })).status).toBe(202);
        await page.locator('.details [data-state="canceled"]').waitFor({ timeout: 20_000 });
        release();
        await failed;
      } finally {
        release();
        await page.unroute(cancelUrl);
      }
      // The failure reached the page; for a second after it, no error about a cancel that no longer matters.
      for (let i = 0; i < 10; i++) {
        expect([name, await page.getByRole('alert').count()]).toEqual([name, 0]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await page.locator('.details [data-state="canceled"]').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Cancel run…' }).isVisible()).toBe(false);
    }
  });

  it("keeps the run ended when its cancel's answer (canceling, an older version) comes after a refresh showed it canceled", async () => {
    const running = await createViaApi({ SIM_DURATION_MS: '120000' });
    const cancelUrl = `**/api/v1/runs/${running}:cancel`;
    await page.goto(`${origin}/console/runs/${running}`);
    await page.locator('.details [data-state="running"]').waitFor({ timeout: 20_000 });
    // The page's cancel reaches the server, which cancels the run; its answer is held on its way back
    // until the page shows the run canceled (a newer version, from a refresh), then delivered as it was.
    let fetched!: (answer: APIResponse) => void;
    const held = new Promise<APIResponse>((resolve) => (fetched = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let answered!: () => void;
    const delivered = new Promise<void>((resolve) => (answered = resolve));
    await page.route(
      cancelUrl,
      async (route) => {
        const answer = await route.fetch();
        fetched(answer);
        await released;
        await route.fulfill({ response: answer });
        answered();
      },
      { times: 1 },
    );
    let canceling: { state: string; version: number };
    try {
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      await page.getByRole('dialog', { name: 'Cancel this run?' }).getByRole('button', { name: 'Cancel run' }).click();
      const answer = await held;
      expect(answer.status()).toBe(202);
      canceling = (await answer.json()) as { state: string; version: number };
      expect(canceling.state).toBe('canceling');
      await page.locator('.details [data-state="canceled"]').waitFor({ timeout: 20_000 });
      // Every state the page shows from now on, as it is rendered.
      await page.evaluate(`{
        const details = document.querySelector('.details');
        window.shownStates = [];
        new MutationObserver(() => {
          for (const e of details.querySelectorAll('[data-state]')) window.shownStates.push(e.dataset.state);
        }).observe(details, { childList: true, subtree: true, attributes: true });
      }`);
      release();
      await delivered;
    } finally {
      release();
      await page.unroute(cancelUrl);
    }
    const ended = (await f.client.call('GET /runs/{runId}', `/runs/${running}`, { token })).body as { state: string; version: number };
    expect([ended.state, ended.version > canceling.version]).toEqual(['canceled', true]);
    // Past the refresh the cancel's answer schedules (1 s later), which would have hidden a rollback.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // A refresh may show canceled again (the same version); nothing else may be shown.
    expect(((await page.evaluate('window.shownStates')) as string[]).filter((state) => state !== 'canceled')).toEqual([]);
    expect(await page.locator('.details [data-state="canceled"]').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Cancel run…' }).isVisible()).toBe(false);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it("shows a zero-width space, other invisible format and default-ignorable characters and control characters in a run's arguments as escapes", async () => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        workload: {
          image: 'busybox',
          // A Hangul filler (Default_Ignorable, not Cf), a variation selector, ESC (a C0 control).
          args: ['run\u200b-42', 'a\u2060b\ufeffc', 'line\u2028sep', 'tag\u{e0041}', 'x\u3164y', 'v\ufe0f', 'red\u001b[31m'],
          env: { SIM_DURATION_MS: '50' },
        },
        provider: 'auto',
        region: 'auto',
      },
    });
    expect(res.status).toBe(201);
    const runId = (res.body as { id: string }).id;
    await page.goto(`${origin}/console/runs/${runId}`);
    const argsRow = '.details dt:text-is("Arguments") + dd';
    await page.locator(argsRow).waitFor();
    expect(await renderedTexts(page, argsRow)).toEqual([
      'run\\u200b-42 a\\u2060b\\ufeffc line\\u2028sep tag\\u{e0041} x\\u3164y v\\ufe0f red\\u001b[31m',
    ]);
    expect(await page.locator(argsRow).locator('span.control').allTextContents()).toEqual([
      '\\u200b',
      '\\u2060',
      '\\ufeff',
      '\\u2028',
      '\\u{e0041}',
      '\\u3164',
      '\\ufe0f',
      '\\u001b',
    ]);
    expect(await page.locator(argsRow).locator('span.control').first().getAttribute('title')).toBe(
      'U+200B, an invisible character, shown instead of hidden',
    );
    expect(await page.locator(argsRow).locator('span.control').last().getAttribute('title')).toBe(
      'U+001B, a control character, shown as its code',
    );
  });

  it('says in which direction a word is drawn, and no direction for one not drawn', async () => {
    const scratch = await page.context().newPage();
    try {
      await scratch.setContent(
        '<p id="ltr">abc</p><p id="rtl">\u05e9\u05dc\u05d5\u05dd</p><p id="hidden" hidden>abc</p><p id="zero">x\u200b\u200b\u200by</p>',
      );
      expect(await drawnDirection(scratch.locator('#ltr'), 'abc')).toBe('ltr');
      expect(await drawnDirection(scratch.locator('#rtl'), '\u05e9\u05dc\u05d5\u05dd')).toBe('rtl');
      // Not laid out, or glyphs of no width: every character at the same place, which is no direction.
      expect(await drawnDirection(scratch.locator('#hidden'), 'abc')).toBeNull();
      expect(await drawnDirection(scratch.locator('#zero'), '\u200b\u200b\u200b')).toBeNull();
      expect(await drawnDirection(scratch.locator('#ltr'), 'xyz')).toBeNull();
    } finally {
      await scratch.close();
    }
  });

  it('got from the API only answers the contract allows, and no page error', async () => {
    const answers = await b?.answers.settled();
    expect(answers?.violations).toEqual([]);
    expect(answers?.checked).toBeGreaterThan(10);
    expect(b?.pageErrors).toEqual([]);
  });
});
