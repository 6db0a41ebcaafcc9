// The local LiveKit of `npm start` (scripts/start.sh on a fresh data folder, ephemeral
// ports) runs with a key pair of its own, created in the data folder (mode 0600) and used
// by the api and the worker; LiveKit's public development pair (devkey/secret) is refused.
// No speech model loads: nothing is spoken here.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RoomServiceClient } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/server.ts';
import { waitFor } from '../../helpers/wait.ts';
import { freePort } from '../../helpers/worker.ts';

describe('the local LiveKit of npm start (scripts/start.sh)', () => {
  let dataDir: string;
  let start: ChildProcess;
  let output = '';
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'awp-lk-keys-'));
    for (const name of [
      'PORT',
      'DEV_PORT',
      'LOCAL_REDIS_PORT',
      'LOCAL_LIVEKIT_PORT',
      'LOCAL_LIVEKIT_RTC_TCP_PORT',
      'LOCAL_LIVEKIT_UDP_PORT',
      'WORKER_HTTP_PORT',
    ]) {
      ports[name] = await freePort();
    }
    start = spawn('bash', ['scripts/start.sh'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        DATA_DIR: dataDir,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        // No model loads: nothing is said or heard in this test.
        LOCAL_LLM: 'false',
        // The starter Agent needs a language model to be published; none is called here.
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_API_KEY: 'sk-unused',
        NATIVE_NEURAL_VOICES: 'false',
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        WORKER_IDLE_PROCESSES: '1',
        AWP_SKIP_SETUP: '1',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    start.stdout?.on('data', collect);
    start.stderr?.on('data', collect);
    await waitFor(
      () => {
        if (start.exitCode !== null) throw new Error(`start.sh exited:\n${output}`);
        return output.includes('worker registered');
      },
      { what: 'the worker to register with the local LiveKit', timeoutMs: 150_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output.slice(-4000)}`);
    });
  }, 240_000);

  afterAll(async () => {
    if (start && start.exitCode === null && start.signalCode === null) {
      const exited = new Promise((resolve) => start.once('exit', resolve));
      process.kill(-(start.pid as number), 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (start.exitCode === null && start.signalCode === null) {
        try {
          process.kill(-(start.pid as number), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('creates a key pair in the data folder, used by LiveKit, the api and the worker', async () => {
    const keyFile = path.join(dataDir, 'livekit', 'keys.yaml');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const match = /^"(\w+)": "([\w-]+)"\n$/.exec(readFileSync(keyFile, 'utf8'));
    expect(match).not.toBeNull();
    const [, apiKey, apiSecret] = match as unknown as [string, string, string];
    expect(apiKey).not.toBe('devkey');
    expect(apiSecret.length).toBeGreaterThanOrEqual(32);

    const livekitUrl = `http://127.0.0.1:${ports.LOCAL_LIVEKIT_PORT}`;
    const own = new RoomServiceClient(livekitUrl, apiKey, apiSecret);
    expect(Array.isArray(await own.listRooms())).toBe(true);
    const publicPair = new RoomServiceClient(livekitUrl, 'devkey', 'secret');
    await expect(publicPair.listRooms()).rejects.toMatchObject({ status: 401 });

    // The api opens rooms with the same pair: the demo page starts a session with the
    // starter Agent (its room is created through LiveKit's server API).
    const dev = `http://127.0.0.1:${ports.DEV_PORT}`;
    // The first start publishes the starter Agent beside the listeners.
    const agentId = await waitFor(
      async () => {
        const listed = (await (await fetch(`${dev}/demo/api/agents`)).json()) as {
          agents?: { id: string }[];
        };
        return listed.agents?.[0]?.id;
      },
      { what: 'the starter Agent on the demo page', timeoutMs: 30_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output.slice(-4000)}`);
    });
    const minted = await fetch(`${dev}/demo/api/session-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agentId }),
    });
    const mintedBody = (await minted.json()) as { token: string };
    expect(minted.status, JSON.stringify(mintedBody)).toBe(201);
    const { token } = mintedBody;
    const started = await fetch(`${dev}/v1/agents/${agentId}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await started.json()) as { room: string };
    expect(started.status, JSON.stringify(body)).toBe(201);
    expect((await own.listRooms([body.room])).map((room) => room.name)).toEqual([body.room]);

    // The next start on this data folder reads the same pair.
    const again = spawnSync(process.execPath, ['scripts/lib/livekit-keys.mjs', keyFile], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(again.stdout).toBe(`${apiKey} ${apiSecret}\n`);
  }, 60_000);
});
