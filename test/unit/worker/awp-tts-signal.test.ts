import type { AddressInfo } from 'node:net';
import { initializeLogger } from '@livekit/agents';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { AwpTts } from '../../../worker/models/awp-tts.ts';
import { waitFor } from '../../helpers/wait.ts';

// The agent's speech when a reply is interrupted: what reaches the api's stream endpoint
// (here a WebSocket server that counts connections and never answers).
describe('AwpTts when a reply is interrupted', () => {
  let server: WebSocketServer;
  let connections = 0;
  let streamUrl = '';
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    initializeLogger({ pretty: false, level: 'fatal' });
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise((resolve) => server.once('listening', resolve));
    streamUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/tts/stream`;
  });
  afterAll(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => {
    process.off('warning', onWarning);
    connections = 0;
    warnings.length = 0;
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('opens no stream for a sentence interrupted while its token was being fetched', async () => {
    let giveToken: (token: string) => void = () => {};
    const token = new Promise<string>((resolve) => {
      giveToken = resolve;
    });
    let asked = 0;
    const tts = new AwpTts({
      streamUrl,
      token: () => {
        asked += 1;
        return token;
      },
      voiceId: 'v',
      partnerSessionId: 's',
    });
    const reply = new AbortController();
    const streams = ['One.', 'Two.', 'Three.'].map((text) =>
      tts.synthesize(text, undefined, reply.signal),
    );
    // Every sentence is waiting for its token when the reply is interrupted.
    await waitFor(() => asked === 3, { what: 'the three sentences to ask for a token' });
    reply.abort();
    giveToken('token');
    await settle();
    expect(connections).toBe(0);
    for (const stream of streams) stream.close();
  });

  it('lets one reply signal hold a stream per sentence without a MaxListenersExceededWarning', async () => {
    process.on('warning', onWarning);
    const tts = new AwpTts({
      streamUrl,
      token: async () => 'token',
      voiceId: 'v',
      partnerSessionId: 's',
    });
    const reply = new AbortController();
    const streams = Array.from({ length: 40 }, (_, i) =>
      tts.synthesize(`Sentence ${i + 1}.`, undefined, reply.signal),
    );
    reply.abort();
    await settle();
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(connections).toBe(0);
    for (const stream of streams) stream.close();
  });
});
