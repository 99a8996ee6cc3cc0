import type { BrowserContext, Response as BrowserResponse } from 'playwright-core';
import { assertApiAnswer } from './contract-checked-fetch';
import { patience } from './patience';
import { parseJsonOrUndefined } from './parse-json';

export interface BrowserAnswers {
  /** Waits until every answer seen so far is checked: how many were, and the violations (none when all fit). */
  settled(): Promise<{ checked: number; violations: string[] }>;
}

/**
 * Holds every answer a browser context gets from the API (under /api/v1) to the contract: what the
 * console and an EventSource see is checked like a test's own calls. Event streams: status, headers
 * and content type (their events are the test's to check). Call settled() before closing the context.
 */
export function watchApiAnswers(context: BrowserContext): BrowserAnswers {
  const pending: Promise<void>[] = [];
  const violations: string[] = [];
  context.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/api/v1/')) {
      pending.push(check(response).catch((error: unknown) => void violations.push((error as Error).message)));
    }
  });
  return {
    settled: async () => {
      await Promise.all(pending);
      return { checked: pending.length, violations };
    },
  };
}

async function check(response: BrowserResponse): Promise<void> {
  const headers = new Headers(await response.allHeaders());
  const type = headers.get('content-type');
  // No body to read: a stream (its events are the test's), or a 204 (Playwright waits forever for one).
  const bodiless = type === null || type.startsWith('text/event-stream') || response.status() === 204;
  const text = bodiless ? '' : await bodyOf(response);
  assertApiAnswer(response.request().method(), response.url(), {
    status: response.status(),
    headers,
    text: text ?? '',
    body: text ? parseJsonOrUndefined(text) : undefined,
    ...(text === undefined ? { bodyUnread: true } : {}),
  });
}

/**
 * The body, or undefined when the browser does not hand it over: a page that navigated away drops it,
 * and a body the page never read (`(await fetch(url)).status`) may never be reported finished. Then
 * status, headers and content type are what is checked.
 */
async function bodyOf(response: BrowserResponse): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), patience(5000));
  });
  try {
    return await Promise.race([response.text().catch(() => undefined), givenUp]);
  } finally {
    clearTimeout(timer);
  }
}
