/**
 * React bindings of `@awp/client-sdk`: a provider that owns (or is given) a
 * {@link ConversationClient} and a hook that follows its state, and `useTranscription` for
 * realtime transcription. React 18 or later is a peer dependency.
 *
 * @example
 * ```tsx
 * import { ConversationProvider, useConversation } from '@awp/react';
 *
 * function App() {
 *   return (
 *     <ConversationProvider options={{ agentId, apiOrigin, sessionToken: fetchToken }}>
 *       <Talk />
 *     </ConversationProvider>
 *   );
 * }
 *
 * function Talk() {
 *   const { connectionState, transcript, connect, client } = useConversation();
 *   if (connectionState === 'disconnected') return <button onClick={() => connect()}>Talk</button>;
 *   return (
 *     <>
 *       <button onPointerDown={() => client.startPushToTalk()} onPointerUp={() => client.commitPushToTalk()}>
 *         Hold to talk
 *       </button>
 *       {transcript.map((line) => <p key={line.id}>{line.role}: {line.text}</p>)}
 *     </>
 *   );
 * }
 * ```
 *
 * @packageDocumentation
 */

import {
  type AgentState,
  type ConnectionState,
  type ConnectOptions,
  ConversationClient,
  type ConversationClientOptions,
  ConversationError,
  type ConversationSession,
  type TranscriptEvent,
  type TranscriptProgressEvent,
} from '@awp/client-sdk';
import {
  createContext,
  createElement,
  type ReactElement,
  type ReactNode,
  useContext,
  useEffect,
  useMemo,
  useState,
} from 'react';

/** What {@link useConversation} returns: the client's state, kept current, and the client. */
export interface ConversationState {
  client: ConversationClient;
  connectionState: ConnectionState;
  session: ConversationSession | null;
  /** Persisted turns of the current conversation, oldest first. */
  transcript: TranscriptEvent[];
  /** Live captions not yet replaced by a persisted turn, by arrival. */
  captions: TranscriptProgressEvent[];
  agentSpeaking: boolean;
  agentState: AgentState | null;
  /** The last declined turn's reason, until the next turn. */
  declinedReason: string | null;
  /** The last error; cleared by the next `connect()`. */
  error: ConversationError | null;
  /** `client.connect`, clearing the previous conversation's state first. */
  connect(options?: ConnectOptions): Promise<ConversationSession>;
  disconnect(): Promise<void>;
}

/** Props of {@link ConversationProvider}: either a client or the options to create one. */
export type ConversationProviderProps =
  | { client: ConversationClient; options?: never; children?: ReactNode }
  | { options: ConversationClientOptions; client?: never; children?: ReactNode };

type Snapshot = Omit<ConversationState, 'client' | 'connect' | 'disconnect'>;

const EMPTY: Snapshot = {
  connectionState: 'disconnected',
  session: null,
  transcript: [],
  captions: [],
  agentSpeaking: false,
  agentState: null,
  declinedReason: null,
  error: null,
};

export {
  type TranscriptionState,
  type UseTranscriptionOptions,
  useTranscription,
} from './transcription.ts';

const ConversationContext = createContext<ConversationState | null>(null);

/**
 * Makes a conversation available to {@link useConversation} below it. Given `options`, it
 * creates the client once and disconnects it on unmount; a given `client` stays the app's.
 */
export function ConversationProvider(props: ConversationProviderProps): ReactElement {
  const { client: given, options } = props;
  // `options` is read once: an inline object literal changes on every render, and a new
  // client per render would drop the conversation.
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are read on first render only.
  const client = useMemo(() => given ?? new ConversationClient(options!), [given]);
  const [snapshot, setSnapshot] = useState<Snapshot>(EMPTY);

  useEffect(() => {
    const update = (change: (previous: Snapshot) => Snapshot) => setSnapshot(change);
    const offs = [
      client.on('connectionState', (connectionState) => update((s) => ({ ...s, connectionState }))),
      client.on('session', (session) => update((s) => ({ ...s, session }))),
      client.on('transcriptProgress', (caption) =>
        update((s) => ({
          ...s,
          captions: [...s.captions.filter((c) => c.segmentId !== caption.segmentId), caption],
        })),
      ),
      client.on('transcript', (line) =>
        update((s) => ({
          ...s,
          transcript: [...s.transcript.filter((t) => t.id !== line.id), line],
          // A persisted turn replaces the finished captions of the same speaker.
          captions: s.captions.filter((c) => !(c.role === line.role && c.final)),
          declinedReason: null,
        })),
      ),
      client.on('declined', ({ reason }) => update((s) => ({ ...s, declinedReason: reason }))),
      client.on('agentSpeaking', ({ speaking, state }) =>
        update((s) => ({ ...s, agentSpeaking: speaking, agentState: state })),
      ),
      client.on('error', (error) => update((s) => ({ ...s, error }))),
    ];
    return () => {
      for (const off of offs) off();
      if (!given) void client.disconnect();
    };
  }, [client, given]);

  const value = useMemo<ConversationState>(
    () => ({
      ...snapshot,
      client,
      connect: (connectOptions?: ConnectOptions) => {
        setSnapshot({ ...EMPTY, connectionState: client.connectionState });
        return client.connect(connectOptions);
      },
      disconnect: () => client.disconnect(),
    }),
    [snapshot, client],
  );
  return createElement(ConversationContext.Provider, { value }, props.children);
}

/**
 * The conversation of the nearest {@link ConversationProvider}, re-rendering on every change.
 * Throws when used outside one.
 */
export function useConversation(): ConversationState {
  const value = useContext(ConversationContext);
  if (!value) {
    throw new ConversationError(
      'invalid_options',
      'useConversation() must be used inside <ConversationProvider>.',
    );
  }
  return value;
}
