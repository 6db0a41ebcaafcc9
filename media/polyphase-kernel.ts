/**
 * The inner loop of the polyphase resampler as a small WebAssembly SIMD module, assembled
 * here from its opcodes (about 150 bytes) so no toolchain or binary blob is needed. Plain
 * JavaScript ran the same loop at about 0.8 G multiply-adds per second, slower than the
 * SpeexDSP build; four float lanes and two accumulators run it several times faster.
 *
 * The function, in WebAssembly text:
 *
 * ```wat
 * (func (export "run") (param $in i32) (param $taps i32) (param $tapBytes i32)
 *   (param $count i32) (param $phase i32) (param $stepBytes i32) (param $stepPhase i32)
 *   (param $up i32) (param $out i32)
 *   ;; For each of $count outputs: dot product of $tapBytes/4 floats at $in and at
 *   ;; $taps + $phase * $tapBytes (two f32x4 accumulators), rounded to nearest, clamped to
 *   ;; int16 and stored at $out. Then $in += $stepBytes, $phase += $stepPhase, and on
 *   ;; wrap-around ($phase >= $up) $phase -= $up, $in += 4.
 * )
 * ```
 *
 * `$tapBytes` must be a positive multiple of 32 (8 taps).
 */

const SIMD = 0xfd;
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Store16: 0x3b,
  i32Const: 0x41,
  f32Const: 0x43,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  f32Nearest: 0x90,
  f32Add: 0x92,
  f32Min: 0x96,
  f32Max: 0x97,
  i32TruncF32S: 0xa8,
  void: 0x40,
} as const;
// SIMD opcodes follow the 0xfd prefix as unsigned LEB128.
const v128Load = [SIMD, 0x00];
const v128Const = [SIMD, 0x0c];
const f32x4ExtractLane = [SIMD, 0x1f];
const f32x4Add = [SIMD, 0xe4, 0x01];
const f32x4Mul = [SIMD, 0xe6, 0x01];

// Parameter and local indices.
const IN = 0;
const TAPS = 1;
const TAP_BYTES = 2;
const COUNT = 3;
const PHASE = 4;
const STEP_BYTES = 5;
const STEP_PHASE = 6;
const UP = 7;
const OUT = 8;
const J = 9;
const T = 10;
const END = 11;
const ACC0 = 12;
const ACC1 = 13;

function f32Bytes(value: number): number[] {
  return [...new Uint8Array(new Float32Array([value]).buffer)];
}

function get(index: number): number[] {
  return [op.localGet, index];
}

function set(index: number): number[] {
  return [op.localSet, index];
}

/** acc = acc + load(in + j + offset) * load(t + j + offset), as f32x4. */
function multiplyAdd(acc: number, offset: number): number[] {
  return [
    ...get(acc),
    ...get(IN),
    ...get(J),
    op.i32Add,
    ...v128Load,
    0x00,
    offset,
    ...get(T),
    ...get(J),
    op.i32Add,
    ...v128Load,
    0x00,
    offset,
    ...f32x4Mul,
    ...f32x4Add,
    ...set(acc),
  ];
}

function lane(index: number): number[] {
  return [...get(ACC0), ...f32x4ExtractLane, index];
}

const body = [
  // Locals: 3 x i32 (j, t, end), 2 x v128 (acc0, acc1).
  0x02,
  0x03,
  0x7f,
  0x02,
  0x7b,
  // end = out + count * 2
  ...get(OUT),
  ...get(COUNT),
  op.i32Const,
  1,
  op.i32Shl,
  op.i32Add,
  ...set(END),
  op.block,
  op.void,
  op.loop,
  op.void,
  // while (out < end)
  ...get(OUT),
  ...get(END),
  op.i32GeU,
  op.brIf,
  1,
  // t = taps + phase * tapBytes; acc0 = acc1 = 0; j = 0
  ...get(TAPS),
  ...get(PHASE),
  ...get(TAP_BYTES),
  op.i32Mul,
  op.i32Add,
  ...set(T),
  ...v128Const,
  ...new Array<number>(16).fill(0),
  ...set(ACC0),
  ...v128Const,
  ...new Array<number>(16).fill(0),
  ...set(ACC1),
  op.i32Const,
  0,
  ...set(J),
  op.loop,
  op.void,
  ...multiplyAdd(ACC0, 0),
  ...multiplyAdd(ACC1, 16),
  // j += 32; continue while j < tapBytes
  ...get(J),
  op.i32Const,
  32,
  op.i32Add,
  op.localTee,
  J,
  ...get(TAP_BYTES),
  op.i32LtU,
  op.brIf,
  0,
  op.end,
  // acc0 += acc1
  ...get(ACC0),
  ...get(ACC1),
  ...f32x4Add,
  ...set(ACC0),
  // store16(out, clamp(nearest(lane0 + lane1 + lane2 + lane3)))
  ...get(OUT),
  ...lane(0),
  ...lane(1),
  op.f32Add,
  ...lane(2),
  op.f32Add,
  ...lane(3),
  op.f32Add,
  op.f32Nearest,
  op.f32Const,
  ...f32Bytes(32767),
  op.f32Min,
  op.f32Const,
  ...f32Bytes(-32768),
  op.f32Max,
  op.i32TruncF32S,
  op.i32Store16,
  0x01,
  0x00,
  // out += 2; in += stepBytes
  ...get(OUT),
  op.i32Const,
  2,
  op.i32Add,
  ...set(OUT),
  ...get(IN),
  ...get(STEP_BYTES),
  op.i32Add,
  ...set(IN),
  // phase += stepPhase; if (phase >= up) { phase -= up; in += 4 }
  ...get(PHASE),
  ...get(STEP_PHASE),
  op.i32Add,
  op.localTee,
  PHASE,
  ...get(UP),
  op.i32GeU,
  op.if,
  op.void,
  ...get(PHASE),
  ...get(UP),
  op.i32Sub,
  ...set(PHASE),
  ...get(IN),
  op.i32Const,
  4,
  op.i32Add,
  ...set(IN),
  op.end,
  op.br,
  0,
  op.end,
  op.end,
  op.end,
];

function uleb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function name(text: string): number[] {
  const bytes = [...new TextEncoder().encode(text)];
  return [...uleb(bytes.length), ...bytes];
}

/** The module's bytes: imports `env.memory`, exports `run`. */
export function polyphaseKernelBytes(): Uint8Array<ArrayBuffer> {
  const i32 = 0x7f;
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // type 0: (i32 x 9) -> ()
    ...section(1, [1, 0x60, 9, ...new Array<number>(9).fill(i32), 0]),
    // import env.memory, at least one page, no maximum
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('run'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** The kernel's exported function; see the module comment for the parameters. */
export type PolyphaseKernelRun = (
  inPointer: number,
  tapsPointer: number,
  tapBytes: number,
  count: number,
  phase: number,
  stepBytes: number,
  stepPhase: number,
  upFactor: number,
  outPointer: number,
) => void;
