/** One server-sent event with its JSON data. */
export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields.
  data: any;
}

/**
 * Reads a `text/event-stream` body event by event. `stopWhen` can end the read early (the
 * caller then aborts the request, as a client leaving mid-answer would).
 */
export async function readSse(
  response: Response,
  stopWhen?: (event: SseEvent, seen: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body?.getReader();
  if (!reader) return events;
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      const parsed = { event, data: JSON.parse(data.join('\n')) };
      events.push(parsed);
      if (stopWhen?.(parsed, events)) {
        await reader.cancel().catch(() => {});
        return events;
      }
    }
  }
  if (buffer.trim() !== '') throw new Error(`stream ended inside an event: ${buffer}`);
  return events;
}
