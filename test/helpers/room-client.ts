// The "browser" of Agent session tests: joins a LiveKit room with @livekit/rtc-node using the
// token the api returned, publishes a microphone, listens to the agent, and reads the text
// streams of docs/agent-protocol.md.

import {
  AudioFrame,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  type RemoteParticipant,
  type RemoteTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { espeakPcm, runProcess } from './audio.ts';

export const ROOM_RATE_HZ = 48_000;
const FRAME_SAMPLES = ROOM_RATE_HZ / 100;

/** When spoken words played out of the microphone (`performance.now()` clock). */
export interface SpokenTimes {
  startMs: number;
  endMs: number;
}

export interface TextMessage {
  topic: string;
  from: string;
  text: string;
  attributes: Record<string, string>;
  atMs: number;
}

/** Real speech for the microphone: espeak-ng resampled to 48 kHz by sox. */
export async function speech(text: string): Promise<Int16Array> {
  const pcm = await espeakPcm(text);
  const raw = ['-t', 'raw', '-e', 'signed', '-b', '16', '-c', '1'];
  const result = await runProcess(
    'sox',
    [...raw, '-r', String(pcm.sampleRateHz), '-', ...raw, '-r', String(ROOM_RATE_HZ), '-'],
    pcm.data,
  );
  if (result.code !== 0) throw new Error(`sox failed: ${result.stderr}`);
  const bytes = result.stdout;
  return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 2));
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length > 0 ? Math.sqrt(sum / samples.length) / 32768 : 0;
}

/** RMS above which an agent audio frame counts as speech (silence frames are ~0). */
export const SPEECH_RMS = 0.01;

/** The 10 ms windows of `samples` louder than {@link SPEECH_RMS}, as [start, end) in samples. */
function loudWindows(samples: Int16Array): [number, number][] {
  const window = ROOM_RATE_HZ / 100;
  const loud: [number, number][] = [];
  for (let offset = 0; offset < samples.length; offset += window) {
    const part = samples.subarray(offset, offset + window);
    if (rms(part) > SPEECH_RMS) loud.push([offset, offset + part.length]);
  }
  return loud;
}

/** Where the first 10 ms louder than {@link SPEECH_RMS} starts in `samples`, in ms. */
export function firstWordStartMs(samples: Int16Array): number {
  return ((loudWindows(samples)[0]?.[0] ?? 0) / ROOM_RATE_HZ) * 1000;
}

/**
 * Where the last 10 ms louder than {@link SPEECH_RMS} ends in `samples`, in ms: the end of
 * the words (espeak-ng's recordings end with about 300 ms of silence).
 */
export function lastWordEndMs(samples: Int16Array): number {
  return ((loudWindows(samples).at(-1)?.[1] ?? 0) / ROOM_RATE_HZ) * 1000;
}

/**
 * Two recordings spoken as one utterance with a pause of exactly `pauseMs` between the
 * last word of `first` and the first word of `second` (each recording's own leading and
 * trailing silence is cut at its words).
 */
export function withPause(first: Int16Array, second: Int16Array, pauseMs: number): Int16Array {
  const firstEnd = Math.round((lastWordEndMs(first) * ROOM_RATE_HZ) / 1000);
  const secondStart = Math.round((firstWordStartMs(second) * ROOM_RATE_HZ) / 1000);
  const pause = Math.round((pauseMs * ROOM_RATE_HZ) / 1000);
  const out = new Int16Array(firstEnd + pause + second.length - secondStart);
  out.set(first.subarray(0, firstEnd));
  out.set(second.subarray(secondStart), firstEnd + pause);
  return out;
}

