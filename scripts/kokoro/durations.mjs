// Adds the durations Kokoro-82M predicts to the outputs of its graph: the model computes
// one duration per input token (frames of 600 samples at 24 kHz, rounded and clipped to at
// least one) at `/encoder/Clip_output_0` and expands the text encoding by them; that value
// becomes the graph output `durations` (float32, [1, tokens]), so one run yields both the
// audio and where each token of it lies. The sum of the durations times 600 is the length
// of `audio`. Word timings of the neural voices are built from it.
//
// Usage: node scripts/kokoro/durations.mjs <in.onnx> <out.onnx>
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const SOURCE = '/encoder/Clip_output_0';
const OUTPUT = 'durations';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/kokoro/durations.mjs <in.onnx> <out.onnx>');
  process.exit(2);
}

const model = onnx.ModelProto.decode(readFileSync(input));
const graph = model.graph;
if (graph.output.some((value) => value.name === OUTPUT)) {
  throw new Error(`${input} already has an output named ${OUTPUT}`);
}
const producer = graph.node.find((node) => node.output.includes(SOURCE));
if (producer?.opType !== 'Clip') {
  throw new Error(`${input} has no Clip node producing ${SOURCE}: not the Kokoro-82M v1.0 graph`);
}
graph.node.push(
  onnx.NodeProto.create({
    name: '/durations/Identity',
    opType: 'Identity',
    input: [SOURCE],
    output: [OUTPUT],
  }),
);
graph.output.push(
  onnx.ValueInfoProto.create({
    name: OUTPUT,
    type: {
      tensorType: {
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: { dim: [{ dimValue: 1 }, { dimParam: 'tokens' }] },
      },
    },
  }),
);

const bytes = onnx.ModelProto.encode(model).finish();
writeFileSync(`${output}.tmp`, bytes);
renameSync(`${output}.tmp`, output);
console.log(JSON.stringify({ output: OUTPUT, source: SOURCE, bytes: bytes.length }));
