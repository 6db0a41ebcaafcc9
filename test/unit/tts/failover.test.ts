// RouteFailover hands a request to the next route only before audio; whatever happens, the
// route generator that served must be ended, since it holds an upstream slot or an engine.
import { describe, expect, it } from 'vitest';
import type { PcmChunk } from '../../../media/pcm.ts';
import { RouteFailover } from '../../../src/tts/failover.ts';
import type { TtsProvider } from '../../../src/tts/providers/provider.ts';
import { ProviderUsage } from '../../../src/tts/synthesize.ts';
import type { ResolvedRoute } from '../../../src/voices/catalog.ts';

function routeOf(chunks: number, log: string[]): ResolvedRoute {
  const provider = {
    name: 'test',
    async *synthesize() {
      log.push('acquired');
      try {
        for (let i = 0; i < chunks; i += 1) {
          yield { data: new Uint8Array(480), sampleRateHz: 24_000 } as unknown as PcmChunk;
        }
      } finally {
        log.push('released');
      }
    },
  } as unknown as TtsProvider;
  return {
    id: 'test:model:route',
    provider,
    providerVoiceId: 'v',
    model: 'model',
    pricing: {} as ResolvedRoute['pricing'],
    profile: { capabilities: ['tts'], outputFormats: ['pcm_24000'] },
  };
}

const segment = { text: 'Hello.', voiceTags: [], format: 'pcm_24000' } as never;

describe('RouteFailover', () => {
  it('ends the serving route when the consumer stops at the first chunk', async () => {
    const log: string[] = [];
    const failover = new RouteFailover([routeOf(5, log)], {
      onFailover: () => undefined,
      onServe: async () => undefined,
    });
    for await (const _chunk of failover.synthesize(
      segment,
      new ProviderUsage(),
      new AbortController().signal,
    )) {
      break;
    }
    expect(log).toEqual(['acquired', 'released']);
  });

  it('ends the serving route when the consumer stops mid-stream', async () => {
    const log: string[] = [];
    const failover = new RouteFailover([routeOf(5, log)], {
      onFailover: () => undefined,
      onServe: async () => undefined,
    });
    let seen = 0;
    for await (const _chunk of failover.synthesize(
      segment,
      new ProviderUsage(),
      new AbortController().signal,
    )) {
      seen += 1;
      if (seen === 3) break;
    }
    expect(log).toEqual(['acquired', 'released']);
  });
});
