import { APPLICATION_LIMITS } from '@awp/protocol';
import { describe, expect, it } from 'vitest';
import {
  commandMessageSchema,
  encodeMessage,
  PayloadTooLargeError,
} from '../../../../worker/application/wire.ts';
import { loadWorkerConfig } from '../../../../worker/config.ts';

const REQUIRED = {
  LIVEKIT_URL: 'ws://127.0.0.1:7880',
  LIVEKIT_API_KEY: 'k',
  LIVEKIT_API_SECRET: 's',
};

describe('application protocol wire and limits', () => {
  it('waits 60 seconds for a first answer unless APPLICATION_REQUEST_DEADLINE_MS says otherwise', () => {
    expect(loadWorkerConfig(REQUIRED).APPLICATION_REQUEST_DEADLINE_MS).toBe(60_000);
    expect(APPLICATION_LIMITS.firstResponseMs).toBe(60_000);
    expect(
      loadWorkerConfig({ ...REQUIRED, APPLICATION_REQUEST_DEADLINE_MS: '2500' })
        .APPLICATION_REQUEST_DEADLINE_MS,
    ).toBe(2500);
    expect(() => loadWorkerConfig({ ...REQUIRED, APPLICATION_REQUEST_DEADLINE_MS: '0' })).toThrow(
      /APPLICATION_REQUEST_DEADLINE_MS/,
    );
  });

  it('turns undefined values into null and refuses a body over 256,000 characters', () => {
    expect(encodeMessage({ requestId: 'r', type: 'result', value: undefined })).toBe(
      '{"requestId":"r","type":"result","value":null}',
    );
    const overhead = encodeMessage({ v: '' }).length;
    expect(encodeMessage({ v: 'x'.repeat(256_000 - overhead) }).length).toBe(256_000);
    expect(() => encodeMessage({ v: 'x'.repeat(256_001 - overhead) })).toThrow(
      PayloadTooLargeError,
    );
  });

  it('accepts the three commands and nothing else', () => {
    const requestId = '0d7f3b5e-4a55-4c3e-9d53-6f0e3f5a3a10';
    expect(
      commandMessageSchema.safeParse({ requestId, command: 'cancel_tool', callId: 'c' }).success,
    ).toBe(true);
    expect(
      commandMessageSchema.safeParse({ requestId, command: 'request_reply', id: 'u1' }).success,
    ).toBe(true);
    expect(
      commandMessageSchema.safeParse({
        requestId,
        command: 'update_context',
        messages: [{ role: 'system', content: 'x' }],
      }).success,
    ).toBe(true);
    expect(commandMessageSchema.safeParse({ requestId, command: 'say_anything' }).success).toBe(
      false,
    );
    expect(
      commandMessageSchema.safeParse({ requestId: 'nope', command: 'cancel_tool', callId: 'c' })
        .success,
    ).toBe(false);
  });
});
