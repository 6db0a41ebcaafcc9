import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../fakes/fishaudio.ts';
import { fakeFishChunks } from '../../fakes/fishaudio-timestamps.ts';
import type { RecordedRequest } from '../../fakes/vendor-server.ts';
import {
  afterAll,
  beforeAll,
  describe,
  describeEachDialect,
  expect,
  it,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  audioOf,
  closeQuietly,
  openStream,
  type ServerEvent,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { decodeDelivered, expectNoInternalNames } from '../../helpers/tts.ts';
import { importVoice } from '../../helpers/upstream.ts';
import { budget } from '../../helpers/wait.ts';

// Each test synthesizes through the fakes in several formats; on a busy machine that takes a while.
vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

/** Provider-side references of the imported voices; none may ever reach a client. */
const EL_V2_VOICE = 'JBFqnCBsd6RMkjVDRZzb';
const EL_V3_VOICE = 'EXAVITQu4vr4xnSDxMaL';
const FISH_VOICE = '802e3bc2b27e49c2995d23ef70e6ac89';
const PROVIDER_SECRETS = [
  EL_V2_VOICE,
  EL_V3_VOICE,
  FISH_VOICE,
  's2-pro',
  'eleven_v3',
  'eleven_multilingual_v2',
];

const EL_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'pcm_48000', 'opus_48000_64'];
const FISH_FORMATS = ['pcm_16000', 'pcm_24000', 'pcm_44100', 'opus_48000_64'];
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the warm sun.';

interface Route {
  label: string;
  voiceId: string;
  fake: () => FakeElevenLabs | FakeFishAudio;
  formats: string[];
  tags: boolean;
  /** What the vendor received as text. */
  sentText: (request: RecordedRequest) => string;
  /** Rate the adapter asked the vendor for when the client wants `format`. */
  vendorRate: (request: RecordedRequest) => number;
}

const elText = (request: RecordedRequest) => (request.body as { text: string }).text;
const elRate = (request: RecordedRequest) => Number(request.query.output_format?.slice(4));
const fishText = (request: RecordedRequest) => (request.body as { text: string }).text;
const fishRate = (request: RecordedRequest) =>
  (request.body as { sample_rate: number }).sample_rate;

/** The rate a vendor should be asked for, given what it offers natively. */
function expectedVendorRate(format: string, offered: number[]): number {
  const rate = format.startsWith('opus') ? 48_000 : Number(format.slice(4));
  if (offered.includes(rate)) return rate;
  return rate <= 24_000 ? 24_000 : 44_100;
}

