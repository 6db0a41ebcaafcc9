import { readdirSync, readFileSync } from 'node:fs';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { startServer } from '../../helpers/server.ts';
import { openStream, streamUrl } from '../../helpers/stream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!.id;
/** A few seconds of speech: espeak-ng is done with it long before a client reads it all. */
const SHORT = 'The quick brown fox jumps over the lazy dog. It runs away and does not come back.';
const LONG = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} keeps the engine busy for a while longer than usual.`,
).join(' ');
/** Far above a clean shutdown on a loaded machine; the defect it guards against never ends. */
const EXIT_DEADLINE_MS = 20_000;

/** Audio connections the api accepted from its launcher (its listening socket excluded). */
function launcherConnections(apiPid: number): number {
  const entries = readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .filter((line) => line.includes(`@awp-engine-launcher-${apiPid}-`)).length;
  return Math.max(0, entries - 1);
}

/** espeak-ng processes running under the api's launcher. */
function launchedEngines(apiPid: number): number {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        return [{ pid: Number(name), ppid: Number(fields[1]), state: fields[0], comm }];
      } catch {
        return [];
      }
    });
  const launchers = new Set(all.filter((p) => p.ppid === apiPid).map((p) => p.pid));
  return all.filter((p) => launchers.has(p.ppid) && p.comm === 'espeak-ng' && p.state !== 'Z')
    .length;
}

/**
 * The api with the engine launcher (the default) must exit by itself on SIGTERM after
 * native-voice load that includes clients leaving mid-audio (issue 16: the launcher's
 * audio connections of engines nobody read any more kept its socket server from closing).
 * The launcher and its connections do not depend on the database: SQLite only.
 */
describe('api shutdown after native-voice load with the engine launcher', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get('sqlite'));
  });

  it(
    'exits with code 0 on SIGTERM after one-shots and streams cut mid-audio',
    async () => {
      const ws = await seedWorkspace(handle, { credits: 10_000_000 });
      const server = await startServer({
        database,
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: '0',
          STREAM_MAX_CONCURRENT_PER_WORKSPACE: '0',
          // Shutdown steps are logged at debug: a hang names its step in the failure.
          LOG_LEVEL: 'debug',
        },
      });
      const headers = {
        authorization: `Bearer ${ws.productionKey}`,
        'content-type': 'application/json',
      };
      const oneShot = (text: string, format = 'pcm_24000', signal?: AbortSignal) =>
        fetch(`${server.url}/v1/tts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ voice_id: VOICE, text, output_format: format }),
          ...(signal ? { signal } : {}),
        });

      // Complete one-shots.
      const complete = await Promise.all([SHORT, SHORT, LONG].map((text) => oneShot(text)));
      for (const response of complete) {
        expect(response.status).toBe(200);
        expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(48_000);
      }

      // One-shots whose client reads the first audio, stops reading, then hangs up.
      const cutOneShots = await Promise.all(
        [SHORT, SHORT, LONG, LONG].map(async (text) => {
          const response = await oneShot(text);
          expect(response.status).toBe(200);
          const reader = (response.body as ReadableStream<Uint8Array>).getReader();
          const first = await reader.read();
          expect(first.done).toBe(false);
          return reader;
        }),
      );
      for (const reader of cutOneShots) await reader.cancel();

      // One-shots whose client gives up at some point of the first 300 ms, as impatient
      // clients do: some before their engine started, many while its audio is being read.
      let given = 0;
      await Promise.all(
        [0, 1, 2].map(async (lane) => {
          for (let i = lane; i < 36; i += 3) {
            const controller = new AbortController();
            const timer = setTimeout(() => controller.abort(), (i * 300) / 36);
            const format = i % 2 === 0 ? 'opus_48000_64' : 'pcm_24000';
            try {
              const response = await oneShot(SHORT, format, controller.signal);
              await response.arrayBuffer();
            } catch (error) {
              expect((error as Error).name).toBe('AbortError');
              given += 1;
            } finally {
              clearTimeout(timer);
            }
          }
        }),
      );
      expect(given).toBeGreaterThan(0);

      // Streams whose client drops the connection once audio arrived.
      const streams = await Promise.all(
        [SHORT, LONG, SHORT, LONG].map(async (text) => {
          const client = await openStream(streamUrl(server.url), {
            authorization: `Bearer ${ws.productionKey}`,
          });
          client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
          client.send({ event: 'text', text });
          client.send({ event: 'flush' });
          await client.waitFor((event) => event.event === 'audio');
          return client;
        }),
      );
      for (const client of streams) client.socket.terminate();

      // The cut requests are over for the api too (their ledger rows closed) before it stops.
      await waitFor(
        async () => {
          const open = await handle.db
            .selectFrom('synthesis_requests')
            .select('request_id')
            .where('workspace_id', '=', ws.workspaceId)
            .where('status', '=', 'started')
            .execute();
          return open.length === 0;
        },
        { what: 'every ledger row to close' },
      );

      const pid = server.process.pid as number;
      // Every audio connection left belongs to a running engine (the warm spares): none is
      // held by a request that is over. Asserted after the shutdown, which is the point.
      let held = '';
      const settled = await waitFor(
        () => {
          const connections = launcherConnections(pid);
          const engines = launchedEngines(pid);
          held = `${connections} audio connections for ${engines} running engines`;
          return connections <= engines;
        },
        { what: 'no audio connection without a running engine', timeoutMs: 15_000 },
      ).then(
        () => true,
        () => false,
      );
      process.kill(pid, 'SIGTERM');
      const exit = await waitFor(
        () =>
          server.process.exitCode !== null || server.process.signalCode !== null
            ? { code: server.process.exitCode, signal: server.process.signalCode }
            : undefined,
        { what: 'the api to exit after SIGTERM', timeoutMs: EXIT_DEADLINE_MS },
      ).catch(async (error: unknown) => {
        await server.kill();
        const steps = server
          .logs()
          .filter((line) => line.msg === 'closing' || line.msg === 'shutting down');
        throw new Error(
          `the api did not exit within ${EXIT_DEADLINE_MS} ms of SIGTERM; last shutdown step: ${JSON.stringify(steps.at(-1))}`,
          { cause: error },
        );
      });
      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.logs().some((line) => line.msg === 'stopped')).toBe(true);
      expect(settled, held).toBe(true);
    },
    budget({ servers: 1, extraMs: 60_000 + EXIT_DEADLINE_MS }),
  );
});
