// Types for the parts of @echogarden/speex-resampler-wasm that media/speex-resampler.ts uses.
// The package ships an Emscripten build of SpeexDSP's resampler without declarations; the
// signatures follow speex_resampler.h (pointers are byte offsets into the WASM heap).

declare module '@echogarden/speex-resampler-wasm' {
  export interface SpeexResamplerWasm {
    HEAP16: Int16Array;
    HEAPU32: Uint32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _speex_resampler_init(
      channels: number,
      inRate: number,
      outRate: number,
      quality: number,
      errorPointer: number,
    ): number;
    _speex_resampler_destroy(state: number): void;
    _speex_resampler_process_int(
      state: number,
      channelIndex: number,
      inPointer: number,
      inLengthPointer: number,
      outPointer: number,
      outLengthPointer: number,
    ): number;
    _speex_resampler_skip_zeros(state: number): number;
    _speex_resampler_reset_mem(state: number): number;
    _speex_resampler_get_input_latency(state: number): number;
  }
  const createModule: () => Promise<SpeexResamplerWasm>;
  export default createModule;
}

declare module '@echogarden/speex-resampler-wasm/simd' {
  import type { SpeexResamplerWasm } from '@echogarden/speex-resampler-wasm';

  const createModule: () => Promise<SpeexResamplerWasm>;
  export default createModule;
}
