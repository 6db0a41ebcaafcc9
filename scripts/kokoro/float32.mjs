// Rewrites the dynamically quantized Kokoro-82M graph (kokoro-v1.0.int8.onnx) so its
// convolutions and matrix products run in float32:
//
//   x -> DynamicQuantizeLinear -> ConvInteger(xq, Wq, xzp, wzp) [-> Add(bias_q)] -> Cast -> Mul(scale) -> y
// becomes
//   x -> Conv(x, W, bias) -> y          with W = (Wq - wzp) * w_scale (same for MatMulInteger -> MatMul)
//
// onnxruntime-node 1.30 has no fast kernel for ConvInteger (int8 runs at ~2x real time on
// one core here); the float32 graph runs about twice as fast. Everything else (the int8
// embedding Gather, DynamicQuantizeLSTM) stays as it is. Nodes left without consumers and
// initializers nobody reads are dropped afterwards.
//
// Usage: node scripts/kokoro/float32.mjs <in.int8.onnx> <out.onnx>
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const { FLOAT, UINT8, INT8, INT32 } = onnx.TensorProto.DataType;

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/kokoro/float32.mjs <in.int8.onnx> <out.onnx>');
  process.exit(2);
}

const model = onnx.ModelProto.decode(readFileSync(input));
const graph = model.graph;
const initializers = new Map(graph.initializer.map((tensor) => [tensor.name, tensor]));
const producer = new Map();
const consumers = new Map();
for (const node of graph.node) {
  for (const name of node.output) producer.set(name, node);
  for (const name of node.input) {
    if (!consumers.has(name)) consumers.set(name, []);
    consumers.get(name).push(node);
  }
}

/** Values of an initializer as plain numbers (raw bytes or the typed repeated field). */
function values(tensor) {
  const raw = tensor.rawData;
  if (raw && raw.length > 0) {
    const bytes = Buffer.from(raw);
    switch (tensor.dataType) {
      case UINT8:
        return Uint8Array.from(bytes);
      case INT8:
        return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice();
      case FLOAT:
        return new Float32Array(
          bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
        );
      case INT32:
        return new Int32Array(
          bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
        );
    }
    throw new Error(`unsupported raw tensor type ${tensor.dataType} (${tensor.name})`);
  }
  if (tensor.dataType === FLOAT) return Float32Array.from(tensor.floatData);
  return Int32Array.from(tensor.int32Data);
}

function only(list, opType) {
  return list?.length === 1 && list[0].opType === opType ? list[0] : undefined;
}

/** Float weights (Wq - zp) * scale, per tensor or per slice along `axis`. */
function dequantize(weight, zeroPoint, scale, axis) {
  const q = values(weight);
  const zp = values(zeroPoint);
  const s = values(scale);
  const dims = weight.dims.map(Number);
  const out = new Float32Array(q.length);
  if (s.length === 1) {
    for (let i = 0; i < q.length; i++) out[i] = (q[i] - zp[0]) * s[0];
    return out;
  }
  // Per channel: index along `axis` of element i.
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const size = dims[axis];
  for (let i = 0; i < q.length; i++) {
    const c = Math.floor(i / inner) % size;
    out[i] = (q[i] - zp[zp.length === 1 ? 0 : c]) * s[c];
  }
  return out;
}

function floatTensor(name, dims, data) {
  return onnx.TensorProto.create({
    name,
    dims,
    dataType: FLOAT,
    rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  });
}

const replaced = new Set();
const added = new Map();
const counts = { ConvInteger: 0, MatMulInteger: 0 };
for (const node of graph.node) {
  if (node.opType !== 'ConvInteger' && node.opType !== 'MatMulInteger') continue;
  const [xq, wq, , wzp] = node.input;
  const quantize = producer.get(xq);
  const weight = initializers.get(wq);
  if (quantize?.opType !== 'DynamicQuantizeLinear' || !weight || !wzp) continue;
  const base = wq.replace(/_quantized$/, '');
  const scale = initializers.get(`${base}_scale`);
  const zeroPoint = initializers.get(wzp);
  if (!scale || !zeroPoint) continue;

  // Walk the int32 tail: optional bias Add, then Cast, then the rescaling Mul.
  const chain = [];
  let bias;
  let next = consumers.get(node.output[0]);
  const add = only(next, 'Add');
  if (add) {
    const reshape = producer.get(add.input[1]);
    const cast = reshape && producer.get(reshape.input[0]);
    const floor = cast && producer.get(cast.input[0]);
    const div = floor && producer.get(floor.input[0]);
    bias = div && initializers.get(div.input[0]);
    if (!bias || bias.dataType !== FLOAT) continue;
    chain.push(add);
    next = consumers.get(add.output[0]);
  }
  const cast = only(next, 'Cast');
  const mul = cast && only(consumers.get(cast.output[0]), 'Mul');
  if (!mul) continue;
  chain.push(cast, mul);

  const isConv = node.opType === 'ConvInteger';
  // Conv weights are [out, in, k]: per-channel scales run along axis 0; MatMul [K, N]: axis 1.
  const weightName = `${base}_float32`;
  // ALBERT shares one layer's weights across its repeats: dequantize each weight once.
  if (!added.has(weightName)) {
    const floatWeight = dequantize(weight, zeroPoint, scale, isConv ? 0 : 1);
    added.set(weightName, floatTensor(weightName, weight.dims, floatWeight));
  }
  const inputs = [quantize.input[0], weightName];
  if (bias) inputs.push(bias.name);
  const replacement = onnx.NodeProto.create({
    name: `${node.name || base}_float32`,
    opType: isConv ? 'Conv' : 'MatMul',
    input: inputs,
    output: [mul.output[0]],
    attribute: isConv ? node.attribute : [],
  });
  replaced.add(node);
  for (const n of chain) replaced.add(n);
  node.__replacement = replacement;
  counts[node.opType] += 1;
}

// Keep topological order: each replacement takes the place of the integer node.
let nodes = graph.node.flatMap((node) =>
  node.__replacement ? [node.__replacement] : replaced.has(node) ? [] : [node],
);
graph.initializer.push(...added.values());

// Drop what no longer feeds anything (quantizers of the inputs, integer bias arithmetic).
const graphOutputs = new Set(graph.output.map((o) => o.name));
for (;;) {
  const used = new Set(graphOutputs);
  for (const node of nodes) for (const name of node.input) used.add(name);
  const kept = nodes.filter((node) => node.output.some((name) => used.has(name)));
  if (kept.length === nodes.length) {
    graph.initializer = graph.initializer.filter((tensor) => used.has(tensor.name));
    break;
  }
  nodes = kept;
}
graph.node = nodes;

const bytes = onnx.ModelProto.encode(model).finish();
writeFileSync(`${output}.tmp`, bytes);
renameSync(`${output}.tmp`, output);
console.log(
  JSON.stringify({
    convInteger: counts.ConvInteger,
    matMulInteger: counts.MatMulInteger,
    nodes: graph.node.length,
    bytes: bytes.length,
  }),
);
