/**
 * Name the capture processor registers under in its AudioWorkletGlobalScope.
 */
export const PCM_CAPTURE_PROCESSOR = 'awp-pcm-capture';

/**
 * Source of the AudioWorklet module that turns captured audio into the socket's PCM. It is
 * shipped as text (loaded from a `blob:` URL, or from a file the app serves for pages whose
 * Content-Security-Policy refuses `blob:` scripts), so no bundler rewrites it and no extra
 * file must be served. Plain JavaScript, self-contained: it only uses what the worklet scope
 * has (`sampleRate`, `AudioWorkletProcessor`, `registerProcessor`).
 *
 * The processor (`processorOptions: {outputRate, chunkSamples}`):
 * - takes the first input's first channel (the node mixes down to mono), at the context's
 *   `sampleRate`;
 * - resamples it to `outputRate` with a polyphase windowed-sinc filter (a Hann window over
 *   8 zero crossings each side, cut off at 92 % of the lower Nyquist frequency, taps
 *   normalised to unity gain), exact for any pair of integer rates; equal rates pass through;
 * - converts to 16-bit integers (clamped; -1 is -32768, 1 is 32767) and posts
 *   `{type: 'audio', pcm: ArrayBuffer}` every `chunkSamples` output samples (transferred);
 * - `{type: 'mute', muted}`: silence replaces the input while muted (the clock goes on);
 * - `{type: 'drain', id, final}`: posts the partial chunk at once, then `{type: 'drained',
 *   id}`; with `final` it first takes the filter's last samples and then stops processing.
 */
export const PCM_CAPTURE_WORKLET_SOURCE = `'use strict';
const ZERO_CROSSINGS = 8;
const CUTOFF = 0.92;

function gcd(a, b) {
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

function sinc(x) {
  if (x === 0) return 1;
  const y = Math.PI * x;
  return Math.sin(y) / y;
}

class AwpPcmEncoder {
  constructor(inputRate, outputRate, chunkSamples) {
    const from = Math.round(inputRate);
    const to = Math.round(outputRate);
    const common = gcd(from, to);
    this.up = to / common;
    this.down = from / common;
    this.passthrough = from === to;
    this.cutoff = Math.min(1, to / from) * CUTOFF;
    this.half = Math.ceil(ZERO_CROSSINGS / this.cutoff);
    this.kernels = new Array(this.up);
    // Input samples by absolute index: buffer[i - start]; indexes below 0 are silence.
    this.buffer = new Float32Array(Math.max(4096, 4 * this.half));
    this.start = -this.half;
    this.length = this.half;
    // The next output sample sits at input position this.position + this.phase / this.up.
    this.position = 0;
    this.phase = 0;
    this.chunkSamples = chunkSamples;
    this.chunk = new Int16Array(chunkSamples);
    this.filled = 0;
    this.ready = [];
  }

  kernel(phase) {
    let taps = this.kernels[phase];
    if (taps) return taps;
    const half = this.half;
    taps = new Float32Array(2 * half);
    const fraction = phase / this.up;
    let sum = 0;
    for (let j = 0; j < 2 * half; j++) {
      const d = j - half + 1 - fraction;
      const window = Math.abs(d) < half ? 0.5 + 0.5 * Math.cos((Math.PI * d) / half) : 0;
      taps[j] = sinc(this.cutoff * d) * window;
      sum += taps[j];
    }
    for (let j = 0; j < taps.length; j++) taps[j] /= sum;
    this.kernels[phase] = taps;
    return taps;
  }

  emit(value) {
    const clamped = value > 1 ? 1 : value < -1 ? -1 : value;
    this.chunk[this.filled++] = Math.round(clamped < 0 ? clamped * 32768 : clamped * 32767);
    if (this.filled === this.chunkSamples) {
      this.ready.push(this.chunk);
      this.chunk = new Int16Array(this.chunkSamples);
      this.filled = 0;
    }
  }

  append(samples) {
    if (this.length + samples.length > this.buffer.length) {
      const grown = new Float32Array(2 * (this.length + samples.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(samples, this.length);
    this.length += samples.length;
  }

  // Computes every output sample whose filter has its input, up to input index last.
  resample(last) {
    const half = this.half;
    const buffer = this.buffer;
    const available = this.start + this.length - 1;
    while (this.position + half <= available && this.position <= last) {
      const taps = this.kernel(this.phase);
      const base = this.position - half + 1 - this.start;
      let acc = 0;
      for (let j = 0; j < taps.length; j++) acc += buffer[base + j] * taps[j];
      this.emit(acc);
      this.phase += this.down;
      this.position += Math.floor(this.phase / this.up);
      this.phase %= this.up;
    }
    const drop = this.position - half + 1 - this.start;
    if (drop > 0) {
      buffer.copyWithin(0, drop, this.length);
      this.length -= drop;
      this.start += drop;
    }
  }

  // Float samples in [-1, 1]; returns the chunks completed.
  push(samples) {
    if (this.passthrough) {
      for (let i = 0; i < samples.length; i++) this.emit(samples[i]);
    } else {
      this.append(samples);
      this.resample(Infinity);
    }
    return this.take();
  }

  take() {
    const ready = this.ready;
    this.ready = [];
    return ready;
  }

  // The partial chunk, if any (the filter keeps its state).
  drain() {
    if (this.filled === 0) return null;
    const rest = this.chunk.slice(0, this.filled);
    this.filled = 0;
    return rest;
  }

  // The end of the input: the output samples the filter still held, then the partial chunk.
  finish() {
    if (!this.passthrough) {
      const last = this.start + this.length - 1;
      this.append(new Float32Array(this.half + 1));
      this.resample(last);
    }
    const chunks = this.take();
    const rest = this.drain();
    if (rest) chunks.push(rest);
    return chunks;
  }
}

class AwpPcmCaptureProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const settings = (options && options.processorOptions) || {};
    this.encoder = new AwpPcmEncoder(sampleRate, settings.outputRate, settings.chunkSamples);
    this.muted = false;
    this.ended = false;
    this.silence = new Float32Array(128);
    this.port.onmessage = (event) => this.command(event.data);
  }

  command(message) {
    if (!message || this.ended) return;
    if (message.type === 'mute') {
      this.muted = message.muted === true;
    } else if (message.type === 'drain') {
      if (message.final) {
        for (const chunk of this.encoder.finish()) this.post(chunk);
        this.ended = true;
      } else {
        const rest = this.encoder.drain();
        if (rest) this.post(rest);
      }
      this.port.postMessage({ type: 'drained', id: message.id });
    }
  }

  post(chunk) {
    this.port.postMessage({ type: 'audio', pcm: chunk.buffer }, [chunk.buffer]);
  }

  process(inputs) {
    if (this.ended) return false;
    const input = inputs[0];
    const channel = input && input[0];
    if (channel && channel.length > 0) {
      let samples = channel;
      if (this.muted) {
        if (this.silence.length !== channel.length) this.silence = new Float32Array(channel.length);
        samples = this.silence;
      }
      for (const chunk of this.encoder.push(samples)) this.post(chunk);
    }
    return true;
  }
}

registerProcessor(${JSON.stringify(PCM_CAPTURE_PROCESSOR)}, AwpPcmCaptureProcessor);
`;