describeEachDialect('upstream voices on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  const routes: Record<'v2' | 'v3' | 's2', Route> = {
    v2: {
      label: 'multilingual v2',
      voiceId: '',
      fake: () => elevenlabs,
      formats: EL_FORMATS,
      tags: false,
      sentText: elText,
      vendorRate: elRate,
    },
    v3: {
      label: 'v3',
      voiceId: '',
      fake: () => elevenlabs,
      formats: EL_FORMATS,
      tags: true,
      sentText: elText,
      vendorRate: elRate,
    },
    s2: {
      label: 'S2',
      voiceId: '',
      fake: () => fish,
      formats: FISH_FORMATS,
      tags: true,
      sentText: fishText,
      vendorRate: fishRate,
    },
  };
  /** Every body, header and event a client saw, scanned for provider details at the end. */
  const seen: string[] = [];

  const tts = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    seen.push(JSON.stringify([...response.headers]));
    if (!response.headers.get('content-type')?.startsWith('audio/')) {
      seen.push(bytes.toString('utf8'));
    }
    return { response, bytes };
  };

  const stream = async (request: Record<string, unknown>, texts: string[]) => {
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    try {
      const result = await streamRequest(client, request, texts);
      seen.push(
        JSON.stringify(result.events.map((event) => ({ ...event, audio: undefined }))),
        result.reason,
      );
      return result;
    } finally {
      await closeQuietly(client);
    }
  };

  /** Requests the fake of `route` received during `action`. */
  const during = async <T>(route: Route, action: () => Promise<T>) => {
    const before = route.fake().requests.length;
    const result = await action();
    return { result, requests: route.fake().requests.slice(before) };
  };

  beforeAll(
    async ({ databases, apis }) => {
      elevenlabs = await FakeElevenLabs.start({ chunkDelayMs: 1 });
      fish = await FakeFishAudio.start({ chunkDelayMs: 1 });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          ELEVENLABS_API_BASE: elevenlabs.url,
          ELEVENLABS_API_KEY: elevenlabs.apiKey,
          FISHAUDIO_API_BASE: fish.url,
          FISHAUDIO_API_KEY: fish.apiKey,
        },
      });
      const base = { workspaceId: ws.workspaceId };
      routes.v2.voiceId = importVoice(server.env, {
        ...base,
        provider: 'elevenlabs',
        providerVoiceId: EL_V2_VOICE,
        model: 'eleven_multilingual_v2',
        name: 'George',
      });
      routes.v3.voiceId = importVoice(server.env, {
        ...base,
        provider: 'elevenlabs',
        providerVoiceId: EL_V3_VOICE,
        model: 'eleven_v3',
        name: 'Sarah expressive',
      });
      routes.s2.voiceId = importVoice(server.env, {
        ...base,
        provider: 'fishaudio',
        providerVoiceId: FISH_VOICE,
        model: 's2-pro',
        name: 'Narrator',
        nsfw: true,
      });
    },
    budget({ servers: 1, awpRuns: 3 }),
  );

  afterAll(async () => {
    await elevenlabs?.close();
    await fish?.close();
  });

  it('lists imported voices with their formats and capabilities, in their environment only', async () => {
    const list = async (key: string, base: string) => {
      const response = await fetch(`${base}/v1/voices`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const text = await response.text();
      seen.push(text, JSON.stringify([...response.headers]));
      expect(response.status).toBe(200);
      return (JSON.parse(text) as { voices: Record<string, unknown>[] }).voices;
    };
    const voices = await list(ws.productionKey, server.url);
    const byId = new Map(voices.map((voice) => [voice.id, voice]));
    expect(byId.get(routes.v2.voiceId)).toEqual({
      id: routes.v2.voiceId,
      name: 'George',
      output_formats: EL_FORMATS,
      capabilities: ['tts', 'word_alignment', 'char_alignment'],
      nsfw: false,
    });
    expect(byId.get(routes.v3.voiceId)).toEqual({
      id: routes.v3.voiceId,
      name: 'Sarah expressive',
      output_formats: EL_FORMATS,
      capabilities: ['tts', 'voice_tags', 'word_alignment', 'char_alignment'],
      nsfw: false,
    });
    expect(byId.get(routes.s2.voiceId)).toEqual({
      id: routes.s2.voiceId,
      name: 'Narrator',
      output_formats: FISH_FORMATS,
      capabilities: ['tts', 'voice_tags', 'word_alignment'],
      nsfw: true,
    });
    for (const route of Object.values(routes))
      expect(route.voiceId).toMatch(/^voice_[0-9A-Za-z]{20}$/);

    const development = await list(ws.developmentKey, server.devUrl);
    expect(development.map((voice) => voice.id)).not.toContain(routes.v2.voiceId);
  });

  it('refuses a provider voice id as voice_id, and an imported voice from the other environment', async () => {
    for (const voiceId of [EL_V2_VOICE, FISH_VOICE]) {
      const { response, bytes } = await tts({
        text: 'Hi.',
        voice_id: voiceId,
        output_format: 'pcm_24000',
      });
      expect(response.status).toBe(404);
      expect(JSON.parse(bytes.toString()).code).toBe('voice_not_found');
    }
    const response = await fetch(`${server.devUrl}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.developmentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'Hi.',
        voice_id: routes.v2.voiceId,
        output_format: 'pcm_24000',
      }),
    });
    expect(response.status).toBe(404);
  });

  describe.each(['v2', 'v3', 's2'] as const)('%s route', (name) => {
    const route = () => routes[name];

    it('one-shot returns audio in every advertised format, asking the vendor for its native rate', async () => {
      for (const format of route().formats) {
        const { result, requests } = await during(route(), () =>
          tts({ text: SENTENCE, voice_id: route().voiceId, output_format: format }),
        );
        const { response, bytes } = result;
        expect(response.status, `${format}: ${bytes.toString().slice(0, 200)}`).toBe(200);
        expect(response.headers.get('x-audio-format')).toBe(format);
        const decoded = await decodeDelivered(format, bytes);
        expect(decoded.sampleRateHz).toBe(
          format.startsWith('opus') ? 48_000 : Number(format.slice(4)),
        );
        expect(decoded.channels).toBe(1);
        expect(decoded.durationMs).toBeGreaterThan(1500);
        expect(decoded.rms).toBeGreaterThan(0.01);
        expect(requests).toHaveLength(1);
        expect(route().sentText(requests[0]!)).toBe(SENTENCE);
        const offered =
          route().fake() instanceof FakeFishAudio
            ? [16_000, 24_000, 44_100]
            : [16_000, 24_000, 44_100, 48_000];
        expect(route().vendorRate(requests[0]!)).toBe(expectedVendorRate(format, offered));
      }
    });

    it('streaming returns audio in every advertised format', async () => {
      for (const format of route().formats) {
        const { result, requests } = await during(route(), () =>
          stream({ voice_id: route().voiceId, output_format: format }, [
            'The quick brown fox ',
            'jumps over the lazy dog.',
          ]),
        );
        expect(result.code, JSON.stringify(result.events.at(-1))).toBe(1000);
        const audio = result.events.filter((event) => event.event === 'audio');
        expect(audio.length).toBeGreaterThan(0);
        expect(audio.map((event) => event.seq)).toEqual(audio.map((_, i) => i + 1));
        for (const event of audio) expect(event.format).toBe(format);
        expect(result.events.at(-2)).toMatchObject({ event: 'usage', voice_id: route().voiceId });
        expect(result.events.at(-1)).toMatchObject({
          event: 'finish',
          reason: 'stop',
          cost: { currency: 'USD', pass_through: true },
        });
        const decoded = await decodeDelivered(format, audioOf(result.events));
        expect(decoded.durationMs).toBeGreaterThan(1000);
        expect(decoded.rms).toBeGreaterThan(0.01);
        expect(requests.map(route().sentText)).toEqual([
          'The quick brown fox jumps over the lazy dog.',
        ]);
      }
    });
  });

  it('times the words of an S2 voice from Fish’s word segments, streaming and one-shot', async () => {
    const text = 'The quick brown fox, jumps! Then it can’t rest.';
    const words = ['The', 'quick', 'brown', 'fox', 'jumps', 'Then', 'it', 'can’t', 'rest'];
    /** The fake's segments over `samples` of audio at 24 kHz, in ms as the api rounds them. */
    const expected = (samples: number) =>
      fakeFishChunks(text, samples, 24_000)
        .flatMap((chunk) => chunk.segments)
        .map((segment, i) => ({
          text: words[i],
          start_ms: Math.round(segment.startS * 1000),
          end_ms: Math.round(segment.endS * 1000),
        }));
    const streamed = await during(routes.s2, () =>
      stream({ voice_id: routes.s2.voiceId, output_format: 'pcm_24000', alignment: 'word' }, [
        text,
      ]),
    );
    expect(streamed.result.code, JSON.stringify(streamed.result.events.at(-1))).toBe(1000);
    expect(streamed.requests.map((request) => request.path)).toEqual([
      '/v1/tts/stream/with-timestamp',
    ]);
    expect(streamed.requests.map(fishText)).toEqual([text]);
    const audio = streamed.result.events.filter((event) => event.event === 'audio');
    expect(audio.every((event) => Array.isArray(event.timings))).toBe(true);
    const pcm = audioOf(streamed.result.events);
    expect(audio.flatMap((event) => event.timings as unknown[])).toEqual(
      expected(pcm.byteLength / 2),
    );

    const oneShot = await during(routes.s2, () =>
      fetch(`${server.url}/v1/tts/with-timestamps`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ws.productionKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ voice_id: routes.s2.voiceId, text, output_format: 'pcm_24000' }),
      }),
    );
    const body = (await oneShot.result.json()) as Record<string, unknown>;
    seen.push(JSON.stringify({ ...body, audio: undefined }));
    expect(oneShot.result.status, JSON.stringify(body)).toBe(200);
    expect(oneShot.requests.map((request) => request.path)).toEqual([
      '/v1/tts/stream/with-timestamp',
    ]);
    const oneShotPcm = Buffer.from(body.audio as string, 'base64');
    expect(body.alignment).toBe('word');
    expect(body.timings).toEqual(expected(oneShotPcm.byteLength / 2));

    const refused = await fetch(`${server.url}/v1/tts/with-timestamps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: routes.s2.voiceId,
        text,
        output_format: 'pcm_24000',
        alignment: 'char',
      }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('invalid_request');
  });

  it('converts voice tags to inline cues on v3 and S2, one-shot and streaming', async () => {
    for (const name of ['v3', 's2'] as const) {
      const route = routes[name];
      const oneShot = await during(route, () =>
        tts({
          text: 'I cannot believe it worked.',
          voice_id: route.voiceId,
          output_format: 'pcm_24000',
          params: { voice_tags: ['whispering', 'laughing nervously'] },
        }),
      );
      expect(oneShot.result.response.status).toBe(200);
      expect(route.sentText(oneShot.requests[0]!)).toBe(
        '[whispering] [laughing nervously] I cannot believe it worked.',
      );

      const streamed = await during(route, () =>
        stream(
          {
            voice_id: route.voiceId,
            output_format: 'pcm_24000',
            params: { voice_tags: ['sighs'] },
          },
          ['Another long day.'],
        ),
      );
      expect(streamed.result.events.at(-1)?.event).toBe('finish');
      expect(streamed.requests.map(route.sentText)).toEqual(['[sighs] Another long day.']);
    }
  });

  it('keeps inline bracketed cues on tag routes and removes them on multilingual v2', async () => {
    const text = 'Well [sighs] that was close.';
    const v3 = await during(routes.v3, () =>
      tts({ text, voice_id: routes.v3.voiceId, output_format: 'pcm_16000' }),
    );
    expect(routes.v3.sentText(v3.requests[0]!)).toBe(text);

    const v2 = await during(routes.v2, () =>
      tts({
        text,
        voice_id: routes.v2.voiceId,
        output_format: 'pcm_16000',
        params: { voice_tags: ['whispering'] },
      }),
    );
    expect(v2.result.response.status).toBe(200);
    expect(routes.v2.sentText(v2.requests[0]!)).toBe('Well that was close.');

    const streamed = await during(routes.v2, () =>
      stream(
        {
          voice_id: routes.v2.voiceId,
          output_format: 'pcm_16000',
          params: { voice_tags: ['curious'] },
        },
        ['[laughs] Is it ', 'really you?'],
      ),
    );
    expect(streamed.result.events.at(-1)?.event).toBe('finish');
    expect(streamed.requests.map(routes.v2.sentText)).toEqual(['Is it really you?']);
  });

  it('removes markup characters from tag values and refuses square brackets', async () => {
    const cleaned = await during(routes.v3, () =>
      tts({
        text: 'Listen.',
        voice_id: routes.v3.voiceId,
        output_format: 'pcm_24000',
        params: { voice_tags: ['calm (then) <break/> {shouting}'] },
      }),
    );
    expect(cleaned.result.response.status).toBe(200);
    expect(routes.v3.sentText(cleaned.requests[0]!)).toBe('[calm then break/ shouting] Listen.');

    const refused = await during(routes.v3, () =>
      tts({
        text: 'Listen.',
        voice_id: routes.v3.voiceId,
        output_format: 'pcm_24000',
        params: { voice_tags: ['calm] [shouting'] },
      }),
    );
    expect(refused.result.response.status).toBe(400);
    expect(JSON.parse(refused.result.bytes.toString()).code).toBe('invalid_request');
    expect(refused.requests).toHaveLength(0);
  });

  it('synthesizes tag-only requests on v3 and S2 and refuses them on multilingual v2', async () => {
    for (const name of ['v3', 's2'] as const) {
      const route = routes[name];
      const oneShot = await during(route, () =>
        tts({
          text: '',
          voice_id: route.voiceId,
          output_format: 'pcm_24000',
          params: { voice_tags: ['laughing'] },
        }),
      );
      expect(oneShot.result.response.status).toBe(200);
      expect(oneShot.result.bytes.byteLength).toBeGreaterThan(0);
      expect(oneShot.requests.map(route.sentText)).toEqual(['[laughing]']);

      const streamed = await during(route, () =>
        stream(
          {
            voice_id: route.voiceId,
            output_format: 'opus_48000_64',
            params: { voice_tags: ['gasping'] },
          },
          [],
        ),
      );
      expect(streamed.result.code).toBe(1000);
      expect(streamed.result.events.at(-1)?.event).toBe('finish');
      expect(streamed.result.events.some((event) => event.event === 'audio')).toBe(true);
      expect(streamed.requests.map(route.sentText)).toEqual(['[gasping]']);
    }

    const oneShot = await during(routes.v2, () =>
      tts({
        text: '',
        voice_id: routes.v2.voiceId,
        output_format: 'pcm_24000',
        params: { voice_tags: ['laughing'] },
      }),
    );
    expect(oneShot.result.response.status).toBe(400);
    expect(JSON.parse(oneShot.result.bytes.toString()).code).toBe('invalid_request');
    const streamed = await during(routes.v2, () =>
      stream(
        {
          voice_id: routes.v2.voiceId,
          output_format: 'pcm_24000',
          params: { voice_tags: ['laughing'] },
        },
        [],
      ),
    );
    const error = streamed.result.events.at(-1) as ServerEvent;
    expect(error).toMatchObject({ event: 'error', code: 'invalid_request', retryable: false });
    expect(oneShot.requests).toHaveLength(0);
    expect(streamed.requests).toHaveLength(0);
  });

  it('splits v3 text over its per-request limit on sentence boundaries into one stream', async () => {
    const sentence = 'This sentence is part of a very long passage read in one go. ';
    const text = sentence.repeat(Math.ceil(5600 / sentence.length)).trim();
    const { result, requests } = await during(routes.v3, () =>
      tts({ text, voice_id: routes.v3.voiceId, output_format: 'pcm_16000' }),
    );
    expect(result.response.status).toBe(200);
    expect(requests.length).toBe(2);
    for (const request of requests) {
      const part = routes.v3.sentText(request);
      expect([...part].length).toBeLessThanOrEqual(5000);
      expect(part.endsWith('go.')).toBe(true);
    }
    expect(requests.map(routes.v3.sentText).join(' ')).toBe(text);
  });

  it('never shows a provider, model or provider voice id to a client', () => {
    const everything = seen.join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    expect(expectNoInternalNames(everything)).toEqual([]);
    for (const secret of PROVIDER_SECRETS) {
      expect(everything.includes(secret), secret).toBe(false);
    }
    expect(everything).not.toMatch(/fish|eleven|s2-pro|multilingual/i);
  });
});
