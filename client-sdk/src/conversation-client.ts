import {
  ATTR_AUDIO_RESPONSE,
  ATTR_SESSION_ENDED,
  RPC_INPUT_MODE,
  RPC_INTERRUPT,
  RPC_PTT_CANCEL,
  RPC_PTT_COMMIT,
  RPC_PTT_START,
  TOPIC_CHAT,
} from '@awp/protocol';
import {
  type Participant,
  type RemoteParticipant,
  type RemoteTrack,
  Room,
  ConnectionState as RoomConnectionState,
  RoomEvent,
  Track,
} from 'livekit-client';
import { ConversationError } from './errors.ts';
import type {
  ConversationEventMap,
  ConversationEventName,
  ConversationListener,
} from './events.ts';
import {
  agentAttributes,
  ENDED_REASONS,
  INPUT_MODES,
  isAgentParticipant,
} from './internal/agent-participant.ts';
import { AudioPlayback } from './internal/audio-playback.ts';
import { openMicrophone, setInitialMode, waitForAgent } from './internal/connect-steps.ts';
import { ControlQueue, callAgent } from './internal/controls.ts';
import { Emitter } from './internal/emitter.ts';
import { registerStreams, unregisterStreams } from './internal/room-streams.ts';
import { aborted, SessionStarter } from './internal/start-session.ts';
import { toError } from './internal/to-error.ts';
import { type ResolvedOptions, resolveOptions } from './internal/validate-options.ts';
import type { ConnectOptions, ConversationClientOptions, SendTextOptions } from './options.ts';
import type { AgentState, ConnectionState, ConversationSession, InputMode } from './session.ts';

/**
 * A live voice (and text) conversation with a managed Agent, in the browser.
 *
 * @example
 * ```ts
 * import { ConversationClient } from '@awp/client-sdk';
 *
 * const client = new ConversationClient({
 *   agentId: '0b6c8a3e-2f1d-4c59-9a57-0d4f1b2e7c11',
 *   apiOrigin: 'https://api.example.com',
 *   // your backend mints one token per call (POST /v1/agents/{id}/session-tokens)
 *   sessionToken: () => fetch('/my/agent-token', { method: 'POST' }).then((r) => r.json()),
 * });
 * client.on('transcript', ({ role, text }) => console.log(role, text));
 * await client.connect({ inputMode: 'push-to-talk' });
 * button.onpointerdown = () => client.startPushToTalk();
 * button.onpointerup = () => client.commitPushToTalk();
 * ```
 */
export class ConversationClient {
  readonly #options: ResolvedOptions;
  readonly #emitter = new Emitter<ConversationEventMap>();
  readonly #starter: SessionStarter;
  readonly #controls = new ControlQueue();
  readonly #playback = new AudioPlayback();
  #state: ConnectionState = 'disconnected';
  #room: Room | null = null;
  #abort: AbortController | null = null;
  #session: ConversationSession | null = null;
  #agentIdentity: string | null = null;
  #inputMode: InputMode | null = null;
  #agentState: AgentState | null = null;
  /** While the Agent is away after a lost job: the give-up timer and the mode to restore. */
  #rejoin: { timer: ReturnType<typeof setTimeout>; mode: InputMode | null } | null = null;

  /** Throws `invalid_options` (for example "agentId must be a UUID") when a rule is broken. */
  constructor(options: ConversationClientOptions) {
    this.#options = resolveOptions(options);
    this.#starter = new SessionStarter(this.#options);
  }

  /** Current connection state. */
  get connectionState(): ConnectionState {
    return this.#state;
  }

  /** The session of the current conversation; null when disconnected. */
  get session(): ConversationSession | null {
    return this.#session;
  }

  /** Current input mode; null when disconnected. */
  get inputMode(): InputMode | null {
    return this.#inputMode;
  }

  /** What the Agent is doing; null until it says. */
  get agentState(): AgentState | null {
    return this.#agentState;
  }

  /** Whether the microphone may ever be used (the `inputAudioEnabled` option). */
  get inputAudioEnabled(): boolean {
    return this.#options.inputAudioEnabled;
  }

  /**
   * Silences the Agent's voice (playback only: the conversation goes on). No effect when
   * `audioPlayback` is false.
   */
  get muted(): boolean {
    return this.#playback.muted;
  }

