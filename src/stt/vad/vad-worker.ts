// Worker thread owning the Silero voice-activity model: its runs stay off the api event loop
// (InferenceSession.run is synchronous on the calling thread in onnxruntime-node).
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import {
  VAD_WINDOW_SAMPLES,
  type VadReply,
  type VadRequest,
  type VadWorkerData,
} from './protocol.ts';

/** Samples of the previous window Silero v5 reads before each new one. */
const CONTEXT_SAMPLES = 64;

const data = workerData as VadWorkerData;
const port = parentPort;
if (!port) throw new Error('vad-worker must run in a worker thread');
const post = (message: VadReply, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

/** One stream's model state: the recurrent state, the context and a partial window. */
interface StreamState {
  state: Float32Array;
  context: Float32Array;
  partial: Float32Array;
  partialLength: number;
}

const sampleRate = new ort.Tensor('int64', BigInt64Array.of(16_000n));
const streams = new Map<number, StreamState>();

let session: ort.InferenceSession;
try {
  session = await ort.InferenceSession.create(data.modelPath, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    executionProviders: ['cpu'],
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', message: (error as Error).message });
  port.close();
  throw error;
}

async function run(stream: StreamState, window: Float32Array): Promise<number> {
  const input = new Float32Array(CONTEXT_SAMPLES + VAD_WINDOW_SAMPLES);
  input.set(stream.context, 0);
  input.set(window, CONTEXT_SAMPLES);
  const result = await session.run({
    input: new ort.Tensor('float32', input, [1, input.length]),
    state: new ort.Tensor('float32', stream.state, [2, 1, 128]),
    sr: sampleRate,
  });
  const { output, stateN } = result;
  if (!output || !stateN) throw new Error('the Silero model answered without output or state');
  stream.state = new Float32Array(stateN.data as Float32Array);
  stream.context = input.slice(-CONTEXT_SAMPLES);
  return (output.data as Float32Array)[0] ?? 0;
}

// Requests are handled one at a time, in order, so each stream's replies keep its order.
let chain: Promise<void> = Promise.resolve();
port.on('message', (request: VadRequest) => {
  chain = chain
    .then(() => handle(request))
    .catch((error: unknown) => {
      post({ type: 'failed', message: (error as Error).message });
    });
});

async function handle(request: VadRequest): Promise<void> {
  switch (request.type) {
    case 'open':
      streams.set(request.stream, {
        state: new Float32Array(2 * 128),
        context: new Float32Array(CONTEXT_SAMPLES),
        partial: new Float32Array(VAD_WINDOW_SAMPLES),
        partialLength: 0,
      });
      return;
    case 'close':
      streams.delete(request.stream);
      return;
    case 'audio': {
      const stream = streams.get(request.stream);
      const probabilities: number[] = [];
      if (stream) {
        for (const sample of request.samples) {
          stream.partial[stream.partialLength++] = sample / 32_768;
          if (stream.partialLength === VAD_WINDOW_SAMPLES) {
            probabilities.push(await run(stream, stream.partial));
            stream.partialLength = 0;
          }
        }
      }
      const out = Float32Array.from(probabilities);
      post({ type: 'probabilities', stream: request.stream, probabilities: out }, [out.buffer]);
    }
  }
}
