// The Agent's side of docs/agent-protocol.md, played by a test peer over @livekit/rtc-node:
// it joins as `agent-<session_id>` (kind agent), keeps `lk.agent.state` and `awp.input_mode`,
// registers the awp.* RPC methods, answers `lk.chat` and committed push-to-talk turns with
// `lk.transcription` captions and `awp.transcript` turns, publishes an audio track and
// measures the user's microphone audio. Library tests run against it; the real worker is
// tested end to end elsewhere.

import {
  AudioFrame,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  Room,
  RoomEvent,
  RpcError,
  type RpcInvocationData,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { AccessToken } from 'livekit-server-sdk';
import type { LivekitServer } from '../../../helpers/livekit.ts';
import type { StubSession } from './session-stub.ts';

const SAMPLE_RATE_HZ = 48_000;
const FRAME_SAMPLES = 480; // 10 ms

export interface PeerLog {
  /** RPC calls in arrival order. */
  rpcs: { method: string; payload: unknown }[];
  /** `lk.chat` texts with their attributes. */
  chats: { text: string; attributes: Record<string, string> }[];
  /** User audio frames received, and the loudest sample seen (0..1). */
  userAudioFrames: number;
  userAudioPeak: number;
  /** The RPC methods that had arrived when the user's microphone track reached the peer. */
  rpcsBeforeMicrophone: string[] | undefined;
  /** Background work (replies, captions, audio) that failed while the peer was still in the room. */
  failures: string[];
}

function rpcError(code: string, detail: string): RpcError {
  return new RpcError(RpcError.ErrorCode.APPLICATION_ERROR, JSON.stringify({ code, detail }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ProtocolPeer {
  readonly log: PeerLog = {
    rpcs: [],
    chats: [],
    userAudioFrames: 0,
    userAudioPeak: 0,
    rpcsBeforeMicrophone: undefined,
    failures: [],
  };
  readonly room = new Room();
  #mode = 'push-to-talk';
  #capturing = false;
  #closed = false;
  #turn = 0;

  private constructor(readonly session: StubSession) {}

  /**
   * Joins the session's room as its Agent: by default as the session's first job
   * (`agent-<session_id>`), or under `identity` (a job that resumed the session).
   */
  static async join(
    livekit: LivekitServer,
    session: StubSession,
    options: { identity?: string } = {},
  ): Promise<ProtocolPeer> {
    const peer = new ProtocolPeer(session);
    const access = new AccessToken(livekit.apiKey, livekit.apiSecret, {
      identity: options.identity ?? `agent-${session.sessionId}`,
      ttl: '15m',
    });
    access.kind = 'agent';
    access.addGrant({
      roomJoin: true,
      room: session.room,
      agent: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: true,
      // Attributes (lk.agent.state, awp.input_mode) are the participant's own metadata.
      canUpdateOwnMetadata: true,
    });
    // Streams open in the order the client sent them, but their bodies can finish
    // reading out of order: each chat is logged in opening order and answered at once.
    let opened = Promise.resolve();
    peer.room.registerTextStreamHandler('lk.chat', (reader) => {
      const attributes = reader.info.attributes ?? {};
      // Handled at once: a body cut by the room closing must not wait unhandled in the chain.
      const text = reader.readAll().catch(() => undefined);
      opened = opened.then(async () => {
        const body = await text;
        if (body === undefined) return; // the room closed while the body was arriving
        peer.log.chats.push({ text: body, attributes });
        peer.#background(peer.#onChat(body, attributes));
      });
    });
    peer.room.on(RoomEvent.TrackSubscribed, (track) => {
      if (track.kind !== TrackKind.KIND_AUDIO) return;
      peer.log.rpcsBeforeMicrophone ??= peer.log.rpcs.map((rpc) => rpc.method);
      peer.#background(peer.#measure(track));
    });
    try {
      await peer.room.connect(livekit.url, await access.toJwt(), {
        autoSubscribe: true,
        dynacast: false,
      });
      // rtc-node has a local participant only once connected.
      peer.#registerMethods();
      await peer.room.localParticipant!.setAttributes({
        'lk.agent.state': 'listening',
        'awp.input_mode': peer.#mode,
      });
      await peer.#publishVoice();
    } catch (error) {
      // A join that failed half-way leaves the room: no connected Room outlives the test.
      await peer.leave().catch(() => undefined);
      throw error;
    }
    return peer;
  }

  /**
   * Leaves the room. With `endedReason`, first marks the session over (`awp.session_ended`,
   * as the worker does at a deliberate end): the client reports `agent_unavailable` at once.
   * Without it, the leave is a lost job's: the client waits for the Agent to join again.
   */
  async leave(options: { endedReason?: string } = {}): Promise<void> {
    // A second disconnect makes rtc-node reject an internal promise nobody awaits.
    if (this.#closed) return;
    if (options.endedReason) {
      await this.room.localParticipant!.setAttributes({ 'awp.session_ended': options.endedReason });
    }
    this.#closed = true;
    await this.room.disconnect();
  }

  /**
   * Runs work nobody awaits. rtc-node aborts every pending call when the room disconnects
   * (a test leaving mid-reply); that is expected and dropped, any other failure is logged.
   */
  #background(task: Promise<void>): void {
    task.catch((error: unknown) => {
      if (this.#closed || !this.room.isConnected) return;
      this.log.failures.push(error instanceof Error ? error.message : String(error));
    });
  }

  #registerMethods(): void {
    const local = () => this.room.localParticipant!;
    const register = (
      method: string,
      handle: (payload: Record<string, unknown>) => Promise<void> | void,
    ) =>
      local().registerRpcMethod(method, async (data: RpcInvocationData) => {
        const payload = JSON.parse(data.payload) as Record<string, unknown>;
        this.log.rpcs.push({ method, payload });
        await handle(payload);
        return JSON.stringify({ ok: true });
      });
    register('awp.input_mode', async ({ mode }) => {
      if (mode !== 'push-to-talk' && mode !== 'automatic') {
        throw rpcError('invalid_request', 'mode must be push-to-talk or automatic');
      }
      this.#mode = mode;
      await local().setAttributes({ 'awp.input_mode': mode });
    });
    register('awp.ptt.start', () => {
      if (this.#mode !== 'push-to-talk') throw rpcError('invalid_request', 'not in push-to-talk');
      this.#capturing = true;
    });
    register('awp.ptt.commit', () => {
      if (!this.#capturing) throw rpcError('invalid_request', 'no turn was started');
      this.#capturing = false;
      // After the reply, like a worker that answers the committed turn.
      setTimeout(() => this.#background(this.#answerVoiceTurn()), 50);
    });
    register('awp.ptt.cancel', () => {
      this.#capturing = false;
    });
    register('awp.interrupt', async () => {
      await local().setAttributes({ 'lk.agent.state': 'listening' });
    });
  }

  #userTrackSid(): string | undefined {
    const user = this.room.remoteParticipants.get(this.session.userIdentity);
    return [...(user?.trackPublications.values() ?? [])].find(
      (p) => p.kind === TrackKind.KIND_AUDIO,
    )?.sid;
  }

  async #caption(
    segmentId: string,
    identity: string,
    parts: string[],
    final: boolean,
    trackId?: string,
  ) {
    const writer = await this.room.localParticipant!.streamText({
      topic: 'lk.transcription',
      senderIdentity: identity,
      attributes: {
        'lk.segment_id': segmentId,
        'lk.transcription_final': String(final),
        ...(trackId ? { 'lk.transcribed_track_id': trackId } : {}),
      },
    });
    for (const part of parts) {
      await writer.write(part);
      await sleep(20);
    }
    await writer.close();
  }

  async #sendJson(topic: string, value: object): Promise<void> {
    await this.room.localParticipant!.sendText(JSON.stringify(value), { topic });
  }

  async #answerVoiceTurn(): Promise<void> {
    const turn = ++this.#turn;
    const trackId = this.#userTrackSid();
    // Interim then final caption of the user's speech, each a whole-text stream.
    await this.#caption(`user-seg-${turn}`, this.session.userIdentity, ['hello'], false, trackId);
    await this.#caption(
      `user-seg-${turn}`,
      this.session.userIdentity,
      ['hello agent'],
      true,
      trackId,
    );
    await this.#sendJson('awp.transcript', {
      id: `msg-user-${turn}`,
      role: 'user',
      text: 'hello agent',
      final: true,
    });
    await this.#reply(turn, 'Hi there, how can I help?', true);
  }

  async #reply(turn: number, text: string, audio: boolean): Promise<void> {
    const local = this.room.localParticipant!;
    // Spaced like a real turn, so each state reaches the client as its own change.
    await local.setAttributes({ 'lk.agent.state': 'thinking' });
    await sleep(150);
    if (audio) await local.setAttributes({ 'lk.agent.state': 'speaking' });
    await sleep(150);
    const words = text.split(/(?= )/);
    await this.#caption(`agent-seg-${turn}`, local.identity, words, true);
    await this.#sendJson('awp.transcript', {
      id: `msg-agent-${turn}`,
      role: 'agent',
      text,
      final: true,
    });
    await local.setAttributes({ 'lk.agent.state': 'listening' });
  }

  async #onChat(text: string, attributes: Record<string, string>): Promise<void> {
    const turn = ++this.#turn;
    await this.#sendJson('awp.transcript', {
      id: `msg-user-${turn}`,
      role: 'user',
      text,
      final: true,
    });
    if (text === 'stay quiet') {
      await this.#sendJson('awp.declined', { reason: 'asked to stay quiet' });
      return;
    }
    if (text === 'fail please') {
      await this.#sendJson('awp.error', {
        code: 'provider_unavailable',
        detail: 'voice down',
        retryable: true,
      });
      return;
    }
    await this.#reply(turn, `You said: ${text}`, attributes['awp.audio_response'] !== 'false');
  }

  /** A quiet 220 Hz tone as the Agent's voice, so the client subscribes to a real track. */
  async #publishVoice(): Promise<void> {
    const source = new AudioSource(SAMPLE_RATE_HZ, 1);
    const track = LocalAudioTrack.createAudioTrack('agent-voice', source);
    await this.room.localParticipant!.publishTrack(
      track,
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );
    void (async () => {
      let phase = 0;
      while (!this.#closed) {
        const samples = new Int16Array(FRAME_SAMPLES);
        for (let i = 0; i < FRAME_SAMPLES; i++, phase++) {
          samples[i] = Math.round(Math.sin((2 * Math.PI * 220 * phase) / SAMPLE_RATE_HZ) * 3000);
        }
        await source
          .captureFrame(new AudioFrame(samples, SAMPLE_RATE_HZ, 1, FRAME_SAMPLES))
          .catch(() => {
            this.#closed = true;
          });
      }
      await source.close().catch(() => undefined);
    })();
  }

  async #measure(track: ConstructorParameters<typeof AudioStream>[0]): Promise<void> {
    const reader = new AudioStream(track).getReader();
    for (;;) {
      const { value: frame, done } = await reader.read();
      if (done || this.#closed) break;
      this.log.userAudioFrames++;
      let peak = 0;
      for (const sample of frame.data) peak = Math.max(peak, Math.abs(sample) / 32768);
      this.log.userAudioPeak = Math.max(this.log.userAudioPeak, peak);
    }
    reader.releaseLock();
  }
}
