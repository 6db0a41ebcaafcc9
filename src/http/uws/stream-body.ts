import type { HttpResponse as UwsResponse } from 'uWebSockets.js';

/**
 * Sends `stream` as a chunked body after the status and headers were written: each piece
 * goes out as soon as it is produced, the producer waits while uWS reports backpressure,
 * and a client disconnect (`signal`) returns the iterator so its producer can stop.
 * Resolves true when the body ended normally, false when the client went away or the
 * producer failed (the connection is then closed, so the client sees a cut, not an end).
 */
export async function sendStream(
  res: UwsResponse,
  stream: AsyncIterable<Buffer | string>,
  signal: AbortSignal,
): Promise<boolean> {
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = signal.aborted ? undefined : await iterator.next();
      if (next === undefined || signal.aborted) {
        await iterator.return?.();
        return false;
      }
      if (next.done) break;
      let written = true;
      res.cork(() => {
        written = res.write(next.value);
      });
      if (!written) await writable(res, signal);
    }
    res.cork(() => res.end());
    return true;
  } catch (error) {
    if (!signal.aborted) res.cork(() => res.close());
    if (signal.aborted) return false;
    throw error;
  }
}

/** Resolves when uWS drained its buffer or the client went away. */
function writable(res: UwsResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    res.onWritable(() => {
      done();
      return true;
    });
  });
}
