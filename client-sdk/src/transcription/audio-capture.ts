import { TranscriptionError } from './errors.ts';
import { PCM_CAPTURE_PROCESSOR, PCM_CAPTURE_WORKLET_SOURCE } from './worklet-source.ts';

/** What the microphone is asked for, under the app's own constraints. */
const MICROPHONE_DEFAULTS: MediaTrackConstraints = {
  channelCount: 1,
  echoCancellation: true,
  noiseSuppression: true,
};

/** Longest wait for the worklet to answer a drain (a suspended context may never answer). */
const DRAIN_TIMEOUT_MS = 1000;
/** Longest wait for a suspended AudioContext to start running. */
const RESUME_TIMEOUT_MS = 2000;

export interface AudioCaptureOptions {
  /** Audio the app owns; otherwise the microphone is opened. */
  mediaStream: MediaStream | undefined;
  microphone: MediaTrackConstraints | undefined;
  workletUrl: string | undefined;
  /** PCM rate the worklet produces. */
  outputRate: number;
  /** Samples per posted chunk. */
  chunkSamples: number;
  muted: boolean;
  /** One chunk of 16-bit little-endian mono PCM. */
  audio(pcm: ArrayBuffer): void;
  /** The captured track ended by itself (device gone, permission revoked, its source ended); not by `stop()`. */
  ended(): void;
}

/**
 * An AudioContext the page may start: created synchronously inside `start()`, so that a
 * click handler's user activation lets it run, and resumed at once.
 */
export function createAudioContext(): AudioContext {
  const Context = globalThis.AudioContext;
  if (typeof Context !== 'function') {
    throw new TranscriptionError('audio_unavailable', 'This browser has no Web Audio API.');
  }
  let context: AudioContext;
  try {
    context = new Context({ latencyHint: 'interactive' });
  } catch (error) {
    throw new TranscriptionError('audio_unavailable', `No AudioContext: ${String(error)}`, {
      cause: error,
    });
  }
  void context.resume().catch(() => undefined);
  return context;
}

/**
 * The audio source (the microphone the library opens, or the app's stream) through the
 * capture AudioWorklet, which posts PCM chunks at `outputRate`. `close()` releases it: the
 * microphone's track is stopped (the browser's indicator goes off), an app's stream is left
 * running.
 */
export class AudioCapture {
  #drains = 0;
  #closed = false;

  private constructor(
    private readonly context: AudioContext,
    private readonly stream: MediaStream,
    /** The microphone track the library opened; null for an app's stream. */
    readonly microphoneTrack: MediaStreamTrack | null,
    private readonly track: MediaStreamTrack,
    private readonly source: MediaStreamAudioSourceNode,
    private readonly node: AudioWorkletNode,
    private readonly onEnded: () => void,
  ) {}

  /** Opens the source and the worklet; `signal` aborts (and releases) a pending open. */
  static async open(
    context: AudioContext,
    options: AudioCaptureOptions,
    signal: AbortSignal,
  ): Promise<AudioCapture> {
    const owned = options.mediaStream === undefined;
    const stream = options.mediaStream ?? (await openMicrophone(options.microphone));
    const release = () => {
      if (owned) for (const t of stream.getTracks()) t.stop();
    };
    try {
      if (signal.aborted) throw signal.reason;
      const track = stream.getAudioTracks()[0];
      if (!track || track.readyState === 'ended') {
        throw new TranscriptionError(
          'audio_unavailable',
          'The media stream has no live audio track.',
        );
      }
      await loadWorklet(context, options.workletUrl);
      await running(context);
      if (signal.aborted) throw signal.reason;
      const source = context.createMediaStreamSource(new MediaStream([track]));
      const node = new AudioWorkletNode(context, PCM_CAPTURE_PROCESSOR, {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        outputChannelCount: [1],
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: { outputRate: options.outputRate, chunkSamples: options.chunkSamples },
      });
      node.port.onmessage = (event: MessageEvent) => {
        const data = event.data as { type?: string; pcm?: ArrayBuffer };
        if (data?.type === 'audio' && data.pcm) options.audio(data.pcm);
      };
      if (options.muted) node.port.postMessage({ type: 'mute', muted: true });
      source.connect(node);
      // Rendered only when pulled by the destination; the processor writes silence.
      node.connect(context.destination);
      const ended = () => options.ended();
      track.addEventListener('ended', ended);
      return new AudioCapture(context, stream, owned ? track : null, track, source, node, ended);
    } catch (error) {
      release();
      throw error;
    }
  }

