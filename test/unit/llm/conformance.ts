import { afterAll, describe, expect, it } from 'vitest';
import type { LlmTimeouts } from '../../../src/llm/call-guard.ts';
import type { LlmFailure } from '../../../src/llm/errors.ts';
import type { LlmChatRequest, LlmEvent, LlmProvider } from '../../../src/llm/provider.ts';
import type { Logger } from '../../../src/observability/logger.ts';
import type { FakeLlmServer, LlmFakeOptions } from '../../fakes/llm-server.ts';
import { chatOutcome, llmErrorOf, memoryLogger, textOf, within } from './helpers.ts';

/** How a vendor adapter is started against its fake, for the shared suite. */
export interface LlmAdapterHarness<F extends FakeLlmServer> {
  readonly name: string;
  startFake(options?: LlmFakeOptions): Promise<F>;
  makeProvider(
    fake: F,
    settings: { apiKey?: string | undefined; timeouts?: Partial<LlmTimeouts>; logger?: Logger },
  ): LlmProvider;
  readonly model: string;
  /** Vendor-specific statuses and the failure each maps to (beyond the shared ones). */
  readonly extraStatuses?: Readonly<Record<number, LlmFailure>>;
  /** An in-stream error type of the vendor and the failure it maps to. */
  readonly streamError: { readonly type: string; readonly failure: LlmFailure };
  /** The response header carrying the vendor request id. */
  readonly requestIdHeader: string;
}

const request = (model: string, extra: Partial<LlmChatRequest> = {}): LlmChatRequest => ({
  model,
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Say hello.' },
  ],
  ...extra,
});

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const SHARED_STATUSES: Record<number, LlmFailure> = {
  400: 'rejected',
  403: 'auth_rejected',
  404: 'rejected',
  422: 'rejected',
  429: 'overloaded',
  500: 'unavailable',
  502: 'unavailable',
  503: 'overloaded',
};

const PUBLIC: Record<LlmFailure, { code: string; retryable: boolean }> = {
  auth_missing: { code: 'provider_auth_missing', retryable: false },
  auth_rejected: { code: 'provider_error', retryable: false },
  overloaded: { code: 'provider_unavailable', retryable: true },
  unavailable: { code: 'provider_error', retryable: true },
  rejected: { code: 'provider_error', retryable: false },
  cancelled: { code: 'provider_error', retryable: true },
};

/**
 * The behaviour every vendor `LlmProvider` shows against its wire-protocol fake: streamed
 * text, tool calls assembled from fragments, usage, each failure mapped to the right
 * `LlmError` kind and public code, cancellation and timeouts that close the upstream
 * request.
 */
