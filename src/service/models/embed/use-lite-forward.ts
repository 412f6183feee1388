// USE-lite's forward pass written out as a few dozen TF.js ops, instead of running the converted TensorFlow graph.
// The graph has 317 nodes, most of them shape plumbing, sparse-to-dense scatters and two data-dependent `Where`s
// that force the asynchronous executor: at batch size 1 the executor cost as much as the arithmetic. Same weights,
// same arithmetic (test/models/use-lite-forward.test.ts holds the output to the graph's within 1e-5).
//
// The encoder (a tensor2tensor "KonaTransformer", pre-norm): token embeddings (8,002 × 256, counted twice, as the
// graph does) plus a sinusoidal timing signal; layer 0 attends with 4 heads of 64 and lifts its residual to 512
// through a dense layer; layer 1 attends with 4 heads of 128; each layer has a 1,536-wide ReLU feed-forward block.
// The sequence is mean-pooled, passed through a 512 tanh layer and scaled to unit length.

type Tf = typeof import("@tensorflow/tfjs-core");
type Tensor = import("@tensorflow/tfjs-core").Tensor;
type Tensor2D = import("@tensorflow/tfjs-core").Tensor2D;

const ROOT = "module_apply_default/Encoder_en/KonaTransformer/";
const STACK = `${ROOT}Encode/TransformerStack/`;
const LAYER_EPSILON = 1e-6;
const NORM_EPSILON = 1e-12;
/** The graph's attention bias for padding positions. */
const PADDING_BIAS = -1e9;

interface LayerSpec {
  index: 0 | 1;
  heads: number;
}
const LAYERS: readonly LayerSpec[] = [
  { index: 0, heads: 4 },
  { index: 1, heads: 4 },
];

/** The graph's weights by name, as loaded from the model package's manifest. */
export type NamedWeights = Record<string, Tensor>;

export interface Forward {
  /** Unit-length sentence vectors (512), one per token sequence (each at most the model's 128 positions). */
  run(batch: readonly (readonly number[])[]): Float32Array[];
  dispose(): void;
}

