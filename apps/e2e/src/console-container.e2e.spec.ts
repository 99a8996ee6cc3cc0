import { randomUUID } from 'node:crypto';
import { CONTAINER_SOCKET, chromiumMissing, containerEngineMissing, describeNeeding } from '@wrs/testing';
import type { Page } from 'playwright-core';
import { drawnDirection, openConsoleBrowser, renderedTexts, screenshot, signIn, type ConsoleBrowser } from './console/console-browser';
import { startStack, type StackFixture } from './stack-fixture';

/** The image the New run form names for an engine with no registry (scripts/podman/setup.sh builds it). */
const LOCAL_IMAGE = 'localhost/wrs-test/base:bookworm';
/** An image no engine can pull: `.invalid` never resolves (RFC 6761), as a registry offline does not. */
const UNPULLABLE = 'registry.invalid/wrs/nothing:1';
const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);

/**
 * The console in headless Chromium against the compiled stack whose runs are real containers (Podman
 * here, which reaches no registry): a newcomer's first run from the New run form, with the image its
 * hint names, succeeds; a run whose dispatch the engine refused (the image cannot be pulled) says on its
 * page where it was dispatched and why it was refused, as its events do.
 */
describeNeeding(chromiumMissing() ?? containerEngineMissing(CONTAINER_SOCKET, LOCAL_IMAGE))(
  'the console with the container provider in headless Chromium',
  () => {
    let f: StackFixture;
    let b: ConsoleBrowser | undefined;
    let page: Page;
    let origin: string;

    beforeAll(async () => {
      f = await startStack(['ws-console-box'], { CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET, PROVIDERS_JSON: PROVIDERS });
      origin = new URL(f.stack.baseUrl).origin;
      b = await openConsoleBrowser();
      page = b.page;
      await signIn(page, origin, f.token('ws-console-box'));
    });

    afterAll(async () => {
      await b?.browser.close();
      await f?.stop();
    });

    const eventTypes = (): Promise<string[]> =>
      page.locator('ol.events li').evaluateAll((items) => items.map((li) => li.getAttribute('data-event-type') ?? ''));
    const createFromForm = async (image: string, args: string): Promise<void> => {
      await page.goto(`${origin}/console/new`);
      await page.getByRole('heading', { name: 'New run' }).waitFor();
      await page.getByLabel('Image').fill(image);
      await page.getByLabel(/^Arguments/).fill(args);
      await page.getByRole('button', { name: 'Create run' }).click();
      await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
    };

    it("runs a newcomer's first run from the form with the image its hint names: succeeded, its output in the log", async () => {
      await page.goto(`${origin}/console/new`);
      await page.getByRole('heading', { name: 'New run' }).waitFor();
      expect(await page.getByLabel('Image').inputValue()).toBe('');
      const hinted = (await page.locator('#image-help [data-local-image]').textContent()) ?? '';
      expect(hinted).toBe(LOCAL_IMAGE);
      await screenshot(page, 'new-run-form-desktop');
      await createFromForm(hinted, 'echo\nhello from the console');
      await page.locator('.details [data-state="succeeded"]').waitFor({ timeout: 60_000 });
      await page.locator('[data-stream-status="ended"]').waitFor();
      expect(await page.locator('ol.logs li').allTextContents()).toEqual(['hello from the console']);
      expect(await page.locator('.placement').textContent()).toContain('container / local');
    }, 90_000);

    it('shows a run whose dispatch was refused as dispatched, refused (code and reason) and not placed', async () => {
      await createFromForm(UNPULLABLE, '');
      await page.locator('.details [data-state="failed"]').waitFor({ timeout: 60_000 });
      await page.locator('[data-stream-status="ended"]').waitFor();
      const check = async (): Promise<void> => {
        expect(await eventTypes()).toEqual(['run.created', 'run.dispatched', 'run.dispatch_refused', 'run.failed']);
        const placement = page.locator('.placement-slot');
        await placement.locator('li[data-refusal-code="provider_error"]').waitFor();
        const placementText = (await placement.textContent()) ?? '';
        expect(placementText).not.toContain('Not dispatched yet');
        expect(placementText).toContain('Not placed: no provider took the run, so it failed (provider_error).');
        expect(placementText).toContain(`container / local refused it at `);
        expect(placementText).toContain(UNPULLABLE);
        // Timing: when it was dispatched, where, and that it was refused; never "Dispatched —".
        const timing = await page
          .locator('.timing-slot dt')
          .evaluateAll((items) => items.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent ?? '']));
        const dispatched = timing.filter(([term]) => term === 'Dispatched').map(([, value]) => value);
        expect(dispatched).toHaveLength(1);
        expect(dispatched[0]).toMatch(/^\d.* to container \/ local, refused \d.* \(provider_error\)$/);
      };
      await check();
      await screenshot(page, 'run-page-dispatch-refused-desktop');
      // Opened afresh (the stream replays the run's events): the same.
      await page.reload();
      await page.locator('[data-stream-status="ended"]').waitFor({ timeout: 20_000 });
      await check();
    }, 90_000);

    it("shows a log line's bidirectional controls as escapes, not obeyed (Trojan Source), and right-to-left words as they are", async () => {
      // "granted" as the line shows it with the override acting; "detnarg" is what it holds.
      const trojan = 'access \u202edetnarg\u202c ok';
      const rtl = 'مرحبا שלום ok';
      const created = await f.client.call('POST /runs', '/runs', {
        token: f.token('ws-console-box'),
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: LOCAL_IMAGE, args: ['printf', '%s\\n%s\\n', trojan, rtl] }, provider: 'auto', region: 'auto' },
      });
      expect(created.status).toBe(201);
      const runId = (created.body as { id: string }).id;
      await page.goto(`${origin}/console/runs/${runId}`);
      await page.locator('.details [data-state="succeeded"]').waitFor({ timeout: 60_000 });
      await page.locator('[data-stream-status="ended"]').waitFor();
      // The line holds the controls (the run's events carry them as the workload wrote them) ...
      expect(await page.locator('ol.logs li').allTextContents()).toHaveLength(2);
      // ... and the page shows each as its escape, `\u202e`, in a style of its own.
      expect(await renderedTexts(page, 'ol.logs li')).toEqual(['access \\u202edetnarg\\u202c ok', rtl]);
      expect(await page.locator('ol.logs li').first().locator('span.control').allTextContents()).toEqual(['\\u202e', '\\u202c']);
      // Drawn in the order it holds: "detnarg" left to right, so no "granted" on the screen; the Arabic
      // and Hebrew words right to left, as they are written.
      expect(await drawnDirection(page.locator('ol.logs li').nth(0), 'detnarg')).toBe('ltr');
      expect(await drawnDirection(page.locator('ol.logs li').nth(1), 'שלום')).toBe('rtl');
      expect(await drawnDirection(page.locator('ol.logs li').nth(1), 'مرحبا')).toBe('rtl');
      // The run's arguments (the workload's own text too) are shown the same way.
      const argsRow = '.details dt:text-is("Arguments") + dd';
      expect(await renderedTexts(page, argsRow)).toEqual([`printf %s\\n%s\\n access \\u202edetnarg\\u202c ok ${rtl}`]);
      expect(await drawnDirection(page.locator(argsRow), 'detnarg')).toBe('ltr');
      await screenshot(page, 'run-page-bidi-controls-desktop');
    }, 90_000);

    it("shows a log line's zero-width space and other invisible format characters as escapes, its tab as it is", async () => {
      // "run-42" as the line shows it with the zero-width space hidden; a word joiner, a BOM, a soft
      // hyphen, a line separator and a tag character (beyond U+FFFF) as well, and a tab.
      const line = 'run\u200b-42\tok\u2060\ufeff\u00ad\u2028end \u{e0041}';
      const created = await f.client.call('POST /runs', '/runs', {
        token: f.token('ws-console-box'),
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: LOCAL_IMAGE, args: ['printf', '%s\\n', line] }, provider: 'auto', region: 'auto' },
      });
      expect(created.status).toBe(201);
      const runId = (created.body as { id: string }).id;
      await page.goto(`${origin}/console/runs/${runId}`);
      await page.locator('.details [data-state="succeeded"]').waitFor({ timeout: 60_000 });
      await page.locator('[data-stream-status="ended"]').waitFor();
      expect(await renderedTexts(page, 'ol.logs li')).toEqual(['run\\u200b-42\tok\\u2060\\ufeff\\u00ad\\u2028end \\u{e0041}']);
      expect(await page.locator('ol.logs li span.control').allTextContents()).toEqual([
        '\\u200b',
        '\\u2060',
        '\\ufeff',
        '\\u00ad',
        '\\u2028',
        '\\u{e0041}',
      ]);
      await screenshot(page, 'run-page-invisible-characters-desktop');
    }, 90_000);

    it('got from the API only answers the contract allows, and no page error', async () => {
      const answers = await b?.answers.settled();
      expect(answers?.violations).toEqual([]);
      expect(b?.pageErrors).toEqual([]);
    });
  },
);
