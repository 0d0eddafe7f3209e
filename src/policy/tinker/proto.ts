/**
 * The protobuf messages of the Tinker protocol that travel as binary (`application/x-protobuf`):
 * the `forward_backward` request (forward-only passes too, through its `forward_only` flag) and
 * the results of `forward`, `forward_backward` and `asample` from `retrieve_future`. SDK 0.25+
 * and SkyRL's server 0.4 speak only this form for these messages; everything else is JSON.
 *
 * A hand-written codec of the protobuf wire format (varints, length-delimited fields, fixed
 * 64-bit doubles) for exactly these messages. Field numbers are those of the SDK's
 * `tinker_public.proto` (`tinker/proto/tinker_public_pb2`):
 *   ForwardBackwardRequest{1 model_id, 2 seq_id, 3 data: Datum*, 4 loss_fn, 5 loss_fn_config: map<string,double>, 6 forward_only}
 *   Datum{1 model_input: Chunk*, 2 loss_fn_inputs: map<string,Tensor>}; Chunk{1 encoded_text{1 tokens: int32 LE bytes}}
 *   Tensor{1 dense: bytes, 3 dtype (1 float32, 2 int64), 4 shape: int64*}
 *   ForwardBackwardOutput{1 loss_fn_output_type, 2 loss_fn_outputs: ArrayRecord*, 3 metrics: map<string,double>}
 *   ArrayRecord{1 type_tag, 2 fields: map<string,BatchedTensor>, 3 num_datums}
 *   BatchedTensor{1 data, 2 offsets: int64 LE byte offsets, 3 dtype, 4 trailing_shape}
 *   SampleResponse{1 sequences: SampledSequence*, 2 prompt_logprobs: f32 LE bytes (NaN = none)}
 *   SampledSequence{1 stop_reason (0 stop, 1 length), 2 tokens: int32 LE bytes, 3 logprobs: f32 LE bytes}
 */
import { RemoteError } from "../../core/errors.ts";
import type { Datum, ForwardBackwardOutput, SampleResult, TensorData } from "./wire.ts";

const DTYPE_F32 = 1, DTYPE_I64 = 2, DTYPE_I32 = 3;

/** Appends protobuf fields to a growing buffer. */
class Writer {
  private buf = new Uint8Array(1024);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  varint(v: number): void {
    this.ensure(10);
    // Non-negative integers below 2^53 (lengths, ids, enums).
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  string(field: number, s: string): void {
    this.bytes(field, new TextEncoder().encode(s));
  }

  double(field: number, x: number): void {
    this.tag(field, 1);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, x, true);
    this.len += 8;
  }

  uint(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(v);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Reads the fields of one message. */
class Reader {
  private pos = 0;
  private readonly b: Uint8Array;
  constructor(b: Uint8Array) {
    this.b = b;
  }

  get done(): boolean {
    return this.pos >= this.b.length;
  }

  varint(): number {
    let v = 0, mul = 1;
    for (;;) {
      if (this.pos >= this.b.length) throw new RemoteError("truncated protobuf message");
      const byte = this.b[this.pos++]!;
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) return v;
      mul *= 0x80;
    }
  }

  /** The next field: its number, wire type and (for length-delimited ones) its bytes. */
  next(): { field: number; wire: number; value: number | Uint8Array } {
    const key = this.varint();
    const field = Math.floor(key / 8), wire = key % 8;
    if (wire === 0) return { field, wire, value: this.varint() };
    if (wire === 1) {
      const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 8).getFloat64(0, true);
      this.pos += 8;
      return { field, wire, value: v };
    }
    if (wire === 5) {
      const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 4).getFloat32(0, true);
      this.pos += 4;
      return { field, wire, value: v };
    }
    if (wire === 2) {
      const n = this.varint();
      if (this.pos + n > this.b.length) throw new RemoteError("truncated protobuf message");
      const v = this.b.subarray(this.pos, this.pos + n);
      this.pos += n;
      return { field, wire, value: v };
    }
    throw new RemoteError(`unsupported protobuf wire type ${wire}`);
  }
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const asBytes = (v: number | Uint8Array): Uint8Array => (typeof v === "number" ? new Uint8Array(0) : v);
const asNumber = (v: number | Uint8Array): number => (typeof v === "number" ? v : NaN);

function le<T extends ArrayBufferView>(view: T): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Copies bytes to an aligned buffer so typed views can read them. */
function aligned(b: Uint8Array): ArrayBuffer {
  return b.slice().buffer;
}

function int32Bytes(values: readonly number[]): Uint8Array {
  return le(Int32Array.from(values));
}

function tensorBytes(t: TensorData): { dense: Uint8Array; dtype: number } {
  if (t.dtype === "int64") return { dense: le(BigInt64Array.from(t.data, (x) => BigInt(x))), dtype: DTYPE_I64 };
  return { dense: le(Float32Array.from(t.data)), dtype: DTYPE_F32 };
}