  set muted(value: boolean) {
    if (this.#options.audioPlayback) this.#playback.muted = Boolean(value);
  }

  /** The end user's microphone track while connected with input audio; otherwise null. */
  get microphoneTrack(): MediaStreamTrack | null {
    const publication = this.#room?.localParticipant.getTrackPublication(Track.Source.Microphone);
    return publication?.track?.mediaStreamTrack ?? null;
  }

  /**
   * Subscribes to one of the eight events; returns the function that unsubscribes.
   *
   * @example
   * ```ts
   * const off = client.on('agentSpeaking', ({ speaking }) => avatar.classList.toggle('talking', speaking));
   * off();
   * ```
   */
  on<K extends ConversationEventName>(name: K, listener: ConversationListener<K>): () => void {
    if (typeof listener !== 'function') {
      throw new ConversationError('invalid_options', 'on(name, listener) needs a function.');
    }
    return this.#emitter.on(name, listener);
  }

  /**
   * Starts a session (a fresh token from `sessionToken`, or `startSession`), joins its room,
   * waits for the Agent, sets the input mode (`push-to-talk` by default), then opens the
   * microphone (unless `inputAudioEnabled` is false). Resolves with the session.
   */
  async connect(options: ConnectOptions = {}): Promise<ConversationSession> {
    const inputMode = options.inputMode ?? 'push-to-talk';
    if (!INPUT_MODES.includes(inputMode)) {
      throw new ConversationError(
        'invalid_options',
        'inputMode must be push-to-talk or automatic.',
      );
    }
    if (this.#state !== 'disconnected') {
      throw new ConversationError('already_connected', `connect() while ${this.#state}.`);
    }
    const abort = new AbortController();
    this.#abort = abort;
    this.#setState('connecting');
    try {
      const session = await this.#starter.start(abort.signal);
      if (abort.signal.aborted) throw aborted();
      this.#session = session;
      this.#emit('session', session);
      const room = new Room({ adaptiveStream: false, dynacast: false });
      this.#room = room;
      this.#wire(room, session);
      await room.connect(session.livekit.url, session.livekit.token, { autoSubscribe: true });
      if (abort.signal.aborted) throw aborted();
      const deadline = Date.now() + this.#options.agentJoinTimeoutMs;
      const agent = await waitForAgent(room, () => this.#findAgent(room), deadline, abort.signal);
      // The mode first: a microphone published while the Agent is still in its starting
      // mode (automatic) would let background sound cut off its greeting.
      await setInitialMode(this.#controls, room, agent, inputMode, deadline, abort.signal);
      this.#inputMode = inputMode;
      if (this.#options.inputAudioEnabled) await openMicrophone(room);
      if (abort.signal.aborted) throw aborted();
      void room.startAudio().catch(() => undefined);
      this.#setState('connected');
      return session;
    } catch (error) {
      const failure = toError(error, 'connection_failed');
      if (this.#abort === abort) await this.#teardown();
      if (failure.code !== 'aborted') this.#emit('error', failure);
      throw failure;
    }
  }

  /** Ends the conversation and releases the microphone. Safe to call in any state. */
  async disconnect(): Promise<void> {
    this.#abort?.abort();
    await this.#teardown();
  }

  /**
   * Sends the user's text to the Agent. `audioResponse: false` makes this one answer
   * text-only (it arrives as `transcript` and `transcriptProgress`, without audio).
   */
  sendText(text: string, options: SendTextOptions = {}): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '') {
      throw new ConversationError('invalid_options', 'sendText needs a nonblank string.');
    }
    const { room, agent } = this.#connected();
    const attributes: Record<string, string> =
      options.audioResponse === false ? { [ATTR_AUDIO_RESPONSE]: 'false' } : {};
    return this.#reporting(
      room.localParticipant
        .sendText(text, { topic: TOPIC_CHAT, destinationIdentities: [agent], attributes })
        .then(
          () => undefined,
          (error: unknown) => Promise.reject(toError(error, 'control_failed')),
        ),
    );
  }

  /** Push-to-talk: starts capturing a turn (and interrupts the Agent). */
  startPushToTalk(): Promise<void> {
    return this.#pushToTalk(RPC_PTT_START);
  }

  /** Push-to-talk: ends the turn; the Agent answers it. */
  commitPushToTalk(): Promise<void> {
    return this.#pushToTalk(RPC_PTT_COMMIT);
  }

  /** Push-to-talk: drops the captured audio. */
  cancelPushToTalk(): Promise<void> {
    return this.#pushToTalk(RPC_PTT_CANCEL);
  }

  /** Switches how turns end: `push-to-talk` or `automatic` (voice activity). */
  setInputMode(mode: InputMode): Promise<void> {
    if (!INPUT_MODES.includes(mode)) {
      throw new ConversationError('invalid_options', 'mode must be push-to-talk or automatic.');
    }
    const { room, agent } = this.#connected();
    const previous = this.#inputMode;
    // Later calls are checked against the requested mode; a refusal restores the old one.
    this.#inputMode = mode;
    return this.#reporting(
      this.#controls
        .run(() => callAgent(room.localParticipant, agent, RPC_INPUT_MODE, { mode }))
        .catch((error: unknown) => {
          if (this.#room === room) this.#inputMode = previous;
          throw error;
        }),
    );
  }

  /** Opens or closes (mutes) the microphone without leaving the conversation. */
  setMicrophoneEnabled(enabled: boolean): Promise<void> {
    this.#requireInputAudio();
    const { room } = this.#connected();
    return this.#reporting(
      this.#controls.run(async () => {
        try {
          await room.localParticipant.setMicrophoneEnabled(Boolean(enabled));
        } catch (error) {
          throw new ConversationError('microphone_unavailable', String(error), { cause: error });
        }
      }),
    );
  }

  /** Stops the Agent's speech now. */
  interrupt(): Promise<void> {
    const { room, agent } = this.#connected();
    return this.#reporting(
      this.#controls.run(() => callAgent(room.localParticipant, agent, RPC_INTERRUPT, {})),
    );
  }

  #pushToTalk(method: string): Promise<void> {
    this.#requireInputAudio();
    const { room, agent } = this.#connected();
    if (this.#inputMode !== 'push-to-talk') {
      throw new ConversationError(
        'wrong_input_mode',
        'Push-to-talk needs inputMode push-to-talk (connect({inputMode}) or setInputMode).',
      );
    }
    return this.#reporting(
      this.#controls.run(() => callAgent(room.localParticipant, agent, method, {})),
    );
  }

  #requireInputAudio(): void {
    if (!this.#options.inputAudioEnabled) {
      throw new ConversationError(
        'input_audio_disabled',
        'Input audio is disabled (inputAudioEnabled: false): use sendText.',
      );
    }
  }

  #connected(): { room: Room; agent: string } {
    if (this.#state !== 'connected' || !this.#room || !this.#agentIdentity) {
      throw new ConversationError('not_connected', `Not connected (state: ${this.#state}).`);
    }
    return { room: this.#room, agent: this.#agentIdentity };
  }

  /** Emits a failed control as `error` too ("control failures also emit typed error events"). */
  #reporting(promise: Promise<void>): Promise<void> {
    return promise.catch((error: unknown) => {
      const failure = toError(error, 'control_failed');
      this.#emit('error', failure);
      throw failure;
    });
  }

  #isAgent(participant: Participant, session: ConversationSession): boolean {
    return isAgentParticipant(participant, session.sessionId);
  }

  #wire(room: Room, session: ConversationSession): void {
    const agentByIdentity = (identity: string) => {
      const participant = room.remoteParticipants.get(identity);
      return participant !== undefined && this.#isAgent(participant, session);
    };
    registerStreams(room, (name, payload) => this.#emit(name, payload), agentByIdentity);
    room
      .on(RoomEvent.Reconnecting, () => {
        if (this.#state === 'connected') this.#setState('reconnecting');
      })
      .on(RoomEvent.Reconnected, () => {
        if (this.#state === 'reconnecting' && !this.#rejoin) this.#setState('connected');
      })
      .on(RoomEvent.Disconnected, (reason) => {
        if (this.#room !== room) return;
        if (this.#state !== 'connecting' && !ENDED_REASONS.has(reason)) {
          this.#emit(
            'error',
            new ConversationError('connection_failed', 'The connection was lost.', {
              retryable: true,
            }),
          );
        }
        this.#abort?.abort();
        void this.#teardown();
      })
      .on(RoomEvent.ParticipantConnected, (participant) => {
        if (!this.#isAgent(participant, session)) return;
        this.#adoptAgent(participant);
        if (this.#state === 'connecting' || this.#state === 'disconnected') return;
        // The Agent again (a job that resumed the session joins under its own identity),
        // possibly before the lost job's participant was seen leaving.
        if (this.#rejoin || participant.identity !== this.#agentIdentity) {
          this.#awaitAgentReturn();
          void this.#agentReturned(room, participant);
        }
      })
      .on(RoomEvent.ParticipantDisconnected, (participant) => {
        if (participant.identity !== this.#agentIdentity || this.#state === 'connecting') return;
        if (participant.attributes[ATTR_SESSION_ENDED]) {
          this.#agentGone('The Agent ended the conversation.');
        } else {
          this.#awaitAgentReturn();
        }
      })
      .on(RoomEvent.ParticipantAttributesChanged, (_changed, participant) => {
        if (participant.identity === this.#agentIdentity) this.#readAgentAttributes(participant);
      })
      .on(RoomEvent.TrackSubscribed, (track: RemoteTrack, _publication, participant) => {
        if (track.kind !== Track.Kind.Audio || !this.#isAgent(participant, session)) return;
        if (this.#options.audioPlayback) this.#playback.attach(track as never);
        this.#emit('remoteAudioTrack', { track: track.mediaStreamTrack });
      })
      .on(RoomEvent.TrackUnsubscribed, (track: RemoteTrack) => {
        if (track.kind === Track.Kind.Audio) this.#playback.detach(track as never);
      });
  }

  /** The Agent's job was lost: keep the room, `reconnecting`, until it joins again. */
  #awaitAgentReturn(): void {
    if (this.#rejoin) return;
    const timer = setTimeout(
      () => this.#agentGone('The Agent did not come back in time.'),
      this.#options.agentRejoinTimeoutMs,
    );
    this.#rejoin = { timer, mode: this.#inputMode };
    this.#agentState = null;
    this.#setState('reconnecting');
  }

  /**
   * The Agent joined again from a new job: it becomes the conversation's Agent, the user's
   * input mode is set on it (the new job starts with the Agent's default), then the
   * conversation is `connected` again. Its audio track arrives through `TrackSubscribed`,
   * as at the start.
   */
  async #agentReturned(room: Room, participant: RemoteParticipant): Promise<void> {
    const rejoin = this.#rejoin;
    const signal = this.#abort?.signal;
    if (!rejoin || !signal) return;
    // From now on the lost job's participant leaving is not the Agent leaving.
    this.#agentIdentity = participant.identity;
    try {
      if (rejoin.mode) {
        const deadline = Date.now() + this.#options.agentRejoinTimeoutMs;
        const { identity } = participant;
        await setInitialMode(this.#controls, room, identity, rejoin.mode, deadline, signal);
      }
    } catch (error) {
      if (this.#rejoin !== rejoin) return; // ended meanwhile (the wait ran out, or disconnect)
      this.#emit('error', toError(error, 'agent_unavailable'));
      void this.disconnect();
      return;
    }
    if (this.#rejoin !== rejoin) return;
    clearTimeout(rejoin.timer);
    this.#rejoin = null;
    this.#inputMode = rejoin.mode;
    this.#readAgentAttributes(participant);
    this.#setState(room.state === RoomConnectionState.Connected ? 'connected' : 'reconnecting');
  }

  /** The conversation is over on the Agent's side: `agent_unavailable`, then disconnected. */
  #agentGone(message: string): void {
    this.#emit('error', new ConversationError('agent_unavailable', message, { retryable: true }));
    void this.disconnect();
  }

  #adoptAgent(participant: RemoteParticipant): void {
    this.#agentIdentity ??= participant.identity;
    if (participant.identity === this.#agentIdentity) this.#readAgentAttributes(participant);
  }

  #readAgentAttributes(participant: Participant): void {
    const { inputMode: mode, agentState: state } = agentAttributes(participant);
    // While connecting or waiting for the Agent's return, the user's requested mode stands.
    if (mode && this.#state !== 'connecting' && !this.#rejoin) this.#inputMode = mode;
    if (state && state !== this.#agentState) {
      this.#agentState = state;
      this.#emit('agentSpeaking', { speaking: state === 'speaking', state });
    }
  }

  /** Adopts the Agent among the room's participants; its identity, or null until it joined. */
  #findAgent(room: Room): string | null {
    for (const participant of room.remoteParticipants.values()) {
      if (this.#session && this.#isAgent(participant, this.#session)) {
        this.#adoptAgent(participant);
      }
    }
    return this.#agentIdentity;
  }

  async #teardown(): Promise<void> {
    const room = this.#room;
    this.#room = null;
    this.#abort = null;
    this.#session = null;
    this.#agentIdentity = null;
    this.#inputMode = null;
    this.#agentState = null;
    if (this.#rejoin) clearTimeout(this.#rejoin.timer);
    this.#rejoin = null;
    this.#playback.detachAll();
    if (room) {
      unregisterStreams(room);
      room.removeAllListeners();
      // Stop the capture even if the server is gone, so the browser's microphone light goes off.
      const microphone = room.localParticipant.getTrackPublication(Track.Source.Microphone);
      microphone?.track?.stop();
      await room.disconnect(true).catch(() => undefined);
    }
    this.#setState('disconnected');
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#emit('connectionState', state);
  }

  #emit<K extends keyof ConversationEventMap>(name: K, payload: ConversationEventMap[K]): void {
    this.#emitter.emit(name, payload);
  }
}
