import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../observability/logger.ts';
import { BufferedSttStream } from '../buffered-stream.ts';
import { SttError } from '../errors.ts';
import type {
  SttCapabilities,
  SttOptions,
  SttProvider,
  SttStream,
  SttTranscript,
} from '../provider.ts';
import { STT_CAPABILITIES } from '../provider.ts';
import { sidecarScriptPath } from './paths.ts';
import { WhisperSidecar } from './sidecar-client.ts';

export interface EmbeddedSttOptions {
  pythonPath: string;
  modelDir: string;
  beamSize: number;
  threads: number;
  minWindowS: number;
  maxQueue: number;
  requestTimeoutMs: number;
  startTimeoutMs: number;
  restartBackoffMs?: { initial: number; max: number };
  logger: Logger;
}

/**
 * Whisper through faster-whisper in a supervised sidecar process. Whisper is not a
 * streaming recognizer: streams buffer each utterance and transcribe it at `flush()`
 * (finals only; interim re-transcription was measured too slow here, see docs/decisions.md).
 */
export class EmbeddedSttProvider implements SttProvider {
  readonly name = 'embedded' as const;
  readonly capabilities: SttCapabilities = STT_CAPABILITIES.embedded;
  readonly #sidecar: WhisperSidecar;
  readonly #log: Logger;

  /** Throws `not_configured` when the venv or the weights are missing. */
  constructor(options: EmbeddedSttOptions) {
    if (!existsSync(options.pythonPath)) {
      throw new SttError(
        'not_configured',
        `the speech-to-text venv is missing (${options.pythonPath}); run scripts/install-whisper.sh`,
      );
    }
    if (!existsSync(join(options.modelDir, 'model.bin'))) {
      throw new SttError(
        'not_configured',
        `no Whisper weights in ${options.modelDir}; run scripts/install-whisper.sh`,
      );
    }
    this.#sidecar = new WhisperSidecar({ ...options, scriptPath: sidecarScriptPath() });
    this.#log = options.logger;
  }

  /** The sidecar (for the worker's prewarm and for supervision tests). */
  get sidecar(): WhisperSidecar {
    return this.#sidecar;
  }

  /** Starts the sidecar now rather than on the first utterance (it loads for 2-3 s). */
  warmUp(): Promise<void> {
    return this.#sidecar.start();
  }

  stream(options: SttOptions, signal: AbortSignal): SttStream {
    // Early starts cost only this machine's CPU (docs/decisions.md, "early transcription").
    return new BufferedSttStream(
      (samples, o, s) => this.transcribe(samples, o, s),
      options,
      signal,
      {
        earlyStart: true,
        onEarlyStart: (outcome) => this.#log.info({ outcome }, 'stt early start'),
      },
    );
  }

  async transcribe(
    samples: Int16Array,
    options: SttOptions,
    signal: AbortSignal,
  ): Promise<SttTranscript> {
    const request: { language?: string; prompt?: string } = {};
    if (options.language !== undefined) request.language = options.language;
    if (options.prompt !== undefined) request.prompt = options.prompt;
    const result = await this.#sidecar.transcribe(samples, request, signal);
    return {
      text: result.text,
      language: result.language,
      startMs: 0,
      endMs: result.durationMs,
      confidence: result.confidence,
    };
  }

  close(): Promise<void> {
    return this.#sidecar.close();
  }
}
