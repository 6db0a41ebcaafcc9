// A reader of `text/event-stream` bodies: one `{event, data}` per blank-line-separated
// block, `data` lines joined with newlines (the WHATWG event-stream rules we rely on).

/** One server-sent event; `event` is `message` when the block named none. */
export interface SseBlock {
  event: string;
  data: string;
}

/** The events of `body` in order; ends with the body. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseBlock> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let pending = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the end of a chunk may be the first half of a CRLF: keep it back until the
      // next chunk says, or a split CRLF would count as two line ends.
      const held = !done && pending.endsWith('\r') ? 1 : 0;
      buffer += pending.slice(0, pending.length - held).replace(/\r\n?/g, '\n');
      pending = pending.slice(pending.length - held);
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (block) yield block;
      }
      if (done) break;
    }
  } finally {
    // Leaving early (break, throw) cancels the body, which ends the request.
    await reader.cancel().catch(() => {});
  }
}

function parseBlock(text: string): SseBlock | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') };
}