function decodeDense(b: Uint8Array, dtype: number): number[] {
  const buf = aligned(b);
  if (dtype === DTYPE_I64) return Array.from(new BigInt64Array(buf), Number);
  if (dtype === DTYPE_I32) return Array.from(new Int32Array(buf));
  return Array.from(new Float32Array(buf));
}

/** A `forward_backward` request (or a forward-only one) as protobuf bytes. */
export function encodeForwardBackward(req: { modelId: string; seqId: number; data: readonly Datum[]; lossFn: string; lossFnConfig?: Readonly<Record<string, number>>; forwardOnly: boolean }): Uint8Array {
  const w = new Writer();
  w.string(1, req.modelId);
  if (req.seqId !== 0) w.uint(2, req.seqId);
  for (const d of req.data) w.bytes(3, encodeDatum(d));
  w.string(4, req.lossFn);
  for (const [k, v] of Object.entries(req.lossFnConfig ?? {})) {
    const e = new Writer();
    e.string(1, k);
    e.double(2, v);
    w.bytes(5, e.finish());
  }
  if (req.forwardOnly) w.uint(6, 1);
  return w.finish();
}

function encodeDatum(d: Datum): Uint8Array {
  const w = new Writer();
  for (const c of d.model_input.chunks) {
    const text = new Writer();
    text.bytes(1, int32Bytes(c.tokens));
    const chunk = new Writer();
    chunk.bytes(1, text.finish());
    w.bytes(1, chunk.finish());
  }
  for (const [k, t] of Object.entries(d.loss_fn_inputs)) {
    const { dense, dtype } = tensorBytes(t);
    const tw = new Writer();
    tw.bytes(1, dense);
    tw.uint(3, dtype);
    const shape = new Writer();
    shape.varint(t.data.length);
    tw.bytes(4, shape.finish());
    const e = new Writer();
    e.string(1, k);
    e.bytes(2, tw.finish());
    w.bytes(2, e.finish());
  }
  return w.finish();
}

/** Decodes a protobuf `forward_backward` request (our server's side of `encodeForwardBackward`). */
export function decodeForwardBackward(bytes: Uint8Array): { modelId: string; seqId: number | null; data: Datum[]; lossFn: string; lossFnConfig: Record<string, number>; forwardOnly: boolean } {
  const r = new Reader(bytes);
  const out = { modelId: "", seqId: null as number | null, data: [] as Datum[], lossFn: "", lossFnConfig: {} as Record<string, number>, forwardOnly: false };
  while (!r.done) {
    const { field, value } = r.next();
    if (field === 1) out.modelId = text(asBytes(value));
    else if (field === 2) out.seqId = asNumber(value) || null;
    else if (field === 3) out.data.push(decodeDatum(asBytes(value)));
    else if (field === 4) out.lossFn = text(asBytes(value));
    else if (field === 5) {
      const e = mapEntry(asBytes(value));
      out.lossFnConfig[e.key] = asNumber(e.value);
    } else if (field === 6) out.forwardOnly = asNumber(value) !== 0;
  }
  return out;
}

function mapEntry(b: Uint8Array): { key: string; value: number | Uint8Array } {
  const r = new Reader(b);
  let key = "", value: number | Uint8Array = 0;
  while (!r.done) {
    const f = r.next();
    if (f.field === 1) key = text(asBytes(f.value));
    else if (f.field === 2) value = f.value;
  }
  return { key, value };
}

function decodeDatum(b: Uint8Array): Datum {
  const r = new Reader(b);
  const chunks: { type: "encoded_text"; tokens: number[] }[] = [];
  const inputs: Record<string, TensorData> = {};
  while (!r.done) {
    const { field, value } = r.next();
    if (field === 1) {
      const cr = new Reader(asBytes(value));
      while (!cr.done) {
        const c = cr.next();
        if (c.field !== 1) throw new RemoteError("only encoded_text chunks are supported");
        const tr = new Reader(asBytes(c.value));
        let tokens: number[] = [];
        while (!tr.done) {
          const t = tr.next();
          if (t.field === 1) tokens = decodeDense(asBytes(t.value), DTYPE_I32);
        }
        chunks.push({ type: "encoded_text", tokens });
      }
    } else if (field === 2) {
      const e = mapEntry(asBytes(value));
      const tr = new Reader(asBytes(e.value));
      let dense: Uint8Array = new Uint8Array(0), dtype = DTYPE_F32;
      while (!tr.done) {
        const t = tr.next();
        if (t.field === 1) dense = asBytes(t.value);
        else if (t.field === 2) throw new RemoteError("sparse tensors are not supported");
        else if (t.field === 3) dtype = asNumber(t.value);
      }
      inputs[e.key] = { data: decodeDense(dense, dtype), dtype: dtype === DTYPE_I64 ? "int64" : "float32" };
    }
  }
  return { model_input: { chunks }, loss_fn_inputs: inputs };
}

