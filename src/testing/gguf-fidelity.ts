/**
 * The fidelity check of a GGUF model in our engine against llama.cpp on the same file: next-token
 * top-1 agreement and log-prob differences over about 1,000 tokens of varied text, and tokenizer
 * ids on varied strings. Used by `gguf-llamacpp.slow.test.ts` and printed by
 * `scripts/gguf-fidelity.ts`. llama.cpp runs with an f32 KV cache and no flash attention, so
 * attention is f32 on both sides (its defaults, an f16 cache, are an option); its Q4_1 / Q8_0 matmuls still round the activations to 8 bits
 * (see `llamacpp-numerics.ts`), which an F32 copy of the file (`writeF32Copy`) takes out.
 */
import { existsSync, readFileSync } from "node:fs";
import { dequantize, GGML_TYPE } from "../model/gguf/dequant.ts";
import { parseGguf } from "../model/gguf/reader.ts";
import { encodeTensor, encodeGguf } from "../model/gguf/writer.ts";
import { KvCache } from "../model/kv-cache.ts";
import type { Transformer } from "../model/transformer.ts";
import type { BpeTokenizer } from "../model/tokenizer/bpe.ts";
import { writeAtomically, type LlamaCppModel } from "./llamacpp.ts";

/** Varied documents (prose, dialogue, code, JSON, numbers, other languages, an agent transcript). */
export const FIDELITY_DOCS: readonly string[] = [
  "The history of the printing press begins in the fifteenth century, when Johannes Gutenberg combined a screw press, oil-based ink and movable metal type. Within fifty years, presses had spread to more than two hundred cities across Europe, and the price of books fell sharply. Scholars could compare identical copies of a text for the first time, which changed how knowledge was checked and shared.",
  "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nCan you explain why the sky is blue, in two sentences?<|im_end|>\n<|im_start|>assistant\nSunlight is scattered by the molecules of the air, and shorter blue wavelengths are scattered much more strongly than red ones. So when we look at any part of the sky away from the sun, we mostly see that scattered blue light.<|im_end|>\n",
  "def fibonacci(n: int) -> list[int]:\n    \"\"\"Return the first n Fibonacci numbers.\"\"\"\n    seq = [0, 1]\n    while len(seq) < n:\n        seq.append(seq[-1] + seq[-2])\n    return seq[:n]\n\n\nif __name__ == \"__main__\":\n    for i, x in enumerate(fibonacci(10)):\n        print(f\"{i:2d}: {x}\")\n",
  "{\"id\": 4821, \"name\": \"Ada Lovelace\", \"born\": \"1815-12-10\", \"fields\": [\"mathematics\", \"computing\"], \"notes\": null, \"scores\": [3.14, 2.71, 1.41]}\nfunction sum(xs) { return xs.reduce((a, b) => a + b, 0); }\nconsole.log(sum([1, 2, 3, 4])); // 10",
  "In 2023 the company reported revenue of $4.7 billion, up 12% from 2022, while operating costs rose only 3.5%. The board proposed a dividend of 0.85 per share, payable on 15 March. Analysts expect growth to slow to between 6 and 8 percent next year.",
  "You are in the middle of a room. Looking quickly around you, you see a cabinet 4, a cabinet 3, a countertop 1, a drawer 2, a fridge 1, a microwave 1, and a sinkbasin 1.\nYour task is to: put a clean mug in the coffeemachine.\n> go to countertop 1\nOn the countertop 1, you see a mug 2, a knife 1, and a bread 1.\n> take mug 2 from countertop 1\nYou pick up the mug 2 from the countertop 1.\n> go to sinkbasin 1\n",
  "Le chat dort sur le canapé pendant que la pluie tombe doucement. Der Zug nach Berlin fährt um halb acht ab. El mercado abre temprano los sábados. 今天的天气很好，我们去公园散步吧。",
  "Photosynthesis converts light energy into chemical energy. In the light-dependent reactions, water is split and oxygen is released; in the Calvin cycle, carbon dioxide is fixed into sugars using ATP and NADPH. Although the overall equation looks simple, the process involves dozens of enzymes and several protein complexes embedded in the thylakoid membrane.",
  "## Installing the tool\n\n1. Download the archive for your platform.\n2. Unpack it: `tar -xzf tool-1.4.2-linux-x64.tar.gz`\n3. Add the `bin/` folder to your `PATH`.\n\n> **Note:** on macOS you may need to allow the binary in *System Settings > Privacy & Security*.\n\n| option | default | meaning |\n|---|---|---|\n| `--threads` | 4 | worker threads |\n| `--verbose` | off | print every step |",
  "The old lighthouse stood at the edge of the cliff, its paint peeling in long grey strips. Every evening the keeper climbed the one hundred and twelve steps, lit the lamp, and wrote a single line in the logbook: the time, the wind, and whether any ship had passed. He had done this for thirty-one years, and in all that time he had never missed a night.",
  "SELECT c.name, COUNT(o.id) AS orders, SUM(o.total) AS revenue\nFROM customers c\nJOIN orders o ON o.customer_id = c.id\nWHERE o.created_at >= '2024-01-01'\nGROUP BY c.name\nHAVING COUNT(o.id) > 5\nORDER BY revenue DESC\nLIMIT 10;\n$ grep -rn \"TODO\" src/ | wc -l\n42",
  "Q: If a train travels 120 km in 1.5 hours, what is its average speed?\nA: 120 / 1.5 = 80, so the average speed is 80 km/h.\nQ: What is 17 * 23?\nA: 17 * 23 = 391.\nQ: Is 97 a prime number?\nA: Yes, 97 has no divisors other than 1 and itself.",
];