  set muted(muted: boolean) {
    if (!this.#closed) this.node.port.postMessage({ type: 'mute', muted });
  }

  /**
   * Resolves once every chunk captured so far was handed to `audio` (the partial chunk
   * included). `final`: the filter's last samples too, and nothing is captured after it.
   */
  drain(final: boolean): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const id = ++this.#drains;
    const { port } = this.node;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, DRAIN_TIMEOUT_MS);
      port.addEventListener('message', answer);
      port.postMessage({ type: 'drain', id, final });
      function answer(event: MessageEvent) {
        const data = event.data as { type?: string; id?: number };
        if (data?.type === 'drained' && data.id === id) done();
      }
      function done() {
        clearTimeout(timer);
        port.removeEventListener('message', answer);
        resolve();
      }
    });
  }

  /** Disconnects the graph, stops the microphone (never an app's track), closes the context. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.track.removeEventListener('ended', this.onEnded);
    this.node.port.onmessage = null;
    this.source.disconnect();
    this.node.disconnect();
    if (this.microphoneTrack) for (const t of this.stream.getTracks()) t.stop();
    await this.context.close().catch(() => undefined);
  }
}

/** Waits until `context` runs: browsers keep audio suspended until the user interacted. */
async function running(context: AudioContext): Promise<void> {
  if (context.state === 'running') return;
  await Promise.race([
    context.resume().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, RESUME_TIMEOUT_MS)),
  ]);
  if ((context.state as AudioContextState) !== 'running') {
    throw new TranscriptionError(
      'audio_unavailable',
      `The browser did not start audio processing (AudioContext ${context.state}): call start() from a user gesture such as a click.`,
      { retryable: true },
    );
  }
}

async function openMicrophone(
  constraints: MediaTrackConstraints | undefined,
): Promise<MediaStream> {
  const media = globalThis.navigator?.mediaDevices;
  if (!media?.getUserMedia) {
    throw new TranscriptionError(
      'microphone_unavailable',
      'The microphone needs a secure context (https, or http on localhost).',
    );
  }
  try {
    return await media.getUserMedia({ audio: { ...MICROPHONE_DEFAULTS, ...constraints } });
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    throw new TranscriptionError(
      'microphone_unavailable',
      `The microphone could not be opened (${name}): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, retryable: name !== 'NotAllowedError' },
    );
  }
}

async function loadWorklet(context: AudioContext, workletUrl: string | undefined): Promise<void> {
  if (!context.audioWorklet) {
    throw new TranscriptionError(
      'audio_unavailable',
      'This page has no AudioWorklet (it needs a secure context: https, or http on localhost).',
    );
  }
  const url =
    workletUrl ??
    URL.createObjectURL(new Blob([PCM_CAPTURE_WORKLET_SOURCE], { type: 'text/javascript' }));
  try {
    await context.audioWorklet.addModule(url);
  } catch (error) {
    throw new TranscriptionError(
      'audio_unavailable',
      `The capture worklet could not be loaded${workletUrl ? ` from ${workletUrl}` : ''}: ${String(error)}. A Content-Security-Policy must allow blob: in script-src, or serve PCM_CAPTURE_WORKLET_SOURCE and pass its URL as workletUrl.`,
      { cause: error },
    );
  } finally {
    if (!workletUrl) URL.revokeObjectURL(url);
  }
}
