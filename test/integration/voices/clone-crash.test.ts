import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { VoiceDetails } from '../../../src/voices/cloning/types.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { ROOT, type RunningServer, serviceEnv, startServer } from '../../helpers/server.ts';
import {
  audioOf,
  closeQuietly,
  openStream,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { speechSample } from '../../helpers/voice-samples.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

/** The operator tool without blocking this process (the vendor fake lives here). */
async function awp(env: Record<string, string>, args: string[]) {
  const { code, stdout, stderr } = await awpRun(env, args);
  if (code !== 0)
    throw new Error(`awp ${args.slice(0, 3).join(' ')} exited ${code}: ${stdout}${stderr}`);
  return JSON.parse(stdout) as VoiceDetails & { id: string };
}

async function awpRun(env: Record<string, string>, args: string[]) {
  const child = spawn(process.execPath, ['bin/awp.js', ...args, '--json'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** A jobs process on the compiled build; resolves once its workers run. */
async function startJobs(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/src/jobs/main.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  await waitFor(() => output.includes('job workers running'), {
    what: 'the jobs process to start',
    timeoutMs: 60_000,
  });
  return { child, output: () => output };
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

describeEachDialect('a cloned voice end to end on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabs;
  let env: Record<string, string>;
  let jobs: ChildProcess | undefined;
  let server: RunningServer | undefined;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    elevenlabs = await FakeElevenLabs.start({ knownVoicesOnly: true });
    env = serviceEnv(database, {
      ELEVENLABS_API_BASE: elevenlabs.url,
      ELEVENLABS_API_KEY: elevenlabs.apiKey,
      RUN_JOBS_IN_PROCESS: 'false',
      // A killed jobs process's job is picked up again after about this long.
      CLONE_JOB_LOCK_MS: '2000',
      CLONE_JOB_BACKOFF_MS: '200',
    });
  });

  afterAll(async () => {
    await kill(jobs);
    await server?.stop();
    await elevenlabs?.close();
  });

  it('completes a clone once after the jobs process is killed mid-clone, then synthesizes it on both paths', {
    timeout: budget({ servers: 3, awpRuns: 4, extraMs: 60_000 }),
  }, async () => {
    const sample = await speechSample('My voice, recorded with permission for this test.', 'f3');
    const file = join(database.dataDir, 'recording.wav');
    await writeFile(file, sample.audio);
    const cloneArgs = [
      'voice',
      'clone',
      '--workspace',
      ws.workspaceId,
      '--environment',
      'production',
      '--name',
      'Crash survivor',
      '--sample',
      file,
      '--transcript',
      sample.transcript,
      '--provider',
      'elevenlabs',
      '--provider',
      'native',
    ];
    // Without the speaker's permission confirmed nothing is created.
    const refused = await awpRun(env, cloneArgs);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'invalid_request' } });
    expect(await handle.db.selectFrom('voices').select('id').execute()).toEqual([]);

    jobs = (await startJobs(env)).child;
    elevenlabs.holdResponses();
    const submitted = await awp(env, [...cloneArgs, '--confirm-permission']);
    const voiceId = submitted.id;
    expect(submitted.voice.routes.map((r) => [r.provider, r.state])).toEqual([
      ['elevenlabs', 'cloning'],
      ['native', 'cloning'],
    ]);

    // The vendor made the voice, but its answer never reaches the process: it dies now.
    await waitFor(() => elevenlabs.library.created === 1, {
      what: 'the vendor to create the voice',
    });
    await kill(jobs);
    elevenlabs.releaseResponses();
    const attempt = await handle.db
      .selectFrom('voice_clone_attempts')
      .selectAll()
      .where('voice_id', '=', voiceId)
      .where('provider', '=', 'elevenlabs')
      .executeTakeFirstOrThrow();
    expect(attempt.state).toBe('running');
    expect(attempt.vendor_request_at).not.toBeNull();

    jobs = (await startJobs(env)).child;
    const ready = await waitFor(
      async () => {
        const listed = await awp(env, [
          'voice',
          'route',
          'list',
          '--workspace',
          ws.workspaceId,
          '--environment',
          'production',
          '--voice',
          voiceId,
        ]);
        return listed.voice.routes.every((r) => r.state === 'ready') && listed;
      },
      {
        what: 'the restarted jobs process to finish the clone',
        timeoutMs: 90_000,
        intervalMs: 500,
      },
    );
    // Once: the fake saw one voice created, and the route uses it.
    expect(elevenlabs.library.created).toBe(1);
    const [created] = [...elevenlabs.library.voices.keys()];
    const elevenRoute = ready.voice.routes.find((r) => r.provider === 'elevenlabs');
    expect(elevenRoute?.providerVoiceId).toBe(created);
    expect(elevenlabs.requests.filter((r) => r.path === '/v1/voices/add')).toHaveLength(1);
    expect(elevenlabs.requests.some((r) => r.path === '/v2/voices')).toBe(true);
    expect(ready.history.map((a) => [a.provider, a.state])).toEqual([
      ['elevenlabs', 'succeeded'],
      ['native', 'succeeded'],
    ]);

    server = await startServer({ database, env: { ...env } });
    const auth = { authorization: `Bearer ${ws.productionKey}` };
    const listed = (await (await fetch(`${server.url}/v1/voices`, { headers: auth })).json()) as {
      voices: { id: string; output_formats: string[]; capabilities: string[] }[];
    };
    // The ElevenLabs route is the default: the voice offers what it delivers (the native
    // route backs it up for the formats it shares).
    expect(listed.voices.find((v) => v.id === voiceId)).toEqual({
      id: voiceId,
      name: 'Crash survivor',
      output_formats: ['pcm_16000', 'pcm_24000', 'pcm_44100', 'pcm_48000', 'opus_48000_64'],
      capabilities: ['tts', 'word_alignment', 'char_alignment'],
      nsfw: false,
    });

    const ttsPath = `/v1/text-to-speech/${created}/stream`;
    const oneShot = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: voiceId,
        text: 'Hello from my clone.',
        output_format: 'pcm_24000',
      }),
    });
    expect(oneShot.status).toBe(200);
    expect(oneShot.headers.get('x-audio-format')).toBe('pcm_24000');
    expect((await oneShot.arrayBuffer()).byteLength).toBeGreaterThan(24_000);
    expect(elevenlabs.requests.filter((r) => r.path === ttsPath && r.status === 200)).toHaveLength(
      1,
    );

    const client = await openStream(streamUrl(server.url), auth);
    try {
      const { events } = await streamRequest(
        client,
        { voice_id: voiceId, output_format: 'pcm_24000' },
        ['Streaming from the cloned voice.'],
      );
      expect(events.at(-1)).toMatchObject({ event: 'finish' });
      expect(audioOf(events).byteLength).toBeGreaterThan(24_000);
    } finally {
      await closeQuietly(client);
    }
    expect(elevenlabs.requests.filter((r) => r.path === ttsPath && r.status === 200)).toHaveLength(
      2,
    );

    // The default moves to the native route: same voice id, served by espeak-ng now.
    const nativeRoute = ready.voice.routes.find((r) => r.provider === 'native');
    await awp(env, [
      'voice',
      'route',
      'default',
      '--workspace',
      ws.workspaceId,
      '--environment',
      'production',
      '--voice',
      voiceId,
      '--route',
      nativeRoute?.id ?? '',
    ]);
    await awp(env, [
      'voice',
      'route',
      'disable',
      '--workspace',
      ws.workspaceId,
      '--environment',
      'production',
      '--voice',
      voiceId,
      '--route',
      elevenRoute?.id ?? '',
    ]);
    const vendorCalls = elevenlabs.requests.length;
    const native = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: voiceId,
        text: 'Now from the native model.',
        output_format: 'pcm_24000',
      }),
    });
    expect(native.status).toBe(200);
    expect((await native.arrayBuffer()).byteLength).toBeGreaterThan(24_000);
    expect(elevenlabs.requests.length).toBe(vendorCalls);
    const relisted = (await (await fetch(`${server.url}/v1/voices`, { headers: auth })).json()) as {
      voices: { id: string; output_formats: string[] }[];
    };
    expect(relisted.voices.find((v) => v.id === voiceId)?.output_formats).toEqual([
      'pcm_24000',
      'pcm_44100',
      'pcm_48000',
      'aac_44100_128',
      'opus_48000_64',
    ]);
  });
});
