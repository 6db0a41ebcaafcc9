import { randomUUID } from 'node:crypto';
import { getMaxListeners, setMaxListeners } from 'node:events';
import { type APIConnectOptions, APIError, tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import WebSocket from 'ws';
import type { SpokenWord } from '../agent-session/playout.ts';

/** Sample rate asked of `/v1/tts/stream` (`pcm_48000`): LiveKit's own rate, no resampling. */
export const TTS_SAMPLE_RATE_HZ = 48_000;
const OUTPUT_FORMAT = 'pcm_48000';
/** Frames handed to LiveKit: 20 ms, so an interruption drops little already queued audio. */
const FRAME_SAMPLES = TTS_SAMPLE_RATE_HZ / 50;
/**
 * Listeners a reply's abort signal may hold before Node warns. The framework adds one or two
 * per sentence to the reply's signal and leaves them for the reply's lifetime, so a reply of
 * more than five sentences printed `MaxListenersExceededWarning` ("possible memory leak")
 * though nothing leaks: they go with the reply.
 */
const REPLY_SIGNAL_LISTENERS = 1000;

export interface AwpTtsOptions {
  /** `ws(s)://host/v1/tts/stream` of the api (by the session's environment). */
  streamUrl: string;
  /** A fresh agent speech token for the session (2 minutes each). */
  token: () => Promise<string>;
  voiceId: string;
  /** Ledger correlation of every utterance (`partner_session_id`). */
  partnerSessionId: string;
  /** Characters the api confirmed synthesized, per utterance (its `usage` event). */
  onUsage?: (chars: number) => void;
  /**
   * Audio of one sentence handed to LiveKit (playout accounting). `order` is the sentence's
   * place in synthesis order, which is play order; audio of concurrent sentences interleaves.
   */
  onAudio?: (order: number, text: string, samples: number) => void;
  /**
   * Words of one sentence timed in its audio (when the voice aligns: `word_alignment`), in
   * speaking order, as they become known with the audio.
   */
  onWords?: (order: number, text: string, words: readonly SpokenWord[]) => void;
}

/** One word timing of the stream's `audio` events (`alignment: "word"`). */
interface StreamTiming {
  text: string;
  start_ms: number;
  end_ms: number;
}

/**
 * The api's refusal of `alignment` for a voice that cannot time its words: the sentence is
 * asked again without it, and so is every later one of the session.
 */
class AlignmentRefused extends Error {}

/**
 * Agent speech through the api's own `/v1/tts/stream`: one WebSocket request per sentence
 * (the framework's sentence adapter splits replies), so the ledger and the workspace
 * credit see every agent utterance exactly as any other synthesis. Aborting a request
 * (barge-in) closes the socket; the api then charges only what it synthesized.
 */
export class AwpTts extends tts.TTS {
  label = 'awp.tts.stream';

  /**
   * While true, replies are not synthesized (text-only answers): the sentences complete at
   * once without audio, so nothing is spoken or billed for them.
   */
  muted = false;

  /**
   * Whether the voice times its words: unknown until the first sentence, which asks for
   * word alignment; a refusal (`invalid_request`) turns it off for the session.
   */
  aligns: boolean | undefined;

  #sentences = 0;

  constructor(readonly options: AwpTtsOptions) {
    super(TTS_SAMPLE_RATE_HZ, 1, { streaming: false });
  }

  override get model(): string {
    return this.options.voiceId;
  }

  override get provider(): string {
    return 'awp';
  }

  synthesize(
    text: string,
    connOptions?: APIConnectOptions,
    abortSignal?: AbortSignal,
  ): tts.ChunkedStream {
    if (abortSignal && getMaxListeners(abortSignal) < REPLY_SIGNAL_LISTENERS) {
      setMaxListeners(REPLY_SIGNAL_LISTENERS, abortSignal);
    }
    return new AwpChunkedStream(this, text, connOptions, abortSignal);
  }

  /** @internal The next sentence's place in synthesis order (= play order). */
  nextSentence(): number {
    this.#sentences += 1;
    return this.#sentences;
  }

  stream(): tts.SynthesizeStream {
    throw new Error('AwpTts synthesizes per sentence; the framework wraps it in a StreamAdapter');
  }
}

class AwpChunkedStream extends tts.ChunkedStream {
  label = 'awp.tts.stream';
  readonly #owner: AwpTts;
  readonly #text: string;
  /** Taken at construction: the framework creates sentences' streams in play order. */
  readonly #order: number;

  constructor(
    owner: AwpTts,
    text: string,
    connOptions: APIConnectOptions | undefined,
    abortSignal: AbortSignal | undefined,
  ) {
    super(text, owner, connOptions, abortSignal);
    this.#owner = owner;
    this.#text = text;
    this.#order = owner.nextSentence();
  }

  protected async run(): Promise<void> {
    const text = this.#text.trim();
    const signal = this.abortController.signal;
    if (text === '' || this.#owner.muted || signal.aborted) return;
    try {
      const aligned = this.#owner.aligns !== false;
      try {
        await this.#speak(text, aligned);
        if (aligned) this.#owner.aligns = true;
      } catch (error) {
        if (!(error instanceof AlignmentRefused)) throw error;
        this.#owner.aligns = false;
        await this.#speak(text, false);
      }
    } finally {
      this.queue.close();
    }
  }

  /**
   * One request to `/v1/tts/stream` for `text`, its audio queued in 20 ms frames and, when
   * `aligned`, its word timings reported as they come.
   */
  async #speak(text: string, aligned: boolean): Promise<void> {
    const { options } = this.#owner;
    const signal = this.abortController.signal;
    const url = new URL(options.streamUrl);
    url.searchParams.set('token', await options.token());
    // Interrupted while the token came (barge-in): the sentence is not spoken, so it is
    // neither synthesized nor billed. From here the abort listener is in place.
    if (signal.aborted) return;
    const socket = new WebSocket(url, { perMessageDeflate: false });
    const onAbort = () => socket.close(1000);
    signal.addEventListener('abort', onAbort, { once: true });
    const frames = this.#framer(text);
    const words = wordLocator(text);
    let audioSeen = false;
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => {
          socket.send(
            JSON.stringify({
              event: 'start',
              request: {
                voice_id: options.voiceId,
                output_format: OUTPUT_FORMAT,
                partner_session_id: options.partnerSessionId,
                ...(aligned ? { alignment: 'word' } : {}),
              },
            }),
          );
          socket.send(JSON.stringify({ event: 'text', text }));
          socket.send(JSON.stringify({ event: 'stop' }));
        });
        socket.on('message', (data) => {
          const event = JSON.parse(data.toString()) as StreamEvent;
          if (event.event === 'audio') {
            audioSeen = true;
            if (event.audio) frames.add(Buffer.from(event.audio, 'base64'));
            const timed = words(event.timings ?? []);
            if (timed.length > 0) options.onWords?.(this.#order, text, timed);
          } else if (event.event === 'usage' && event.usage) {
            options.onUsage?.(event.usage.chars);
          } else if (event.event === 'finish') {
            frames.end();
            resolve();
          } else if (event.event === 'error') {
            reject(streamError(event, aligned && !audioSeen));
          }
        });
        socket.once('unexpected-response', (_request, response) =>
          reject(new APIError(`the speech stream refused the worker: HTTP ${response.statusCode}`)),
        );
        socket.once('error', (error) => reject(error));
        socket.once('close', () => {
          if (signal.aborted) resolve();
          else reject(new APIError('the speech stream closed before its finish event'));
        });
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        socket.terminate();
      }
    }
  }

  /** Cuts the sentence's PCM into 20 ms frames for LiveKit, counting each for playout. */
  #framer(text: string): { add(pcm: Buffer): void; end(): void } {
    const { options } = this.#owner;
    const requestId = randomUUID();
    let pending = Buffer.alloc(0);
    const emit = (final: boolean) => {
      while (pending.byteLength >= FRAME_SAMPLES * 2 || (final && pending.byteLength >= 2)) {
        const bytes = Math.min(pending.byteLength - (pending.byteLength % 2), FRAME_SAMPLES * 2);
        const samples = new Int16Array(bytes / 2);
        for (let i = 0; i < samples.length; i++) samples[i] = pending.readInt16LE(i * 2);
        pending = pending.subarray(bytes);
        options.onAudio?.(this.#order, text, samples.length);
        this.queue.put({
          requestId,
          segmentId: requestId,
          frame: new AudioFrame(samples, TTS_SAMPLE_RATE_HZ, 1, samples.length),
          final: false,
        });
      }
    };
    return {
      add: (pcm) => {
        pending = Buffer.concat([pending, pcm]);
        emit(false);
      },
      end: () => emit(true),
    };
  }
}

