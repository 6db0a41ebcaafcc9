import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../../src/app/config.ts';
import { vendorPricing } from '../../../src/app/synthesis.ts';
import { MILLICREDITS_PER_CREDIT } from '../../../src/billing/pricing.ts';
import type { VoiceRouteProvider } from '../../../src/db/schema.ts';
import { VoiceClonerRegistry } from '../../../src/tts/providers/cloning/registry.ts';
import {
  UPSTREAM_PROVIDERS,
  UpstreamProviderRegistry,
} from '../../../src/tts/providers/upstream-registry.ts';
import type { ConfiguredVendor } from '../../../src/tts/providers/vendor-descriptor.ts';
import {
  configureVendors,
  VENDOR_KINDS,
  VENDORS,
  vendorConfigShape,
} from '../../../src/tts/providers/vendors.ts';
import { RECOMMENDED_MODELS } from '../../../src/voices/cloning/checks.ts';
import { appendsRecordings } from '../../../src/voices/cloning/rows.ts';
import { vendorCatalogs } from '../../../src/voices/imports.ts';
import { acmeVendor } from '../../fakes/acme-vendor.ts';
import { FakeElevenLabsCatalog } from '../../fakes/elevenlabs-catalog.ts';
import { speechSample } from '../../helpers/voice-samples.ts';

/** The registered vendors plus the test vendor, as a deployment with all three would list them. */
const TEST_VENDORS = [...VENDORS, acmeVendor];
type TestKind = (typeof TEST_VENDORS)[number]['kind'];

const VOICE_ID = 'AcmeVoiceAAAAAAAAAA1';

describe('registered vendors', () => {
  it('are what routes, clone targets and configuration enumerate', () => {
    expect(VENDOR_KINDS).toEqual(['elevenlabs', 'fishaudio']);
    expect(UPSTREAM_PROVIDERS).toEqual(VENDOR_KINDS);
    expect(RECOMMENDED_MODELS).toEqual({
      elevenlabs: 'eleven_multilingual_v2',
      fishaudio: 's2.1-pro',
      native: 'espeak-ng-derived',
    });
    const providers: VoiceRouteProvider[] = ['elevenlabs', 'fishaudio', 'native'];
    expect(providers.map(appendsRecordings)).toEqual([true, false, false]);
    const vendorKeys = VENDORS.flatMap((descriptor) => Object.keys(descriptor.configShape));
    expect(vendorKeys.sort()).toEqual([
      'ELEVENLABS_API_BASE',
      'ELEVENLABS_API_KEY',
      'FISHAUDIO_API_BASE',
      'FISHAUDIO_API_KEY',
      'PRICE_ELEVENLABS_CREDITS_PER_1K_CHARS',
      'PRICE_FISHAUDIO_CREDITS_PER_1K_CHARS',
    ]);
    expect(Object.keys(vendorConfigShape).sort()).toEqual(vendorKeys);
    for (const key of vendorKeys) expect(Object.keys(configSchema.shape)).toContain(key);
  });

  it('read their settings and prices from the configuration', () => {
    const config = z.object(vendorConfigShape).parse({
      ELEVENLABS_API_BASE: 'http://127.0.0.1:1/el',
      FISHAUDIO_API_KEY: 'fish-key',
      PRICE_FISHAUDIO_CREDITS_PER_1K_CHARS: '20',
    });
    const vendors = configureVendors(config, VENDORS);
    expect(vendors.map(({ descriptor, settings }) => [descriptor.kind, settings])).toEqual([
      [
        'elevenlabs',
        { baseUrl: 'http://127.0.0.1:1/el', apiKey: undefined, creditsPer1kChars: 100 },
      ],
      [
        'fishaudio',
        { baseUrl: 'https://api.fish.audio', apiKey: 'fish-key', creditsPer1kChars: 20 },
      ],
    ]);
    expect(vendorPricing(vendors)).toEqual({
      elevenlabs: { millicreditsPer1kChars: 100 * MILLICREDITS_PER_CREDIT, passThrough: true },
      fishaudio: { millicreditsPer1kChars: 20 * MILLICREDITS_PER_CREDIT, passThrough: true },
    });
  });
});

describe('a vendor registered in a list', () => {
  let fake: FakeElevenLabsCatalog;
  let vendors: ConfiguredVendor<TestKind>[];
  const signal = new AbortController().signal;

  beforeAll(async () => {
    fake = await FakeElevenLabsCatalog.start({ chunks: 2 });
    fake.own.push({ id: VOICE_ID, name: 'Acme narrator' });
    const config = z
      .object({ ...vendorConfigShape, ...acmeVendor.configShape })
      .parse({ ACME_API_BASE: fake.url, ACME_API_KEY: fake.apiKey });
    vendors = configureVendors(config, TEST_VENDORS);
  });

  afterAll(async () => {
    await fake?.close();
  });

  it('synthesizes through the upstream registry on the deployment key', async () => {
    const registry = new UpstreamProviderRegistry<TestKind>({
      vendors,
      maxConcurrentPerAccount: 2,
    });
    try {
      const provider = registry.provider('acme', null);
      expect(provider.name).toBe('acme');
      let bytes = 0;
      for await (const chunk of provider.synthesize(
        { text: 'Hello from the third vendor.', providerVoiceId: VOICE_ID, model: 'eleven_v3' },
        signal,
      )) {
        bytes += chunk.data.length;
      }
      expect(bytes).toBeGreaterThan(0);
      const request = fake.requests.at(-1);
      expect(request?.path).toBe(`/v1/text-to-speech/${VOICE_ID}/stream`);
      expect(request?.auth).toEqual({ present: true, valid: true });
      expect(request?.status).toBe(200);
    } finally {
      registry.close();
    }
  });

  it('clones through the cloner registry with an account key', async () => {
    const registry = new VoiceClonerRegistry<TestKind>({ vendors });
    try {
      const cloner = registry.cloner('acme', { id: 'pa_acme', version: '1', apiKey: fake.apiKey });
      const sample = await speechSample('A short recording for the third vendor.', 'f3');
      const created = await cloner.create(
        {
          name: 'awp acme clone',
          description: 'd',
          files: [{ ...sample, fileName: 'smp_one.wav', data: sample.audio }],
        },
        signal,
      );
      expect(fake.library.voices.has(created.providerVoiceId)).toBe(true);
      const adds = fake.requests.filter((request) => request.path === '/v1/voices/add');
      expect(adds.map((request) => [request.auth.valid, request.status])).toEqual([[true, 200]]);
    } finally {
      registry.close();
    }
  });

  it('lists its catalog through the import wiring', async () => {
    const catalog = vendorCatalogs(vendors)('acme', fake.apiKey);
    try {
      const page = await catalog.list({ source: 'own', pageSize: 10 }, signal);
      expect(page.voices.map((voice) => [voice.providerVoiceId, voice.name])).toEqual([
        [VOICE_ID, 'Acme narrator'],
      ]);
      expect(page.nextPageToken).toBeNull();
    } finally {
      catalog.close();
    }
  });

  it('is priced from its own settings', () => {
    expect(vendorPricing(vendors).acme).toEqual({
      millicreditsPer1kChars: 7 * MILLICREDITS_PER_CREDIT,
      passThrough: true,
    });
  });
});