/** A `ForwardBackwardOutput` as protobuf bytes (one ArrayRecord holding every datum, as SkyRL writes it). */
export function encodeForwardBackwardOutput(out: ForwardBackwardOutput): Uint8Array {
  const w = new Writer();
  w.string(1, out.loss_fn_output_type);
  if (out.loss_fn_outputs.length > 0) {
    const rec = new Writer();
    const names = [...new Set(out.loss_fn_outputs.flatMap((o) => Object.keys(o)))];
    for (const name of names) {
      const arrays = out.loss_fn_outputs.map((o) => Float32Array.from(o[name]?.data ?? []));
      const offsets = new BigInt64Array(arrays.length + 1);
      let total = 0;
      arrays.forEach((a, i) => {
        total += a.byteLength;
        offsets[i + 1] = BigInt(total);
      });
      const data = new Uint8Array(total);
      let at = 0;
      for (const a of arrays) {
        data.set(le(a), at);
        at += a.byteLength;
      }
      const bt = new Writer();
      bt.bytes(1, data);
      bt.bytes(2, le(offsets));
      bt.uint(3, DTYPE_F32);
      const e = new Writer();
      e.string(1, name);
      e.bytes(2, bt.finish());
      rec.bytes(2, e.finish());
    }
    rec.uint(3, out.loss_fn_outputs.length);
    w.bytes(2, rec.finish());
  }
  for (const [k, v] of Object.entries(out.metrics)) {
    const e = new Writer();
    e.string(1, k);
    e.double(2, v);
    w.bytes(3, e.finish());
  }
  return w.finish();
}

/** Decodes a protobuf `ForwardBackwardOutput`. */
export function decodeForwardBackwardOutput(bytes: Uint8Array): ForwardBackwardOutput {
  const r = new Reader(bytes);
  const out: ForwardBackwardOutput = { loss_fn_output_type: "", loss_fn_outputs: [], metrics: {} };
  while (!r.done) {
    const { field, value } = r.next();
    if (field === 1) out.loss_fn_output_type = text(asBytes(value));
    else if (field === 3) {
      const e = mapEntry(asBytes(value));
      out.metrics[e.key] = asNumber(e.value);
    } else if (field === 2) {
      const rr = new Reader(asBytes(value));
      let n = 0;
      const fields: { name: string; data: Uint8Array; offsets: number[]; dtype: number }[] = [];
      while (!rr.done) {
        const f = rr.next();
        if (f.field === 3) n = asNumber(f.value);
        else if (f.field === 2) {
          const e = mapEntry(asBytes(f.value));
          const br = new Reader(asBytes(e.value));
          let data: Uint8Array = new Uint8Array(0), offsets: number[] = [], dtype = DTYPE_F32;
          while (!br.done) {
            const b = br.next();
            if (b.field === 1) data = asBytes(b.value);
            else if (b.field === 2) offsets = decodeDense(asBytes(b.value), DTYPE_I64);
            else if (b.field === 3) dtype = asNumber(b.value);
          }
          fields.push({ name: e.key, data, offsets, dtype });
        }
      }
      const records: Record<string, TensorData>[] = Array.from({ length: n }, () => ({}));
      for (const f of fields) {
        for (let i = 0; i < n; i++) {
          const slice = f.data.subarray(f.offsets[i] ?? 0, f.offsets[i + 1] ?? 0);
          records[i]![f.name] = { data: decodeDense(slice, f.dtype), dtype: f.dtype === DTYPE_I64 ? "int64" : "float32" };
        }
      }
      out.loss_fn_outputs.push(...records);
    }
  }
  return out;
}

/** A `SampleResponse` as protobuf bytes. */
export function encodeSampleResponse(res: SampleResult): Uint8Array {
  const w = new Writer();
  for (const s of res.sequences) {
    const sw = new Writer();
    if (s.stop_reason === "length") sw.uint(1, 1);
    sw.bytes(2, int32Bytes(s.tokens));
    sw.bytes(3, le(Float32Array.from(s.logprobs)));
    w.bytes(1, sw.finish());
  }
  if (res.prompt_logprobs != null) w.bytes(2, le(Float32Array.from(res.prompt_logprobs, (x) => x ?? NaN)));
  return w.finish();
}

/** Decodes a protobuf `SampleResponse` (NaN prompt log-probs become null, as in JSON). */
export function decodeSampleResponse(bytes: Uint8Array): SampleResult {
  const r = new Reader(bytes);
  const out: SampleResult = { sequences: [], prompt_logprobs: null };
  while (!r.done) {
    const { field, value } = r.next();
    if (field === 1) {
      const sr = new Reader(asBytes(value));
      const seq = { stop_reason: "stop" as "stop" | "length", tokens: [] as number[], logprobs: [] as number[] };
      while (!sr.done) {
        const f = sr.next();
        if (f.field === 1) seq.stop_reason = asNumber(f.value) === 1 ? "length" : "stop";
        else if (f.field === 2) seq.tokens = decodeDense(asBytes(f.value), DTYPE_I32);
        else if (f.field === 3) seq.logprobs = decodeDense(asBytes(f.value), DTYPE_F32);
      }
      out.sequences.push(seq);
    } else if (field === 2) {
      out.prompt_logprobs = decodeDense(asBytes(value), DTYPE_F32).map((x) => (Number.isNaN(x) ? null : x));
    }
  }
  return out;
}