interface StreamEvent {
  event: string;
  audio?: string;
  timings?: StreamTiming[];
  code?: string;
  detail?: string;
  retryable?: boolean;
  usage?: { chars: number };
}

/**
 * The error of a failed request; `AlignmentRefused` when the api refused the word
 * alignment it was asked for (`refusable`: before any audio) because the voice lacks it.
 */
function streamError(event: StreamEvent, refusable: boolean): Error {
  if (refusable && event.code === 'invalid_request' && /word_alignment/.test(event.detail ?? '')) {
    return new AlignmentRefused(event.detail);
  }
  return new APIError(`speech synthesis failed: ${event.code}: ${event.detail ?? ''}`, {
    retryable: event.retryable === true,
  });
}

/**
 * Places the stream's word timings in `text`: each word is looked up after the previous
 * one (the timings carry the word as it appears in the text, in speaking order).
 */
function wordLocator(text: string): (timings: readonly StreamTiming[]) => SpokenWord[] {
  let cursor = 0;
  return (timings) => {
    const words: SpokenWord[] = [];
    for (const timing of timings) {
      const at = text.indexOf(timing.text, cursor);
      if (at < 0 || timing.text === '') continue;
      cursor = at + timing.text.length;
      words.push({ textStart: at, textEnd: cursor, startMs: timing.start_ms });
    }
    return words;
  };
}
