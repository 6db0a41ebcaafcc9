import {
  TranscriptionClient,
  type TranscriptionClientOptions,
  type TranscriptionConnectionState,
  type TranscriptionError,
  type TranscriptionResult,
  type TranscriptionStarted,
  type TranscriptionStartOptions,
  type TranscriptionTranscript,
} from '@awp/client-sdk/transcription';
import { useEffect, useMemo, useState } from 'react';

/** What {@link useTranscription} returns: the live transcript, kept current, and the client. */
export interface TranscriptionState {
  client: TranscriptionClient;
  connectionState: TranscriptionConnectionState;
  /** The session as the api started it; null before. */
  session: TranscriptionStarted | null;
  /** The finals of the current (or last) session, in order. */
  segments: TranscriptionTranscript[];
  /** The interim of the segment being spoken (its whole text so far), or null. */
  interim: TranscriptionTranscript | null;
  /** The finals' texts joined with spaces. */
  transcript: string;
  /** The last session's result (usage, cost), once it finished. */
  result: TranscriptionResult | null;
  /** The last error; cleared by the next `start()`. */
  error: TranscriptionError | null;
  /** `client.start`, clearing the previous session's state first. */
  start(options?: TranscriptionStartOptions): Promise<TranscriptionStarted>;
  flush(): Promise<TranscriptionTranscript[]>;
  stop(): Promise<TranscriptionResult>;
  close(): Promise<void>;
}

/** Options of {@link useTranscription}: the client's options, or a client the app owns. */
export type UseTranscriptionOptions = TranscriptionClientOptions | { client: TranscriptionClient };

type Snapshot = Pick<
  TranscriptionState,
  'connectionState' | 'session' | 'segments' | 'interim' | 'result' | 'error'
>;

const EMPTY: Snapshot = {
  connectionState: 'disconnected',
  session: null,
  segments: [],
  interim: null,
  result: null,
  error: null,
};

/**
 * Realtime transcription in a component. Given options, it creates a
 * {@link TranscriptionClient} once (options are read on the first render) and closes its
 * session on unmount; a given `client` stays the app's.
 *
 * @example
 * ```tsx
 * function Dictation() {
 *   const { connectionState, segments, interim, start, stop } = useTranscription({
 *     token: () => fetch('/my/transcription-token', { method: 'POST' }).then((r) => r.json()),
 *     language: 'en',
 *   });
 *   return (
 *     <>
 *       <button onClick={() => (connectionState === 'disconnected' ? start() : stop())}>
 *         {connectionState === 'disconnected' ? 'Dictate' : 'Stop'}
 *       </button>
 *       <p>
 *         {segments.map((s) => s.text).join(' ')} <i>{interim?.text}</i>
 *       </p>
 *     </>
 *   );
 * }
 * ```
 */
export function useTranscription(options: UseTranscriptionOptions): TranscriptionState {
  const given = 'client' in options ? options.client : undefined;
  // Read once: an inline options object changes on every render, and a new client per
  // render would drop the session.
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are read on first render only.
  const client = useMemo(
    () => given ?? new TranscriptionClient(options as TranscriptionClientOptions),
    [given],
  );
  const [snapshot, setSnapshot] = useState<Snapshot>(EMPTY);

  useEffect(() => {
    const update = (change: (previous: Snapshot) => Snapshot) => setSnapshot(change);
    const offs = [
      client.on('connectionState', (connectionState) => update((s) => ({ ...s, connectionState }))),
      client.on('started', (session) => update((s) => ({ ...s, session }))),
      client.on('transcript', (t) =>
        update((s) => {
          if (!t.final) return { ...s, interim: t };
          return {
            ...s,
            segments: [...s.segments.filter((f) => f.segmentId !== t.segmentId), t],
            interim: s.interim && s.interim.segmentId > t.segmentId ? s.interim : null,
          };
        }),
      ),
      client.on('finish', (result) => update((s) => ({ ...s, result, interim: null }))),
      client.on('error', (error) => update((s) => ({ ...s, error }))),
    ];
    return () => {
      for (const off of offs) off();
      if (!given) void client.close();
    };
  }, [client, given]);

  return useMemo<TranscriptionState>(
    () => ({
      ...snapshot,
      transcript: snapshot.segments.map((s) => s.text).join(' '),
      client,
      start: (startOptions?: TranscriptionStartOptions) => {
        setSnapshot({ ...EMPTY, connectionState: client.connectionState });
        return client.start(startOptions);
      },
      flush: () => client.flush(),
      stop: () => client.stop(),
      close: () => client.close(),
    }),
    [snapshot, client],
  );
}
