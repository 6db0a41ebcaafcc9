// The customer backend of the end-to-end test: serves a page built on the client library
// (its browser bundle) and mints Agent session tokens with the workspace key, as a real
// backend would (the key never reaches the page).

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BUNDLE = path.join(ROOT, 'client-sdk/dist/browser/awp-client.js');

// The page: the library on `window.awp`, one client, every event recorded, and levels of
// the remote (agent) and local (microphone) audio read with WebAudio analysers.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>live e2e</title>
<script type="module">
import * as awp from '/awp-client.js';
const config = await (await fetch('/config')).json();
window.events = [];
window.levels = { remote: [], mic: [] };
const meters = [];
function meter(track, into) {
  const context = new AudioContext();
  const source = context.createMediaStreamSource(new MediaStream([track]));
  const analyser = context.createAnalyser();
  analyser.fftSize = 1024;
  source.connect(analyser);
  const buffer = new Float32Array(analyser.fftSize);
  const timer = setInterval(() => {
    analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const v of buffer) sum += v * v;
    into.push({ t: performance.now(), rms: Math.sqrt(sum / buffer.length) });
    if (into.length > 20000) into.splice(0, 5000);
  }, 20);
  meters.push(() => { clearInterval(timer); void context.close(); });
}
const client = new awp.ConversationClient({
  agentId: config.agentId,
  apiOrigin: config.apiOrigin,
  sessionContext: { userName: 'Grace' },
  sessionToken: async () => (await fetch('/token', { method: 'POST' })).json(),
});
for (const name of ['connectionState', 'session', 'transcriptProgress', 'transcript', 'declined',
  'agentSpeaking', 'remoteAudioTrack', 'error']) {
  client.on(name, (payload) => {
    let value = payload;
    if (name === 'remoteAudioTrack') { meter(payload.track, window.levels.remote); value = { kind: payload.track.kind }; }
    if (name === 'error') value = { code: payload.code, message: payload.message };
    window.events.push({ name, payload: value, t: performance.now() });
  });
}
window.client = client;
window.meterMicrophone = () => { window.micTrack = client.microphoneTrack; meter(window.micTrack, window.levels.mic); };
window.stopMeters = () => { for (const stop of meters.splice(0)) stop(); };
window.ready = true;
</script></head><body></body></html>`;

export interface TestBackend {
  origin: string;
  /** Tokens minted for the page. */
  tokensMinted(): number;
  close(): Promise<void>;
}

export interface BackendOptions {
  agentId: string;
  /** Base URL of the api the page talks to (its CORS allowlist must hold this origin). */
  apiOrigin: string;
  /** Mints one Agent session token with the workspace key. */
  mint(): Promise<{ token: string; expires_at: string }>;
}

/**
 * Starts the backend on 127.0.0.1. `options` is read per request: the api's allowlist needs
 * this origin before the api (and so the Agent) exists.
 */
export async function startTestBackend(options: () => BackendOptions): Promise<TestBackend> {
  let minted = 0;
  const server = createServer((req, res) => {
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    void (async () => {
      if (req.method === 'GET' && req.url === '/') return send(200, 'text/html', PAGE);
      if (req.method === 'GET' && req.url === '/awp-client.js') {
        return send(200, 'text/javascript', readFileSync(BUNDLE));
      }
      if (req.method === 'GET' && req.url === '/config') {
        return send(
          200,
          'application/json',
          JSON.stringify({ agentId: options().agentId, apiOrigin: options().apiOrigin }),
        );
      }
      if (req.method === 'POST' && req.url === '/token') {
        minted++;
        return send(200, 'application/json', JSON.stringify(await options().mint()));
      }
      send(404, 'text/plain', 'not found');
    })().catch((error: unknown) => send(500, 'text/plain', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    tokensMinted: () => minted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