/** Agreement of our next-token distribution with llama.cpp's over some positions. */
export type ForwardAgreement = {
  /** Positions compared (each predicts the next token of a document). */
  readonly positions: number;
  /** Fraction of positions where both argmaxes are the same token. */
  readonly top1: number;
  /** Largest and mean |log p_ours - log p_llama| of the document's actual next token. */
  readonly maxAbsDlogpTarget: number;
  readonly meanAbsDlogpTarget: number;
  /** Largest |Δ log p| over llama.cpp's 10 most likely tokens at every position. */
  readonly maxAbsDlogpTop10: number;
};

/** llama.cpp's view of one position: its argmax, log-partition, and log-softmax of a few tokens. */
type LlamaRow = { top: number; logp: Map<number, number> };

/** The documents' token ids, cut so that about `maxPositions` positions are predicted in all. */
export function fidelityIds(tok: BpeTokenizer, maxPositions = 1000): number[][] {
  const out: number[][] = [];
  let left = maxPositions;
  for (const d of FIDELITY_DOCS) {
    if (left <= 0) break;
    const ids = tok.encode(d, { allowSpecial: true }).slice(0, left + 1);
    out.push(ids);
    left -= ids.length - 1;
  }
  return out;
}

/**
 * llama.cpp's next-token rows for each document, in a fresh context: an f32 KV cache without
 * flash attention (attention in f32, as ours), or with `llamaDefaults` node-llama-cpp's defaults
 * (f16 KV cache, flash attention "auto").
 */
