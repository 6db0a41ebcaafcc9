// The server SDK's event-stream reader: blocks split anywhere across chunks, CRLF line
// ends, comments, multi-line data and a missing event name.
import { describe, expect, it } from 'vitest';
import { readSse, type SseBlock } from '../../../backend-sdk/src/internal/sse.ts';

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(chunks: string[]): Promise<SseBlock[]> {
  const blocks: SseBlock[] = [];
  for await (const block of readSse(body(chunks))) blocks.push(block);
  return blocks;
}

describe('readSse', () => {
  it('reads events split at any byte, with CRLF, comments and multi-line data', async () => {
    const text =
      ': keep-alive\r\n\r\nevent: delta\r\ndata: {"text":"Hé"}\r\n\r\nevent: message\ndata: line one\ndata: line two\n\ndata: {"x":1}\n\n';
    const expected = [
      { event: 'delta', data: '{"text":"Hé"}' },
      { event: 'message', data: 'line one\nline two' },
      { event: 'message', data: '{"x":1}' },
    ];
    expect(await all([text])).toEqual(expected);
    // Every split point, including inside the two-byte "é".
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.byteLength; cut++) {
      const decoder = new TextDecoder();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.subarray(0, cut));
          controller.enqueue(bytes.subarray(cut));
          controller.close();
        },
      });
      const blocks: SseBlock[] = [];
      for await (const block of readSse(stream)) blocks.push(block);
      expect(blocks, `cut at ${cut} (${decoder.decode(bytes.subarray(0, cut)).slice(-5)})`).toEqual(
        expected,
      );
    }
  });

  it('drops an unterminated last block and blocks without data', async () => {
    expect(await all(['event: a\n\nevent: b\ndata: 1\n\nevent: c\ndata: 2'])).toEqual([
      { event: 'b', data: '1' },
    ]);
  });
});
