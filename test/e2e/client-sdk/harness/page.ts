// What the test page (harness/session-stub.ts) puts on `window`, and opening it.

import type { Page } from 'playwright-core';
import type * as Sdk from '../../../../client-sdk/src/index.ts';
import type { TestBrowser } from '../../../helpers/browser.ts';

export interface RecordedEvent {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are asserted field by field.
  payload: any;
}

declare global {
  interface Window {
    awp: typeof Sdk;
    events: RecordedEvent[];
    record(client: Sdk.ConversationClient): (() => void)[];
    freshToken(): Promise<{ token: string; expires_at: string }>;
    ready: boolean;
    // biome-ignore lint/suspicious/noExplicitAny: the client under test, kept between evaluations.
    client: any;
    getUserMediaCalls: number;
  }
}

/** Opens the test page of `origin` (at `path`) in a new context with the microphone allowed. */
export async function openTestPage(
  browser: TestBrowser,
  origin: string,
  path = '/',
): Promise<Page> {
  const context = await browser.browser.newContext({ permissions: ['microphone'] });
  const page = await context.newPage();
  // Counts microphone requests: `inputAudioEnabled: false` must never make one.
  await page.addInitScript(() => {
    window.getUserMediaCalls = 0;
    const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = (constraints) => {
      window.getUserMediaCalls++;
      return original(constraints);
    };
  });
  await page.goto(`${origin}${path}`);
  await page.waitForFunction(() => window.ready === true);
  return page;
}
