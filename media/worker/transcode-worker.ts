import { parentPort } from 'node:worker_threads';
import { MediaError } from '../errors.ts';
import { AudioTranscoder, type TranscoderOptions } from '../transcode.ts';
import type {
  TranscodeCommand,
  TranscodeEvent,
  TranscodeFailure,
  WorkerTranscoderSettings,
} from './protocol.ts';

/**
 * Transcoding worker: runs {@link AudioTranscoder}s for the main thread, which sends PCM
 * and receives encoded bytes (see ./transcode-pool.ts). Encoding never waits for the
 * main thread's consumer here; the main thread applies backpressure itself.
 */
const port = parentPort;
if (!port) throw new Error('transcode-worker runs in a worker thread');

const transcoders = new Map<number, AudioTranscoder>();

function post(event: TranscodeEvent, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(event, transfer);
}

function failureOf(error: unknown): TranscodeFailure {
  if (error instanceof MediaError) return { kind: error.kind, message: error.message };
  return {
    kind: 'encoder_failed',
    message: error instanceof Error ? error.message : String(error),
  };
}

function open(id: number, transcoder: AudioTranscoder): void {
  transcoders.set(id, transcoder);
  void (async () => {
    try {
      for await (const bytes of transcoder.output) {
        const copy = new Uint8Array(bytes.byteLength);
        copy.set(bytes);
        post({ op: 'data', id, bytes: copy.buffer }, [copy.buffer]);
      }
      if (transcoders.delete(id)) post({ op: 'closed', id });
    } catch (error) {
      if (transcoders.delete(id)) post({ op: 'failed', id, failure: failureOf(error) });
    }
  })();
}

function settingsOf(settings: WorkerTranscoderSettings): TranscoderOptions {
  return {
    ...(settings.opusComplexity === undefined ? {} : { opusComplexity: settings.opusComplexity }),
    ...(settings.ffmpegPath === undefined ? {} : { ffmpegPath: settings.ffmpegPath }),
    ...(settings.resamplerQuality === undefined
      ? {}
      : { resampler: { quality: settings.resamplerQuality } }),
  };
}

port.on('message', (command: TranscodeCommand) => {
  switch (command.op) {
    case 'open': {
      try {
        open(
          command.id,
          new AudioTranscoder(command.format, {
            ...settingsOf(command.settings),
            // The main thread holds the backpressure; never stall the worker on it.
            highWaterMarkBytes: Number.MAX_SAFE_INTEGER,
          }),
        );
      } catch (error) {
        post({ op: 'failed', id: command.id, failure: failureOf(error) });
      }
      return;
    }
    case 'write': {
      const transcoder = transcoders.get(command.id);
      if (!transcoder) return;
      const data = Buffer.from(command.pcm);
      transcoder.write({ data, sampleRateHz: command.sampleRateHz }).then(
        () => post({ op: 'written', id: command.id, seq: command.seq }),
        () => {}, // the failure reaches the main thread through the output
      );
      return;
    }
    case 'end':
      transcoders
        .get(command.id)
        ?.end()
        .catch(() => {});
      return;
    case 'abort': {
      const transcoder = transcoders.get(command.id);
      transcoders.delete(command.id);
      transcoder?.abort();
      return;
    }
  }
});
