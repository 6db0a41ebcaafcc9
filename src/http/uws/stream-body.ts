import type { HttpResponse as UwsResponse } from 'uWebSockets.js';

/**
 * Sends `stream` as a chunked body after the status and headers were written: each piece
 * goes out as soon as it is produced, and while uWS holds unsent bytes the producer waits
 * (one piece ahead) and a client disconnect (`signal`) returns the iterator so its
 * producer can stop. Resolves true when the body ended normally, false when the client
 * went away; a producer failure closes the connection (the client sees a cut, never a
 * clean end) and rejects.
 *
 * uWS does not drain its own buffer while an `onWritable` handler is registered: the
 * handler must write. So a piece produced while the socket is blocked is written inside
 * the handler, and so is the final end.
 */
export async function sendStream(
  res: UwsResponse,
  stream: AsyncIterable<Buffer | string>,
  signal: AbortSignal,
): Promise<boolean> {
  const iterator = stream[Symbol.asyncIterator]();
  let blocked = false;
  let held: { write: () => boolean; resolve: () => void } | undefined;
  res.onWritable(() => {
    const next = held;
    held = undefined;
    if (!next) {
      blocked = false;
      return true;
    }
    const ok = next.write();
    blocked = !ok;
    next.resolve();
    return ok;
  });
  const onAbort = () => {
    held?.resolve();
    held = undefined;
  };
  signal.addEventListener('abort', onAbort, { once: true });

  /** Writes now, or inside the handler once uWS drained what it holds. */
  const send = (write: () => boolean): Promise<void> => {
    if (!blocked) {
      let ok = true;
      res.cork(() => {
        ok = write();
      });
      blocked = !ok;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      held = { write, resolve };
    });
  };

  try {
    for (;;) {
      const next = signal.aborted ? undefined : await iterator.next();
      if (next === undefined || signal.aborted) {
        await iterator.return?.();
        return false;
      }
      if (next.done) break;
      const piece = next.value;
      await send(() => res.write(piece));
    }
    if (signal.aborted) return false;
    await send(() => {
      res.end();
      return true;
    });
    return !signal.aborted;
  } catch (error) {
    if (signal.aborted) return false;
    res.cork(() => res.close());
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