export async function llamaCppRows(model: LlamaCppModel, docs: readonly number[][], llamaDefaults = false): Promise<LlamaRow[][]> {
  const longest = Math.max(...docs.map((d) => d.length));
  const ctx = await model.createContext({
    contextSize: Math.max(256, longest), sequences: 1,
    ...(llamaDefaults ? {} : { flashAttention: false, experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32" }),
  });
  try {
    const out: LlamaRow[][] = [];
    const seq = ctx.getSequence();
    for (const ids of docs) {
      await seq.clearHistory();
      const res = await seq.controlledEvaluate(ids.map((t, i) => (i + 1 < ids.length
        ? [t, { generateNext: { logits: { filter: { tokens: [ids[i + 1]!], includeTop: 10 } }, totalLogitWeight: true } }]
        : t)));
      const rows: LlamaRow[] = [];
      for (let i = 0; i + 1 < ids.length; i++) {
        const next = res[i]?.next;
        if (next?.logits === undefined || next.totalLogitWeight === undefined) throw new Error(`llama.cpp returned no logits at position ${i}`);
        const [top, topLogit] = next.logits.entries().next().value as [number, number];
        const lse = topLogit + Math.log(next.totalLogitWeight);
        const logp = new Map<number, number>();
        for (const [t, l] of next.logits) logp.set(t, l - lse);
        rows.push({ top, logp });
      }
      out.push(rows);
    }
    return out;
  } finally {
    await ctx.dispose();
  }
}

/** Compares our model, decoding each document token by token, with llama.cpp's rows. */
export function compareForward(model: Transformer, docs: readonly number[][], llama: readonly LlamaRow[][]): ForwardAgreement {
  let positions = 0, agree = 0, maxT = 0, sumT = 0, maxTop = 0;
  docs.forEach((ids, d) => {
    const cache = new KvCache(model, 1, ids.length);
    for (let i = 0; i + 1 < ids.length; i++) {
      const lg = cache.append([0], [[ids[i]!]]);
      let mx = -Infinity, arg = 0;
      for (let v = 0; v < lg.length; v++) if (lg[v]! > mx) { mx = lg[v]!; arg = v; }
      let s = 0;
      for (let v = 0; v < lg.length; v++) s += Math.exp(lg[v]! - mx);
      const lse = mx + Math.log(s), row = llama[d]![i]!;
      positions++;
      if (row.top === arg) agree++;
      const t = ids[i + 1]!, dT = Math.abs(lg[t]! - lse - row.logp.get(t)!);
      maxT = Math.max(maxT, dT);
      sumT += dT;
      for (const [tok, lp] of row.logp) maxTop = Math.max(maxTop, Math.abs(lg[tok]! - lse - lp));
    }
  });
  return { positions, top1: agree / positions, maxAbsDlogpTarget: maxT, meanAbsDlogpTarget: sumT / positions, maxAbsDlogpTop10: maxTop };
}

/** Top-1 agreement and target |Δ log p| between two llama.cpp runs (e.g. the Q4_1 file and its F32 copy). */
export function compareRows(a: readonly LlamaRow[][], b: readonly LlamaRow[][], docs: readonly number[][]): Omit<ForwardAgreement, "maxAbsDlogpTop10"> {
  let positions = 0, agree = 0, maxT = 0, sumT = 0;
  docs.forEach((ids, d) => {
    for (let i = 0; i + 1 < ids.length; i++) {
      const ra = a[d]![i]!, rb = b[d]![i]!, t = ids[i + 1]!;
      positions++;
      if (ra.top === rb.top) agree++;
      const dT = Math.abs(ra.logp.get(t)! - rb.logp.get(t)!);
      maxT = Math.max(maxT, dT);
      sumT += dT;
    }
  });
  return { positions, top1: agree / positions, maxAbsDlogpTarget: maxT, meanAbsDlogpTarget: sumT / positions };
}

/** Tokenizer agreement on strings, without and with special-token parsing. */
export type TokenizerAgreement = { readonly strings: number; readonly identical: number; readonly firstMismatch: string | null };

/** Our ids against llama.cpp's for each string, plain and with special tokens parsed. */
export function compareTokenizers(ours: BpeTokenizer, llama: LlamaCppModel, strings: readonly string[]): TokenizerAgreement {
  let identical = 0, firstMismatch: string | null = null;
  for (const s of strings) {
    const a = ours.encode(s), b = llama.tokenize(s, false);
    const c = ours.encode(s, { allowSpecial: true }), d = llama.tokenize(s, true);
    const same = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((v, i) => v === y[i]);
    if (same(a, b) && same(c, d)) identical++;
    else firstMismatch ??= `${JSON.stringify(s)}: ours ${JSON.stringify(same(a, b) ? c : a)}, llama.cpp ${JSON.stringify(same(a, b) ? d : b)}`;
  }
  return { strings: strings.length, identical, firstMismatch };
}

/**
 * Writes (once; cached by path) a copy of a GGUF file with every tensor dequantised to F32, same
 * metadata and tensor order: llama.cpp then multiplies in f32, with no activation rounding.
 */
export function writeF32Copy(src: string, out: string): string {
  if (existsSync(out)) return out;
  const f = parseGguf(readFileSync(src), src);
  const meta = [...f.metadata].map(([key, value]) => ({ key, value: key === "general.file_type" ? 0 : value, ...f.metadataTypes.get(key)! }));
  const tensors = [...f.tensors.values()].map((t) => {
    const n = t.dims.reduce((a, b) => a * b, 1);
    return { name: t.name, dims: t.dims, type: GGML_TYPE.F32, data: encodeTensor(dequantize(f.bytes, t.fileOffset, t.type, n, src, t.name), GGML_TYPE.F32) };
  });
  writeAtomically(out, encodeGguf(meta, tensors, f.alignment));
  return out;
}
