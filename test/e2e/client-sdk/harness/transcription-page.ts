// The web app of the transcription tests: a page that loads the client SDK's built browser
// bundle (or the transcription-only one), and its backend, which mints realtime
// transcription tokens with the server library and the workspace key, as the client SDK's
// README shows. Extra pages and files (the React app, a WAV) are served as given.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { AwpClient } from '../../../../backend-sdk/src/index.ts';
import type * as Sdk from '../../../../client-sdk/src/index.ts';
import type { TestBrowser } from '../../../helpers/browser.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BUNDLES: Record<string, string> = {
  '/awp-client.js': path.join(ROOT, 'client-sdk/dist/browser/awp-client.js'),
  '/awp-transcription.js': path.join(ROOT, 'client-sdk/dist/browser/awp-transcription.js'),
};

export type { RecordedEvent } from './page.ts';

// `awp`, `events`, `ready` and `client` are declared with the conversation tests' page.
declare global {
  interface Window {
    recordTranscription(client: Sdk.TranscriptionClient): void;
    /** A fresh token from the page's backend (`workspace`: which workspace's key mints it). */
    mintToken(
      workspace?: string,
    ): Promise<{ token: string; expires_at: string; websocket_url: string }>;
    /** Every track `getUserMedia` opened on this page. */
    openedTracks: MediaStreamTrack[];
  }
}

/** The test page: the SDK on `window.awp`, every event of a client recorded in order. */
function page(bundle: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>transcription test</title>
<script type="module">
import * as awp from '${bundle}';
window.awp = awp;
window.events = [];
window.recordTranscription = (client) => {
  for (const name of ['connectionState', 'started', 'transcript', 'finish', 'error']) {
    client.on(name, (payload) => {
      let value = payload;
      if (name === 'error') {
        value = { name: payload.name, code: payload.code, message: payload.message,
          retryable: payload.retryable, sessionId: payload.sessionId,
          isError: payload instanceof awp.TranscriptionError };
      }
      window.events.push({ name, payload: value });
    });
  }
};
window.mintToken = async (workspace = 'main') =>
  (await fetch('/token?workspace=' + workspace, { method: 'POST' })).json();
window.ready = true;
</script></head><body></body></html>`;
}

export interface PageFile {
  type: string;
  body: string | Buffer;
}

export interface TranscriptionApp {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** Tokens minted so far, per workspace name. */
  minted: Record<string, number>;
  close(): Promise<void>;
}

/**
 * Starts the app on 127.0.0.1: `/` (full bundle) and `/small` (transcription-only bundle),
 * `POST /token?workspace=NAME` minting with that workspace's key, and `files`.
 */
export async function startTranscriptionApp(
  apiUrl: string,
  keys: Record<string, string>,
  files: Record<string, PageFile> = {},
): Promise<TranscriptionApp> {
  const clients = Object.fromEntries(
    Object.entries(keys).map(([name, apiKey]) => [
      name,
      new AwpClient({ apiKey, baseUrl: apiUrl, maxAttempts: 1 }),
    ]),
  );
  const minted: Record<string, number> = {};
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://app');
      const send = (status: number, type: string, body: string | Buffer) => {
        res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      };
      if (req.method === 'GET' && url.pathname === '/') {
        return send(200, 'text/html', page('/awp-client.js'));
      }
      if (req.method === 'GET' && url.pathname === '/small') {
        return send(200, 'text/html', page('/awp-transcription.js'));
      }
      const bundle = req.method === 'GET' ? BUNDLES[url.pathname] : undefined;
      if (bundle) return send(200, 'text/javascript', readFileSync(bundle));
      const file = req.method === 'GET' ? files[url.pathname] : undefined;
      if (file) return send(200, file.type, file.body);
      if (req.method === 'POST' && url.pathname === '/token') {
        // Your backend: check your own user and limits first, then mint one token per call.
        const name = url.searchParams.get('workspace') ?? 'main';
        const client = clients[name];
        if (!client) return send(404, 'text/plain', 'unknown workspace');
        const token = await client.transcription.createToken();
        minted[name] = (minted[name] ?? 0) + 1;
        return send(200, 'application/json', JSON.stringify(token));
      }
      send(404, 'text/plain', 'not found');
    })().catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    minted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Opens `url` (a page of the app) in a new context with the microphone allowed. */
export async function openTranscriptionPage(browser: TestBrowser, url: string): Promise<Page> {
  const context = await browser.browser.newContext({ permissions: ['microphone'] });
  const opened = await context.newPage();
  await opened.addInitScript(() => {
    window.openedTracks = [];
    const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints) => {
      const stream = await original(constraints);
      window.openedTracks.push(...stream.getTracks());
      return stream;
    };
  });
  await opened.goto(url);
  await opened.waitForFunction(() => window.ready === true);
  return opened;
}