/** Builds the forward pass; weights are reshaped once (the 1×1 convolution kernels become plain matrices). */
export function createForward(tf: Tf, weights: NamedWeights): Forward {
  const owned: Tensor[] = [];
  const get = (name: string): Tensor => {
    const tensor = weights[name];
    if (!tensor) throw new Error(`USE-lite weight missing: ${name}`);
    return tensor;
  };
  const matrix = (name: string): Tensor2D => {
    const tensor = get(name);
    if (tensor.rank === 2) return tensor as Tensor2D;
    const [rows, cols] = tensor.shape.slice(-2) as [number, number];
    const reshaped = tf.reshape(tensor, [rows, cols]) as Tensor2D;
    owned.push(reshaped);
    return reshaped;
  };
  const layerPath = (layer: number, path: string) => `Encode/Layer_${layer}/TransformerLayer/${path}`;
  const part = (layer: number, path: string) => get(`${ROOT}${layerPath(layer, path)}/ConcatPartitions/concat`);
  const kernel = (layer: number, path: string) =>
    matrix(`module/Encoder_en/KonaTransformer/${layerPath(layer, path)}/kernel/part_0`);
  const norm = (layer: number, path: string) => ({
    scale: part(layer, `${path}/layer_norm_scale`),
    bias: part(layer, `${path}/layer_norm_bias`),
  });
  const projection = (layer: number, path: string) => ({ kernel: kernel(layer, path), bias: part(layer, `${path}/bias`) });
  const feedForward = (layer: number, conv: string) => ({
    kernel: matrix(`${STACK}Layer_${layer}/TransformerLayer/FFN/${conv}/Tensordot/Reshape_1`),
    bias: part(layer, `FFN/${conv}/bias`),
  });

  const embeddings = get("module/Embeddings_en") as Tensor2D;
  const invTimescales = get(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`); // [1, 128]
  const layers = LAYERS.map(({ index, heads }) => ({
    heads,
    norm: norm(index, "layer_prepostprocess/layer_norm"),
    qkv: projection(index, "MultiheadAttention/qkv_transform_single"),
    out: projection(index, "MultiheadAttention/output_transform_single"),
    // layer 0 lifts its 256-wide input to 512 for the residual path
    residual:
      index === 0 ? { kernel: matrix(`${ROOT}${layerPath(0, "dense/kernel")}/ConcatPartitions/concat`), bias: part(0, "dense/bias") } : null,
    ffnNorm: norm(index, "FFN/layer_prepostprocess/layer_norm"),
    conv1: feedForward(index, "conv1"),
    conv2: feedForward(index, "conv2"),
  }));
  const tanhLayer = {
    kernel: matrix("module/Encoder_en/hidden_layers/tanh_layer_0/weights"),
    bias: get("module/Encoder_en/hidden_layers/tanh_layer_0/bias"),
  };

  const layerNorm = (x: Tensor, scale: Tensor, bias: Tensor): Tensor => {
    const centered = tf.sub(x, tf.mean(x, -1, true));
    const variance = tf.mean(tf.square(centered), -1, true);
    return tf.add(tf.mul(tf.mul(scale, tf.rsqrt(tf.add(variance, LAYER_EPSILON))), centered), bias);
  };
  const dense = (x: Tensor, w: { kernel: Tensor2D; bias: Tensor }, activation?: "relu"): Tensor2D =>
    tf.fused.matMul({ a: x as Tensor2D, b: w.kernel, bias: w.bias, activation }) as Tensor2D;

  return {
    run(batch) {
      if (batch.length === 0) return [];
      const width = Math.max(1, ...batch.map((ids) => ids.length));
      // Position-wise work runs on the packed real tokens only; attention runs on [sequence, position] slots, where a
      // slot past a sequence's end holds zeros and is masked out as a key. (ScatterNd/GatherNd move the rows: the
      // WASM backend's plain Gather copies element by element and cost seconds on a batch of long texts.)
      const tokens = batch.reduce((sum, ids) => sum + ids.length, 0);
      const ids = new Int32Array(tokens);
      const positions = new Float32Array(tokens);
      const sequenceOf = new Int32Array(tokens);
      const slotOf = new Int32Array(tokens);
      const keyBias = new Float32Array(batch.length * width).fill(PADDING_BIAS);
      const lengths = new Float32Array(batch.length);
      let row = 0;
      batch.forEach((sequence, s) => {
        lengths[s] = Math.max(1, sequence.length);
        sequence.forEach((id, t) => {
          const slot = s * width + t;
          ids[row] = id;
          positions[row] = t;
          sequenceOf[row] = s;
          slotOf[row] = slot;
          keyBias[slot] = 0;
          row++;
        });
      });
      const padded = tokens !== batch.length * width;
      const slots = tf.tensor2d(slotOf, [tokens, 1], "int32");
      const bias = tf.tensor4d(keyBias, [batch.length, 1, 1, width]);

      // The graph adds the timing signal (sin ‖ cos of position × inverse timescales) to the embedded tokens and
      // then adds the embedded tokens once more: the input is 2 × embedding + timing.
      let x: Tensor = tf.tidy(() => {
        const angles = tf.matMul(tf.tensor2d(positions, [tokens, 1]), invTimescales as Tensor2D);
        const timing = tf.concat([tf.sin(angles), tf.cos(angles)], 1);
        const embedded = tf.gather(embeddings, tf.tensor1d(ids, "int32"));
        return tf.add(embedded, tf.add(embedded, timing));
      });
      // one tidy per layer keeps the peak (and so the WebAssembly heap, which never shrinks) to one layer's tensors
      for (const layer of layers) {
        const next = tf.tidy(() => {
          const d = layer.out.kernel.shape[0];
          const headSize = d / layer.heads;
          let qkv: Tensor = dense(layerNorm(x, layer.norm.scale, layer.norm.bias), layer.qkv);
          if (padded) qkv = tf.scatterND(slots, qkv, [batch.length * width, qkv.shape[1]!]);
          const [q, k, v] = tf.split(qkv, 3, 1).map((part) =>
            tf.transpose(tf.reshape(part, [batch.length, width, layer.heads, headSize]), [0, 2, 1, 3]),
          );
          const logits = tf.add(tf.matMul(tf.mul(q!, 1 / Math.sqrt(headSize)), k!, false, true), bias);
          const attended = tf.matMul(tf.softmax(logits), v!);
          let combined: Tensor = tf.reshape(tf.transpose(attended, [0, 2, 1, 3]), [batch.length * width, d]);
          if (padded) combined = tf.gatherND(combined, slots);
          const residual = layer.residual ? dense(x, layer.residual) : x;
          const afterAttention = tf.add(dense(combined, layer.out), residual);
          const hidden = dense(layerNorm(afterAttention, layer.ffnNorm.scale, layer.ffnNorm.bias), layer.conv1, "relu");
          return tf.add(dense(hidden, layer.conv2), afterAttention);
        });
        x.dispose();
        x = next;
      }

      const output = tf.tidy(() => {
        // mean over each sequence's tokens, then the tanh layer, then unit length
        const membership = new Float32Array(batch.length * tokens);
        sequenceOf.forEach((s, token) => (membership[s * tokens + token] = 1));
        const summed = tf.matMul(tf.tensor2d(membership, [batch.length, tokens]), x as Tensor2D);
        const pooled = tf.div(summed, tf.tensor2d(lengths, [batch.length, 1]));
        const sentence = tf.tanh(dense(pooled, tanhLayer));
        const norm = tf.rsqrt(tf.maximum(tf.sum(tf.square(sentence), 1, true), NORM_EPSILON));
        return tf.mul(sentence, norm);
      });
      for (const tensor of [x, slots, bias]) tensor.dispose();
      const data = output.dataSync() as Float32Array;
      output.dispose();
      const dims = data.length / batch.length;
      return batch.map((_, s) => data.slice(s * dims, (s + 1) * dims));
    },
    dispose() {
      for (const tensor of owned) tensor.dispose();
    },
  };
}
