import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * The model's per-token durations in frames (rounded, at least one), which the graph
 * expands the text encoding by and which `scripts/kokoro/durations.mjs` exposes.
 */
const DURATIONS = '/encoder/Clip_output_0';
const PREFIX = '/leading_pause';
const INT64_MAX = 0x7fff_ffff_ffff_ffffn;

/**
 * Frames the leading pad token may last. The model gives it 12-20 frames (300-500 ms of
 * silence before the first phoneme), which the decoder computes and the pipeline trims:
 * a third of the compute of a short clause. Two frames (50 ms) keep the first phoneme's
 * onset (see docs/decisions/synthesis.md, "Neural first audio").
 */
export const LEADING_PAUSE_FRAMES = 2;

function int64(name: string, value: bigint) {
  return onnx.TensorProto.create({
    name,
    dataType: onnx.TensorProto.DataType.INT64,
    dims: [1],
    rawData: new Uint8Array(BigInt64Array.of(value).buffer),
  });
}

function node(name: string, opType: string, input: string[], attribute: object[] = []) {
  return onnx.NodeProto.create({
    name: `${PREFIX}/${name}`,
    opType,
    input,
    output: [`${PREFIX}/${name}_output_0`],
    attribute,
  });
}

const out = (n: { output?: string[] | null }) => n.output?.[0] ?? '';

/**
 * The Kokoro graph (with its `durations` output) rewritten so the leading pad token lasts
 * at most `maxFrames` frames: the durations become `concat(min(d[..1], maxFrames), d[1..])`
 * before the graph expands the encoding by them, so the decoder never computes the
 * silence the pipeline would trim, and the `durations` output reports what was spoken.
 * Every other token keeps the model's own duration (the trailing pad already lasts one
 * frame; the pause after the last word is its punctuation's).
 */
export function capLeadingPause(model: Uint8Array, maxFrames = LEADING_PAUSE_FRAMES): Uint8Array {
  const proto = onnx.ModelProto.decode(model);
  const nodes = proto.graph?.node ?? [];
  const initializers = proto.graph?.initializer ?? [];
  const producer = nodes.findIndex((n) => n.output?.includes(DURATIONS));
  if (producer < 0) {
    throw new Error(`the model has no ${DURATIONS}: not the Kokoro-82M v1.0 graph`);
  }
  initializers.push(
    int64(`${PREFIX}/zero`, 0n),
    int64(`${PREFIX}/one`, 1n),
    int64(`${PREFIX}/end`, INT64_MAX),
    int64(`${PREFIX}/axis`, -1n),
    onnx.TensorProto.create({
      name: `${PREFIX}/cap`,
      dataType: onnx.TensorProto.DataType.FLOAT,
      dims: [1],
      floatData: [maxFrames],
    }),
  );
  const slice = (name: string, start: string, end: string) =>
    node(name, 'Slice', [DURATIONS, `${PREFIX}/${start}`, `${PREFIX}/${end}`, `${PREFIX}/axis`]);
  const lead = slice('lead', 'zero', 'one');
  const rest = slice('rest', 'one', 'end');
  const capped = node('capped', 'Min', [out(lead), `${PREFIX}/cap`]);
  const joined = node(
    'concat',
    'Concat',
    [out(capped), out(rest)],
    [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 }],
  );
  for (const consumer of nodes) {
    consumer.input = consumer.input?.map((name) => (name === DURATIONS ? out(joined) : name)) ?? [];
  }
  // Nodes are kept in topological order: the new ones right after the durations' producer.
  nodes.splice(producer + 1, 0, lead, rest, capped, joined);
  return onnx.ModelProto.encode(proto).finish();
}
