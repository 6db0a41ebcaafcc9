import { pino } from 'pino';
import { expect } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { ApiError } from '../../src/errors.ts';
import { openVoiceCloning, startVoiceCloningWorker } from '../../src/jobs/voice-cloning.ts';
import type { VoiceCloning } from '../../src/voices/cloning/service.ts';
import type { SampleInput, VoiceDetails } from '../../src/voices/cloning/types.ts';
import { FakeElevenLabs } from '../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../fakes/fishaudio.ts';
import { afterAll, afterEach, beforeAll } from '../fixtures/index.ts';
import type { TestDatabase, TestDialect } from './database.ts';
import { type SeededWorkspace, seedWorkspace } from './seed.ts';
import { serviceEnv } from './server.ts';
import { speechSample } from './voice-samples.ts';
import { waitFor } from './wait.ts';

export const ENV = 'production' as const;

/** What a cloning test works with; filled in by the hooks of {@link useCloningFixture}. */
export interface CloningFixture {
  database: TestDatabase;
  handle: DatabaseHandle;
  ws: SeededWorkspace;
  other: SeededWorkspace;
  elevenlabs: FakeElevenLabs;
  fish: FakeFishAudio;
  cloning: VoiceCloning;
  first: SampleInput;
  second: SampleInput;
}

/**
 * Registers hooks that give the suite the file's database of `dialect` (the database
 * fixture; the suite is a `describeEachDialect` one), two workspaces, the
 * vendor fakes (synthesis only on voices they hold), the cloning service and its BullMQ
 * worker in this process on the real Redis, and two spoken recordings.
 */
export function useCloningFixture(dialect: TestDialect): CloningFixture {
  const fx = {} as CloningFixture;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async ({ databases }) => {
    ({ database: fx.database, handle: fx.handle } = await databases.get(dialect));
    fx.ws = await seedWorkspace(fx.handle);
    fx.other = await seedWorkspace(fx.handle);
    fx.elevenlabs = await FakeElevenLabs.start({ knownVoicesOnly: true });
    fx.fish = await FakeFishAudio.start({ knownVoicesOnly: true });
    const config = loadConfig(
      serviceEnv(fx.database, {
        ELEVENLABS_API_BASE: fx.elevenlabs.url,
        ELEVENLABS_API_KEY: fx.elevenlabs.apiKey,
        FISHAUDIO_API_BASE: fx.fish.url,
        FISHAUDIO_API_KEY: fx.fish.apiKey,
        CLONE_JOB_ATTEMPTS: '3',
        CLONE_JOB_BACKOFF_MS: '100',
      }),
    );
    const logger = pino({ level: 'silent' });
    const opened = openVoiceCloning({ config, db: fx.handle.db, logger });
    const worker = startVoiceCloningWorker({ config, db: fx.handle.db, logger });
    fx.cloning = opened.cloning;
    close = async () => {
      await worker.close();
      await opened.close();
    };
    fx.first = await speechSample('Hello there, this is my voice for the cloning test.', 'm3');
    fx.second = await speechSample('A second recording, added after the voice was cloned.', 'm3');
  });
  afterEach(() => {
    // A failed test must not leave answers held for the next one.
    fx.elevenlabs?.releaseResponses();
    fx.fish?.releaseResponses();
  });
  afterAll(async () => {
    await close?.();
    await fx.elevenlabs?.close();
    await fx.fish?.close();
  });
  return fx;
}

/** The voice's details in the fixture's workspace. */
export function details(fx: CloningFixture, voiceId: string): Promise<VoiceDetails> {
  return fx.cloning.details(fx.ws.workspaceId, ENV, voiceId);
}

/** The voice's route on `provider`. */
export function routeOf(d: VoiceDetails, provider: string) {
  const route = d.voice.routes.find((r) => r.provider === provider);
  if (!route) throw new Error(`no ${provider} route`);
  return route;
}

/** Waits until no route of the voice is Cloning. */
export function settled(fx: CloningFixture, voiceId: string, what: string): Promise<VoiceDetails> {
  return waitFor(
    async () => {
      const d = await details(fx, voiceId);
      return d.voice.routes.every((r) => r.state !== 'cloning') && d;
    },
    { what },
  );
}

/** Creates a voice from the first recording and clones it to `providers`. */
export function createVoice(
  fx: CloningFixture,
  providers: ('elevenlabs' | 'fishaudio' | 'native')[],
  name = 'Narrator',
): Promise<VoiceDetails> {
  return fx.cloning.createAndClone({
    workspaceId: fx.ws.workspaceId,
    environment: ENV,
    name,
    samples: [fx.first],
    permissionConfirmed: true,
    targets: providers.map((provider) => ({ provider })),
    actor: 'owner@example.com',
  });
}

/** Awaits `promise` and asserts it failed with the API error `code`. */
export async function expectApiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return error as ApiError;
}
