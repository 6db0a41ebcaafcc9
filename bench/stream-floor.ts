/**
 * The floor of serving one realtime utterance: a bare uWebSockets.js server (the api's own
 * uWS build) that speaks the shape of the streaming protocol with canned audio — the
 * WebSocket upgrade, the JSON control frames, one `audio` event of base64 PCM per piece,
 * `usage`, `finish` and the close — and nothing else: no credentials, ledger, limits,
 * engine or persistence. The same realtime load as `npm run bench`'s rows runs against it,
 * and its process CPU per utterance is what the wire alone costs on this machine.
 *
 *   node --import tsx bench/stream-floor.ts [streams=400] [seconds=20] [events per utterance=20]
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { uws } from '../src/http/uws/native.ts';
import { quantile } from './lib/stats.ts';
import { realtimeLoad } from './lib/streaming.ts';
import { UTTERANCES } from './lib/texts.ts';

const PORT = 9911;
/** `pcm_24000` bytes per character: 4.63 s of audio for a 78-character utterance, as the engine makes. */
const BYTES_PER_CHAR = Math.round((4.63 * 48_000) / 78);

function serve(eventsPerUtterance: number): void {
  const noise = randomBytes(64 * 1024);
  const app = uws.App();
  app.ws<{ text: string; id: string }>('/v1/tts/stream', {
    compression: uws.DISABLED,
    maxPayloadLength: 1024 * 1024,
    maxBackpressure: 16 * 1024 * 1024,
    idleTimeout: 120,
    upgrade: (res, req, context) => {
      res.upgrade(
        { text: '', id: randomUUID() },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    message: (ws, message) => {
      const event = JSON.parse(Buffer.from(message).toString()) as { event: string; text?: string };
      const data = ws.getUserData();
      if (event.event === 'text') data.text += event.text;
      if (event.event !== 'stop') return;
      let left = data.text.length * BYTES_PER_CHAR;
      left -= left % 2;
      const piece = Math.ceil(left / eventsPerUtterance / 2) * 2;
      const head = `{"event":"audio","request_id":"${data.id}","seq":`;
      let seq = 0;
      const next = () => {
        if (left <= 0) {
          ws.cork(() => {
            ws.send(JSON.stringify({ event: 'usage', request_id: data.id, usage: {} }));
            ws.send(JSON.stringify({ event: 'finish', request_id: data.id, reason: 'stop' }));
            ws.end(1000, 'finish');
          });
          return;
        }
        const bytes = Math.min(piece, left);
        left -= bytes;
        seq += 1;
        const offset = (seq * 997) % (noise.length - bytes);
        const audio = noise.subarray(offset, offset + bytes).toString('base64');
        const text = `${head}${seq},"audio":"${audio}","format":"pcm_24000"}`;
        ws.cork(() => ws.send(text, false, false));
        // One event per turn of the event loop, as audio arrives from an engine.
        setImmediate(next);
      };
      next();
    },
  });
  app.listen('127.0.0.1', PORT, (socket) => {
    if (!socket) process.exit(1);
    process.stdout.write('ready\n');
  });
}

async function measure(streams: number, seconds: number, events: number): Promise<void> {
  const server = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--serve', String(events)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve) => server.stdout.once('data', resolve));
  const target = {
    url: `http://127.0.0.1:${PORT}`,
    key: 'k',
    voiceId: 'v',
    format: 'pcm_24000' as const,
  };
  const result = await realtimeLoad(target, server.pid as number, streams, seconds, UTTERANCES);
  server.kill();
  console.log(
    JSON.stringify({
      streams,
      events_per_utterance: events,
      utterances: result.utterances,
      errors: result.errors,
      underruns: result.underruns,
      stop_to_first_audio_p99_ms: Number(quantile(result.ttfaMs, 0.99).toFixed(1)),
      cpu_ms_per_utterance: Number(((result.serverCpuS * 1000) / result.utterances).toFixed(3)),
      cpu_ms_per_audio_s: Number(((result.serverCpuS * 1000) / result.audioS).toFixed(3)),
    }),
  );
}

if (process.argv[2] === '--serve') serve(Number(process.argv[3] ?? 20));
else {
  const [streams = 400, seconds = 20, events = 20] = process.argv.slice(2).map(Number);
  await measure(streams, seconds, events);
}