export function runLlmAdapterConformance<F extends FakeLlmServer>(
  harness: LlmAdapterHarness<F>,
): void {
  describe(`LlmProvider conformance: ${harness.name}`, () => {
    const fakes: F[] = [];
    const start = async (options?: LlmFakeOptions) => {
      const fake = await harness.startFake(options);
      fakes.push(fake);
      return fake;
    };
    afterAll(async () => {
      await Promise.all(fakes.map((fake) => fake.close()));
    });
    const signal = () => new AbortController().signal;

    it('streams text as several deltas in order, then done with the usage the vendor reported', async () => {
      const fake = await start();
      fake.script({
        text: ['The', ' weather', ' is', ' fine.'],
        usage: { inputTokens: 42, outputTokens: 7 },
      });
      const provider = harness.makeProvider(fake, {});
      const { events, error } = await chatOutcome(provider.chat(request(harness.model), signal()));
      expect(error).toBeUndefined();
      expect(events).toEqual([
        { type: 'text', delta: 'The' },
        { type: 'text', delta: ' weather' },
        { type: 'text', delta: ' is' },
        { type: 'text', delta: ' fine.' },
        { type: 'done', finishReason: 'stop', usage: { inputTokens: 42, outputTokens: 7 } },
      ]);
      expect(fake.requests[0]?.auth).toEqual({ present: true, valid: true });
    });

    it('assembles a tool call whose arguments arrive in fragments', async () => {
      const fake = await start();
      const args = '{"city":"Paris","unit":"celsius"}';
      fake.script({
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: args }],
        argumentFragments: 5,
      });
      const provider = harness.makeProvider(fake, {});
      const { events, error } = await chatOutcome(
        provider.chat(request(harness.model, { tools: [WEATHER_TOOL] }), signal()),
      );
      expect(error).toBeUndefined();
      expect(events.filter((e) => e.type !== 'done')).toEqual([
        { type: 'tool_call', call: { id: 'call_1', name: 'get_weather', arguments: args } },
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'tool_calls' });
    });

    it('yields two tool calls of one answer in order, after the text', async () => {
      const fake = await start();
      fake.script({
        text: ['Let me', ' check.'],
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
        ],
      });
      const provider = harness.makeProvider(fake, {});
      const { events } = await chatOutcome(
        provider.chat(request(harness.model, { tools: [WEATHER_TOOL] }), signal()),
      );
      expect(events.map((e) => e.type)).toEqual(['text', 'text', 'tool_call', 'tool_call', 'done']);
      expect(textOf(events)).toBe('Let me check.');
      const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
      expect(calls).toEqual([
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ]);
    });

    it('reports a truncated answer as finishReason length', async () => {
      const fake = await start();
      fake.script({ text: ['Once upon'], truncated: true });
      const provider = harness.makeProvider(fake, {});
      const { events } = await chatOutcome(
        provider.chat(request(harness.model, { maxOutputTokens: 2 }), signal()),
      );
      expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'length' });
    });

    it('fails with auth_missing and never sends a credential when no key is configured', async () => {
      const fake = await start();
      const provider = harness.makeProvider(fake, { apiKey: undefined });
      const error = llmErrorOf(await chatOutcome(provider.chat(request(harness.model), signal())));
      expect(error.failure).toBe('auth_missing');
      expect(error.toApiError().code).toBe('provider_auth_missing');
      // Anthropic fails before sending; an OpenAI-compatible server may be keyless, so the
      // adapter asks it without a credential and reads its 401 as a missing key.
      expect(fake.requests.every((r) => !r.auth.present)).toBe(true);
    });

    it('maps a refused key (401) to auth_rejected, not retryable, without logging the key', async () => {
      const fake = await start();
      const { logger, lines } = memoryLogger();
      const wrongKey = 'sk-wrong-0123456789abcdef';
      const provider = harness.makeProvider(fake, { apiKey: wrongKey, logger });
      const error = llmErrorOf(await chatOutcome(provider.chat(request(harness.model), signal())));
      expect(error.failure).toBe('auth_rejected');
      expect(error.toApiError()).toMatchObject({ code: 'provider_error', retryable: false });
      expect(fake.requests[0]?.auth).toEqual({ present: true, valid: false });
      expect(lines().join('\n')).not.toContain(wrongKey);
      expect(error.message).not.toContain(wrongKey);
    });

    const statuses = { ...SHARED_STATUSES, ...harness.extraStatuses };
    for (const [status, failure] of Object.entries(statuses)) {
      it(`maps HTTP ${status} to ${failure} (${PUBLIC[failure].code})`, async () => {
        const fake = await start();
        fake.script({ failure: { kind: 'status', status: Number(status) } });
        const provider = harness.makeProvider(fake, {});
        const error = llmErrorOf(
          await chatOutcome(provider.chat(request(harness.model), signal())),
        );
        expect(error.failure).toBe(failure);
        expect(error.toApiError()).toMatchObject(PUBLIC[failure]);
        expect(fake.requests).toHaveLength(1); // no retries inside the adapter
      });
    }

    it('carries retry-after of a 429', async () => {
      const fake = await start();
      fake.script({ failure: { kind: 'status', status: 429, retryAfterSeconds: 7 } });
      const provider = harness.makeProvider(fake, {});
      const error = llmErrorOf(await chatOutcome(provider.chat(request(harness.model), signal())));
      expect(error.failure).toBe('overloaded');
      expect(error.retryAfterMs).toBe(7000);
    });

    it('maps a connection reset mid-stream to unavailable, after the deltas that arrived', async () => {
      const fake = await start();
      fake.script({
        text: ['a', 'b', 'c', 'd', 'e'],
        failure: { kind: 'reset_after_deltas', deltas: 2 },
      });
      const provider = harness.makeProvider(fake, {});
      const outcome = await chatOutcome(provider.chat(request(harness.model), signal()));
      expect(outcome.events.length).toBeLessThanOrEqual(2);
      expect(outcome.events.every((e) => e.type === 'text')).toBe(true);
      expect(llmErrorOf(outcome).failure).toBe('unavailable');
    });

    it('fails a stream that ends before its finish event as unavailable', async () => {
      const fake = await start();
      fake.script({ text: ['a', 'b', 'c'], failure: { kind: 'end_after_deltas', deltas: 2 } });
      const provider = harness.makeProvider(fake, {});
      const outcome = await chatOutcome(provider.chat(request(harness.model), signal()));
      expect(outcome.events).toEqual([
        { type: 'text', delta: 'a' },
        { type: 'text', delta: 'b' },
      ]);
      expect(llmErrorOf(outcome).failure).toBe('unavailable');
      expect(fake.requests[0]?.outcome).toBe('completed');
    });

    it(`maps an in-stream ${harness.streamError.type} error to ${harness.streamError.failure}`, async () => {
      const fake = await start();
      fake.script({
        text: ['a', 'b', 'c'],
        failure: {
          kind: 'stream_error_after_deltas',
          deltas: 1,
          errorType: harness.streamError.type,
        },
      });
      const provider = harness.makeProvider(fake, {});
      const outcome = await chatOutcome(provider.chat(request(harness.model), signal()));
      expect(llmErrorOf(outcome).failure).toBe(harness.streamError.failure);
      expect(outcome.events.some((e) => e.type === 'done')).toBe(false);
    });

    it('closes the upstream request promptly when the caller aborts mid-stream', async () => {
      const fake = await start();
      fake.script({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), deltaDelayMs: 50 });
      const provider = harness.makeProvider(fake, {});
      const controller = new AbortController();
      const iterator = provider
        .chat(request(harness.model), controller.signal)
        [Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value).toMatchObject({ type: 'text' });
      controller.abort();
      const outcome = await within(
        iterator.next().then(
          (result) => ({ result, error: undefined }),
          (error: unknown) => ({ result: undefined, error }),
        ),
        1000,
        'next() after abort',
      );
      expect(llmErrorOf({ events: [], error: outcome.error }).failure).toBe('cancelled');
      const recorded = fake.requests[0];
      expect(await within(recorded?.ended ?? Promise.reject(), 1000, 'upstream close')).toBe(
        'client_closed',
      );
      expect(recorded?.framesSent).toBeLessThan(20);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const fake = await start();
      const provider = harness.makeProvider(fake, {});
      const controller = new AbortController();
      controller.abort();
      const error = llmErrorOf(
        await chatOutcome(provider.chat(request(harness.model), controller.signal)),
      );
      expect(error.failure).toBe('cancelled');
      expect(fake.requests).toHaveLength(0);
    });

    it('closes the upstream request when the consumer stops early', async () => {
      const fake = await start();
      fake.script({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), deltaDelayMs: 50 });
      const provider = harness.makeProvider(fake, {});
      for await (const event of provider.chat(request(harness.model), signal())) {
        if (event.type === 'text') break;
      }
      expect(
        await within(fake.requests[0]?.ended ?? Promise.reject(), 1000, 'upstream close'),
      ).toBe('client_closed');
    });

    it('fails a stream that stalls after some deltas once the idle timeout passes', async () => {
      const fake = await start();
      fake.script({
        text: ['a', 'b', 'c', 'd'],
        failure: { kind: 'stall_after_deltas', deltas: 2 },
      });
      const provider = harness.makeProvider(fake, { timeouts: { idleTimeoutMs: 300 } });
      const startedAt = Date.now();
      const outcome = await within(
        chatOutcome(provider.chat(request(harness.model), signal())),
        3000,
        'stalled chat',
      );
      expect(outcome.events).toEqual([
        { type: 'text', delta: 'a' },
        { type: 'text', delta: 'b' },
      ]);
      const error = llmErrorOf(outcome);
      expect(error.failure).toBe('unavailable');
      expect(error.toApiError()).toMatchObject({ code: 'provider_error', retryable: true });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
      expect(
        await within(fake.requests[0]?.ended ?? Promise.reject(), 1000, 'upstream close'),
      ).toBe('client_closed');
    });

    it('fails when no first token arrives in time (no answer at all, or headers only)', async () => {
      const fake = await start();
      fake.script({ failure: { kind: 'hang' } });
      fake.script({ firstTokenDelayMs: 5000 });
      const provider = harness.makeProvider(fake, { timeouts: { firstTokenTimeoutMs: 300 } });
      for (const _ of [0, 1]) {
        const outcome = await within(
          chatOutcome(provider.chat(request(harness.model), signal())),
          3000,
          'silent chat',
        );
        expect(llmErrorOf(outcome).failure).toBe('unavailable');
      }
      expect(fake.requests[1]?.status).toBe(200);
      expect(
        await within(fake.requests[1]?.ended ?? Promise.reject(), 1000, 'upstream close'),
      ).toBe('client_closed');
    });

    it('waits through a slow first token within the timeout and logs the vendor request id at debug', async () => {
      const fake = await start({ defaults: { firstTokenDelayMs: 250 } });
      const { logger, lines } = memoryLogger();
      const provider = harness.makeProvider(fake, {
        logger,
        timeouts: { firstTokenTimeoutMs: 5000 },
      });
      const startedAt = Date.now();
      let firstTokenMs = 0;
      const events: LlmEvent[] = [];
      for await (const event of provider.chat(request(harness.model), signal())) {
        if (events.length === 0) firstTokenMs = Date.now() - startedAt;
        events.push(event);
      }
      expect(firstTokenMs).toBeGreaterThanOrEqual(240);
      expect(events.at(-1)?.type).toBe('done');
      const requestId = fake.requests[0]?.responseHeaders[harness.requestIdHeader];
      expect(requestId).toMatch(/^req_/);
      const logged = lines().map(
        (line) => JSON.parse(line) as { level: number; vendorRequestId?: string },
      );
      expect(
        logged.some((entry) => entry.level === 20 && entry.vendorRequestId === requestId),
      ).toBe(true);
      expect(lines().join('\n')).not.toContain(fake.apiKey ?? 'no key');
    });
  });
}
