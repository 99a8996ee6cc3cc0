import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Route } from 'playwright-core';
import { CHROMIUM, watchApiAnswers, type BrowserAnswers } from '@wrs/testing';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
const ARTIFACTS = join(__dirname, '..', '..', '..', '..', 'test-artifacts', 'console');

export interface ConsoleBrowser {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every answer the page got from the API, held to the contract. */
  readonly answers: BrowserAnswers;
  /** Errors thrown in the page and CSP violations it reported: a test expects none. */
  readonly pageErrors: string[];
}

/** Headless Chromium (the Debian build) with one page, its API answers checked against the contract. */
export async function openConsoleBrowser(): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
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
  const context = await browser.newContext({ viewport: DESKTOP });
  const answers = watchApiAnswers(context);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) {
      pageErrors.push(message.text());
    }
  });
  return { browser, context, page, answers, pageErrors };
}

/** Signs in as a person would: the token typed into the sign-in form once. */
export async function signIn(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/console/`);
  await page.getByLabel('Access token').fill(token);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
}

/** The run ids of the list page shown, top to bottom. */
export function listedRuns(page: Page): Promise<(string | null)[]> {
  return page.locator('li.run').evaluateAll((items) => items.map((li) => li.getAttribute('data-run-id')));
}

/** The values of a select's options, in order. */
export function optionValues(page: Page, label: string): Promise<string[]> {
  return page
    .getByLabel(label, { exact: true })
    .locator('option')
    .evaluateAll((items) => items.map((o) => o.getAttribute('value') ?? ''));
}

/** A full-page screenshot in test-artifacts/console/ (git-ignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`console screenshot: ${path}`);
}

/** Where the first element matching the selector is, vertically in the viewport (scrolled to the top: the page). */
export async function verticalBox(page: Page, selector: string): Promise<{ top: number; bottom: number }> {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) {
    throw new Error(`${selector} is not shown`);
  }
  return { top: found.y, bottom: found.y + found.height };
}

/** Answers a routed request as the edge does when a dependency is down: 503 `dependency_unavailable`, retryable. */
export async function fulfillDependencyUnavailable(route: Route): Promise<void> {
  const requestId = randomUUID();
  await route.fulfill({
    status: 503,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': requestId, 'retry-after': '1' },
    body: JSON.stringify({
      type: 'urn:workload-run-service:problem:dependency_unavailable',
      title: 'Service Unavailable',
      status: 503,
      code: 'dependency_unavailable',
      requestId,
      retryable: true,
    }),
  });
}

/** The rendered text (`innerText`: what the page shows, as it would be copied) of each element matching the selector. */
export function renderedTexts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((items) => items.map((e) => (e as unknown as { innerText: string }).innerText));
}

/** What drawnDirection uses of the page's DOM (this project's types have none). */
interface TextDom {
  readonly document: {
    createTreeWalker(root: unknown, whatToShow: number): { nextNode(): { readonly data: string } | null };
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getBoundingClientRect(): { readonly left: number };
    };
  };
}

/**
 * In which direction the page draws `word` (two characters or more) inside the element: `ltr` when its
 * first character is left of its last on the screen, `rtl` when right of it (a right-to-left word, or a
 * left-to-right one reordered by a bidirectional override); null when no text node in it holds the word,
 * or when its first and last characters are drawn at the same place, which is no direction: glyphs of
 * no width, or an element not laid out (hidden, detached), whose characters are all at 0.
 */
export function drawnDirection(element: Locator, word: string): Promise<'ltr' | 'rtl' | null> {
  if ([...word].length < 2) {
    throw new Error(`drawnDirection needs a word of two characters or more, not ${JSON.stringify(word)}`);
  }
  return element.evaluate((root, w) => {
    const { document } = globalThis as unknown as TextDom;
    const SHOW_TEXT = 4;
    const walker = document.createTreeWalker(root, SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(w);
      if (at >= 0) {
        const text = node;
        const left = (i: number): number => {
          const range = document.createRange();
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          return range.getBoundingClientRect().left;
        };
        const first = left(at);
        const last = left(at + w.length - 1);
        return first < last ? 'ltr' : first > last ? 'rtl' : null;
      }
    }
    return null;
  }, word);
}

/** Answers the page's next request to `url` with that 503; the function returned says how many were so answered. */
export async function failNextRequest(page: Page, url: string): Promise<() => number> {
  let failed = 0;
  await page.route(
    url,
    async (route) => {
      failed++;
      await fulfillDependencyUnavailable(route);
    },
    { times: 1 },
  );
  return () => failed;
}
