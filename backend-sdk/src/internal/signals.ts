// AbortSignal plumbing shared by REST calls and TTS streams.

/** A signal for one attempt: the caller's signal or the attempt's own timeout. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** True when the timeout (not the caller) ended the attempt. */
  timedOut(): boolean;
  /** Clears the timer and listeners; call when the attempt is over. */
  dispose(): void;
  /**
   * Clears only the timer: a streamed body read after the answer's headers stays
   * cancellable by the caller's signal, without the per-attempt limit.
   */
  stopTimer(): void;
}

/** Combines the caller's `signal` with a timer of `timeoutMs` (0 or Infinity: no timer). */
export function attemptSignal(signal: AbortSignal, timeoutMs: number): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
    stopTimer: () => {
      if (timer) clearTimeout(timer);
    },
  };
}

/** Waits `ms`; rejects with the signal's reason as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