export class RoomClient {
  readonly room = new Room();
  readonly messages: TextMessage[] = [];
  /** Agent audio frames: arrival time and loudness. */
  readonly agentAudio: { atMs: number; rms: number }[] = [];
  /** The agent's audio as received (48 kHz mono), kept only while `keepAgentPcm` is set. */
  readonly agentPcm: Int16Array[] = [];
  /** When each frame of `agentPcm` arrived. */
  readonly agentPcmAtMs: number[] = [];
  /** Each chunk of every `lk.transcription` stream, as it arrived. */
  readonly captionChunks: {
    from: string;
    attributes: Record<string, string>;
    text: string;
    atMs: number;
  }[] = [];
  keepAgentPcm = false;
  readonly departed: { identity: string; atMs: number }[] = [];
  /** The agent's `lk.agent.state` as it changed, with when the change arrived. */
  readonly agentStates: { state: string; atMs: number }[] = [];
  readonly #source = new AudioSource(ROOM_RATE_HZ, 1);
  #waiters = new Set<() => void>();
  #speaking: Promise<void> = Promise.resolve();

  static async join(url: string, token: string): Promise<RoomClient> {
    const client = new RoomClient();
    await client.#connect(url, token);
    return client;
  }

  async #connect(url: string, token: string): Promise<void> {
    for (const topic of ['awp.transcript', 'awp.declined', 'awp.error', 'lk.transcription']) {
      this.room.registerTextStreamHandler(topic, (reader, info) => {
        const attributes = reader.info.attributes ?? {};
        (async () => {
          let text = '';
          for await (const chunk of reader) {
            text += chunk;
            if (topic === 'lk.transcription') {
              this.captionChunks.push({
                from: info.identity,
                attributes,
                text: chunk,
                atMs: performance.now(),
              });
              this.#wake();
            }
          }
          this.messages.push({
            topic,
            from: info.identity,
            text,
            attributes,
            atMs: performance.now(),
          });
          this.#wake();
        })().catch(() => {});
      });
    }
    this.room.on(
      RoomEvent.TrackSubscribed,
      (track: RemoteTrack, _pub, participant: RemoteParticipant) => {
        if (track.kind !== TrackKind.KIND_AUDIO || !participant.identity.startsWith('agent-')) {
          return;
        }
        const stream = new AudioStream(track, { sampleRate: ROOM_RATE_HZ, numChannels: 1 });
        const reader = stream.getReader();
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            const atMs = performance.now();
            this.agentAudio.push({ atMs, rms: rms(value.data) });
            if (this.keepAgentPcm) {
              this.agentPcm.push(value.data.slice());
              this.agentPcmAtMs.push(atMs);
            }
            this.#wake();
          }
        })().catch(() => {});
      },
    );
    this.room.on(
      RoomEvent.ParticipantAttributesChanged,
      (changed: Record<string, string>, participant) => {
        const state = changed['lk.agent.state'];
        if (state === undefined || !participant.identity.startsWith('agent-')) return;
        this.agentStates.push({ state, atMs: performance.now() });
        this.#wake();
      },
    );
    this.room.on(RoomEvent.ParticipantDisconnected, (participant: RemoteParticipant) => {
      this.departed.push({ identity: participant.identity, atMs: performance.now() });
      this.#wake();
    });
    await this.room.connect(url, token, { autoSubscribe: true, dynacast: false });
    const track = LocalAudioTrack.createAudioTrack('microphone', this.#source);
    const options = new TrackPublishOptions();
    options.source = TrackSource.SOURCE_MICROPHONE;
    await this.room.localParticipant?.publishTrack(track, options);
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
  }

  /** Resolves when `predicate` holds, checked on every event; rejects after `timeoutMs`. */
  waitUntil<T>(
    predicate: () => T | undefined | false,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = predicate();
        if (value) {
          clearTimeout(timer);
          clearInterval(poll);
          this.#waiters.delete(check);
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        clearInterval(poll);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const poll = setInterval(check, 50);
      this.#waiters.add(check);
      check();
    });
  }

  /** Parsed `awp.transcript` turns so far. */
  transcripts(): { id: string; role: string; text: string; final: boolean }[] {
    return this.messages
      .filter((m) => m.topic === 'awp.transcript')
      .map((m) => JSON.parse(m.text) as { id: string; role: string; text: string; final: boolean });
  }

  /**
   * Speaks `samples` into the microphone in real time, then `silenceMs` of silence.
   * Resolves with when the words started and ended playing out of the microphone
   * (`performance.now()` clock): the source queues up to a second ahead of real time, so
   * a frame plays `queuedDuration` after it was captured.
   */
  say(samples: Int16Array, silenceMs = 1500): Promise<SpokenTimes> {
    const spoken = this.#speaking.then(async () => {
      const times = { startMs: 0, endMs: 0 };
      const silence = new Int16Array((ROOM_RATE_HZ * silenceMs) / 1000);
      for (const part of [samples, silence]) {
        for (let offset = 0; offset < part.length; offset += FRAME_SAMPLES) {
          const chunk = new Int16Array(FRAME_SAMPLES);
          chunk.set(part.subarray(offset, offset + FRAME_SAMPLES));
          const playsAt = performance.now() + this.#source.queuedDuration;
          if (part === samples && offset === 0) times.startMs = playsAt;
          await this.#source.captureFrame(new AudioFrame(chunk, ROOM_RATE_HZ, 1, FRAME_SAMPLES));
          if (part === samples) times.endMs = playsAt + 10;
        }
      }
      return times;
    });
    this.#speaking = spoken.then(() => undefined);
    return spoken;
  }

  /** `lk.chat` text, optionally text-only (`awp.audio_response=false`). */
  async sendText(text: string, audioResponse = true): Promise<void> {
    await this.room.localParticipant?.sendText(text, {
      topic: 'lk.chat',
      ...(audioResponse ? {} : { attributes: { 'awp.audio_response': 'false' } }),
    });
  }

  /** Calls an RPC method of the agent; resolves with the parsed reply. */
  async rpc(agentIdentity: string, method: string, payload: object = {}): Promise<unknown> {
    const reply = await this.room.localParticipant?.performRpc({
      destinationIdentity: agentIdentity,
      method,
      payload: JSON.stringify(payload),
      responseTimeout: 10_000,
    });
    return JSON.parse(reply ?? 'null');
  }

  /** When the agent was last heard at or before `atMs` (`atMs` itself if it was silent). */
  lastAgentSpeechAt(atMs: number): number {
    return this.agentAudio.filter((f) => f.atMs <= atMs && f.rms > SPEECH_RMS).at(-1)?.atMs ?? atMs;
  }

  /**
   * Waits for the agent to be heard again after `afterMs` (past the 500 ms of audio already
   * in flight then, as after a crash) and resolves with when.
   */
  agentHeardAgainAfter(afterMs: number, timeoutMs = 10_000): Promise<number> {
    return this.waitUntil(
      () => this.agentAudio.find((f) => f.atMs > afterMs + 500 && f.rms > SPEECH_RMS)?.atMs,
      timeoutMs,
      'agent audio after the crash',
    );
  }

  /** Loud agent frames received after `sinceMs`. */
  loudFramesSince(sinceMs: number): number {
    return this.agentAudio.filter((f) => f.atMs >= sinceMs && f.rms > SPEECH_RMS).length;
  }

  async leave(): Promise<void> {
    await this.room.disconnect();
  }
}

/**
 * A WAV (48 kHz mono 16-bit) of espeak-ng saying `text`, with `leadMs` of silence before
 * and `tailMs` after: what a fake microphone plays, looped, in browser tests.
 */
export async function speechWav(text: string, leadMs = 300, tailMs = 3500): Promise<Buffer> {
  const samples = await speech(text);
  const lead = Math.round((leadMs * ROOM_RATE_HZ) / 1000);
  const tail = Math.round((tailMs * ROOM_RATE_HZ) / 1000);
  const data = Buffer.alloc((lead + samples.length + tail) * 2);
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).copy(data, lead * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(ROOM_RATE_HZ, 24);
  header.writeUInt32LE(ROOM_RATE_HZ * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
