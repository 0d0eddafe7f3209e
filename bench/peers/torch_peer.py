"""PyTorch CPU peer of `seed bench engine`: the same Qwen2-family architecture as
src/model/transformer.ts (RMSNorm, rotate-half RoPE, GQA, SwiGLU, qkv bias, tied embeddings),
written in plain eager PyTorch, timed on the same workloads. Prints one JSON object on stdout.

Usage: python3 torch_peer.py '<json options>'   (see `main` for the keys)
Each measurement is independent; a failing one reports null with its error, never the others.
"""
import json
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, hd = c["dModel"], c["dModel"] // c["nHeads"]
        self.h, self.hkv, self.hd = c["nHeads"], c["nKvHeads"], hd
        self.input_layernorm = RMSNorm(d, c["rmsNormEps"])
        self.q_proj = nn.Linear(d, d, bias=c["qkvBias"])
        self.k_proj = nn.Linear(d, self.hkv * hd, bias=c["qkvBias"])
        self.v_proj = nn.Linear(d, self.hkv * hd, bias=c["qkvBias"])
        self.o_proj = nn.Linear(d, d, bias=False)
        self.post_attention_layernorm = RMSNorm(d, c["rmsNormEps"])
        self.gate_proj = nn.Linear(d, c["ffnSize"], bias=False)
        self.up_proj = nn.Linear(d, c["ffnSize"], bias=False)
        self.down_proj = nn.Linear(c["ffnSize"], d, bias=False)

    def forward(self, x, cos, sin, cache=None):
        B, T, D = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(B, T, self.hkv, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(B, T, self.hkv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        rep = self.h // self.hkv
        if rep > 1:
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        # causal only when the queries start at key 0 (training, prefill); one decode query sees all keys
        causal = T > 1
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal) if hasattr(F, "scaled_dot_product_attention") \
            else manual_attention(q, k, v, causal)
        x = x + self.o_proj(a.transpose(1, 2).reshape(B, T, D))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def manual_attention(q, k, v, causal):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        T, L = s.shape[-2], s.shape[-1]
        mask = torch.ones(T, L, dtype=torch.bool).triu(L - T + 1)
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocabSize"], c["dModel"])
        self.layers = nn.ModuleList([Layer(c) for _ in range(c["nLayers"])])
        self.norm = RMSNorm(c["dModel"], c["rmsNormEps"])
        hd = c["dModel"] // c["nHeads"]
        self.inv_freq = 1.0 / (c["ropeTheta"] ** (torch.arange(0, hd, 2).float() / hd))
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)

    def rope(self, start, T):
        t = torch.arange(start, start + T).float()
        f = torch.outer(t, self.inv_freq)
        e = torch.cat([f, f], dim=-1)
        return e.cos(), e.sin()

    def hidden(self, ids, start=0, caches=None):
        x = self.embed_tokens(ids)
        cos, sin = self.rope(start, ids.shape[1])
        for i, layer in enumerate(self.layers):
            x = layer(x, cos, sin, None if caches is None else caches[i])
        return self.norm(x)

    def logprobs(self, ids):
        h = self.hidden(ids[:, :-1])
        logits = h @ self.embed_tokens.weight.t()
        return torch.log_softmax(logits.float(), dim=-1).gather(-1, ids[:, 1:, None]).squeeze(-1)


def timed(fn, reps):
    """Best wall time of `reps` runs after a warm-up, and the process CPU time of that run."""
    fn()  # warm-up
    best, cpu = float("inf"), float("nan")
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall = time.perf_counter() - t
        if wall < best:
            best, cpu = wall, time.process_time() - c
    return best, cpu


def train_step(model, opt, ids, bf16):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = -model.logprobs(ids).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()


@torch.no_grad()
def greedy(model, batch, prompt_len, new_tokens, vocab):
    ids = torch.randint(0, vocab, (batch, prompt_len))
    caches = [dict() for _ in model.layers]
    h = model.hidden(ids, 0, caches)
    pos = prompt_len
    for _ in range(new_tokens):
        nxt = (h[:, -1] @ model.embed_tokens.weight.t()).argmax(-1, keepdim=True)
        h = model.hidden(nxt, pos, caches)
        pos += 1


def main():
    o = json.loads(sys.argv[1])
    torch.manual_seed(o.get("seed", 0))
    torch.set_num_threads(o["threads"])
    c = o["config"]
    model = Model(c)
    out = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    B, T = o["batch"], o["seqLen"]
    ids = torch.randint(0, c["vocabSize"], (B, T + 1))
    for key in o["measure"]:
        try:
            if key in ("train_fp32", "train_bf16"):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)
                out[key + "_s"], out[key + "_cpu_s"] = timed(lambda: train_step(model, opt, ids, key == "train_bf16"), o["reps"])
            elif key == "score":
                with torch.no_grad():
                    s, _ = timed(lambda: model.logprobs(ids), o["reps"])
                out["score_tok_s"] = B * T / s
            elif key.startswith("sample_b"):
                b = int(key[len("sample_b"):])
                s, _ = timed(lambda: greedy(model, b, o["promptLen"], o["newTokens"], c["vocabSize"]), 1)
                out[key + "_tok_s"] = b * o["newTokens"] / s
        except Exception as e:  # report, keep measuring the rest
            out[key + "_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
