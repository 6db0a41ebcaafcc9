// Worker thread owning one onnxruntime session: runs stay off the api event loop
// (InferenceSession.run is synchronous on the calling thread in onnxruntime-node).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import {
  type InferenceJobMessage,
  type InferenceWorkerData,
  type InferenceWorkerMessage,
  KOKORO_FRAME_SAMPLES,
} from './inference-protocol.ts';
import { CLAUSE_MAX_TAIL_MS, DEFAULT_SEAMS, SEAM_TAIL_MS, shapeChunk } from './seams.ts';

const data = workerData as InferenceWorkerData;
const port = parentPort;
if (!port) throw new Error('inference-worker must run in a worker thread');
const post = (message: InferenceWorkerMessage, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function load(): Promise<ort.InferenceSession> {
  const actual = await sha256(data.modelPath);
  if (actual !== data.modelSha256) {
    throw new Error(
      `Kokoro model file ${data.modelPath} is corrupt (sha256 ${actual}, expected ${data.modelSha256}); run \`bash scripts/install-kokoro.sh\` with AWP_KOKORO_FORCE=1`,
    );
  }
  return ort.InferenceSession.create(data.modelPath, {
    intraOpNumThreads: data.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    // onnxruntime's threads otherwise spin between operators and after each run, burning
    // CPU the other engines and the api need (10-15% of this model's CPU, measured here).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
}

let session: ort.InferenceSession;
try {
  session = await load();
  // The first run pays for lazy kernel set-up (about a second): pay it before serving.
  await session.run({
    tokens: new ort.Tensor('int64', BigInt64Array.of(0n, 50n, 83n, 54n, 0n), [1, 5]),
    style: new ort.Tensor('float32', new Float32Array(256), [1, 256]),
    speed: new ort.Tensor('float32', Float32Array.of(1), [1]),
  });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', message: (error as Error).message });
  port.close();
  throw error;
}

port.on('message', async (job: InferenceJobMessage) => {
  try {
    const started = performance.now();
    const tokens = BigInt64Array.from(job.tokens, (id) => BigInt(id));
    const output = await session.run({
      tokens: new ort.Tensor('int64', tokens, [1, tokens.length]),
      style: new ort.Tensor('float32', job.style, [1, job.style.length]),
      speed: new ort.Tensor('float32', Float32Array.of(job.speed), [1]),
    });
    const audio = output.audio?.data as Float32Array;
    const durations = Uint16Array.from(output.durations?.data as Float32Array);
    const total = durations.reduce((sum, frames) => sum + frames, 0);
    if (durations.length !== tokens.length || total * KOKORO_FRAME_SAMPLES !== audio.length) {
      throw new Error(
        `model durations (${durations.length} tokens, ${total} frames) do not match its input (${tokens.length} tokens) and audio (${audio.length} samples)`,
      );
    }
    // The trailing pad starts where the last token's frames begin.
    const atPunctuation = job.seam === 'pause' || job.seam === 'clause';
    const pauseEnd = atPunctuation ? (total - (durations.at(-1) ?? 0)) * KOKORO_FRAME_SAMPLES : 0;
    const shaped = shapeChunk(
      audio,
      {
        ...DEFAULT_SEAMS,
        tailMs: SEAM_TAIL_MS[job.seam],
        ...(job.seam === 'clause' ? { maxTailMs: CLAUSE_MAX_TAIL_MS } : {}),
        sampleRateHz: data.sampleRateHz,
      },
      pauseEnd,
    );
    const computeMs = performance.now() - started;
    post(
      {
        type: 'done',
        id: job.id,
        pcm: shaped.pcm.buffer as ArrayBuffer,
        rawSamples: audio.length,
        trimmedSamples: shaped.start,
        durations,
        computeMs,
      },
      [shaped.pcm.buffer as ArrayBuffer, durations.buffer as ArrayBuffer],
    );
  } catch (error) {
    post({ type: 'error', id: job.id, message: (error as Error).message });
  }
});
