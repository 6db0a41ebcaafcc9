/** True when the client asked for server-sent events (`Accept: text/event-stream`). */
export function wantsEventStream(accept: string | undefined): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');
}

/** One server-sent event: its name and one JSON data line. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Headers of a server-sent event stream (no buffering by proxies). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'x-accel-buffering': 'no',
} as const;
