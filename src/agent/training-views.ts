/**
 * What training reads from a trajectory: `ScoreRequest`s with the loss mask of every scored
 * position, for the policy itself (student, old, reference log-probs) and for the teacher, whose
 * context is the prompt text rebuilt through an injected transform (the skill function H).
 *
 * - `window` mode: one sequence per turn, `prompt + sampled`, scored from the first sampled id.
 * - `full` mode: one sequence per trajectory, `turn0.prompt + turn0.sampled + turn1.prompt + ...`,
 *   scored from the first sampled id; the loss mask is 1 only on sampled ids, so one forward pass
 *   gives the log-probs of every action.
 * The teacher sequence replaces the (first) prompt with `template(H(promptText))` and keeps every
 * other id, the sampled ones above all, unchanged: the response is never re-encoded.
 * Masked turns carry their action mask into `allowed`, so every log-prob is of the distribution
 * actually sampled.
 */
import { ContextLimitError } from "../core/errors.ts";
import type { Trajectory, Turn } from "../core/trajectory.ts";
import type { ScoreRequest } from "../policy/policy.ts";
import type { ChatFormat } from "../policy/chat-format.ts";

/** Where one turn's sampled ids sit among a sequence's scored positions. */
export type TurnSegment = { readonly turn: number; readonly offset: number; readonly length: number };

/** One sequence to score, with its loss mask and the turns it covers. */
export type ScoredSequence = {
  readonly request: ScoreRequest;
  /** Per scored position (length `tokens.length - start`): 1 where the policy sampled the id. */
  readonly lossMask: Uint8Array;
  /** The turns whose sampled ids this sequence scores, in order. */
  readonly segments: readonly TurnSegment[];
  /** Teacher views only: prompt ids the context limit removed (absent or 0 when none). */
  readonly promptCut?: number;
};

function windowSequence(prompt: readonly number[], turn: Turn, index: number): ScoredSequence {
  const n = turn.sampledTokens.length;
  return {
    request: {
      tokens: [...prompt, ...turn.sampledTokens],
      start: prompt.length,
      ...(turn.masked && turn.allowedTokens ? { allowed: turn.allowedTokens } : {}),
    },
    lossMask: new Uint8Array(n).fill(1),
    segments: [{ turn: index, offset: 0, length: n }],
  };
}

function fullSequence(firstPrompt: readonly number[], turns: readonly Turn[]): ScoredSequence {
  const tokens: number[] = [...firstPrompt];
  const mask: number[] = [];
  const allowed: (readonly number[] | null)[] = [];
  const segments: TurnSegment[] = [];
  turns.forEach((turn, i) => {
    if (i > 0) {
      tokens.push(...turn.promptTokens);
      for (let j = 0; j < turn.promptTokens.length; j++) {
        mask.push(0);
        allowed.push(null);
      }
    }
    segments.push({ turn: i, offset: mask.length, length: turn.sampledTokens.length });
    tokens.push(...turn.sampledTokens);
    turn.sampledTokens.forEach((_, j) => {
      mask.push(1);
      allowed.push(turn.masked ? (turn.allowedTokens?.[j] ?? null) : null);
    });
  });
  const anyMask = turns.some((t) => t.masked);
  return { request: { tokens, start: firstPrompt.length, ...(anyMask ? { allowed } : {}) }, lossMask: Uint8Array.from(mask), segments };
}

/**
 * The policy's own scoring view of a trajectory, Eq. (Student) ℓ_θ = log π_θ(a | h) (and the
 * old and reference log-probs):
 * one sequence per turn in window mode, one per trajectory in full mode, none for an episode
 * that ended before its first action.
 */
export function policySequences(traj: Trajectory): ScoredSequence[] {
  if (traj.turns.length === 0) return [];
  if (traj.historyMode === "window") return traj.turns.map((t, i) => windowSequence(t.promptTokens, t, i));
  return [fullSequence(traj.turns[0]!.promptTokens, traj.turns)];
}

/** Options of {@link teacherSequences}. */
export type TeacherOptions = {
  /**
   * Longest teacher sequence; a longer rebuilt prompt loses its start (SEED's `left`
   * truncation, chat header included). The sampled ids are never cut.
   * @default no limit
   */
  readonly maxContext?: number;
  /**
   * How many leading characters of a rebuilt user text a cut must keep (the task line and the
   * skill block); with it, a prompt that does not fit loses the ids right after that head (the
   * oldest history) instead of its start, and a view whose head and tail alone do not fit throws.
   * @default none: SEED's left truncation
   */
  readonly keepChars?: (userText: string) => number;
};

/** Length of the longest common prefix (or, with `fromEnd`, suffix) of two id lists. */
function commonRun(a: readonly number[], b: readonly number[], fromEnd = false): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && (fromEnd ? a[a.length - 1 - k] === b[b.length - 1 - k] : a[k] === b[k])) k++;
  return k;
}

/**
 * The teacher's view, Eq. (Teacher) ℓ_skill = log π_θ(a | H(h, s)): the same sampled ids after a
 * context rebuilt from the recorded prompt text,
 * `chat.prompt(transform(promptText))` per turn (window mode) or once for the first user message
 * (full mode; later turns keep their ids). `chat` must be the format the rollout used.
 * @throws ContextLimitError when even a fully truncated prompt leaves too little room (cannot
 *   happen for a trajectory that fitted `maxContext` when it was sampled)
 */
export function teacherSequences(traj: Trajectory, transform: (promptText: string) => string, chat: ChatFormat, options: TeacherOptions = {}): ScoredSequence[] {
  if (traj.turns.length === 0) return [];
  const limit = options.maxContext ?? Number.POSITIVE_INFINITY;
  const keep = options.keepChars;
  const truncate = (text: string, rest: number): { ids: number[]; cut: number } => {
    const prompt = chat.prompt(text);
    if (prompt.length + rest <= limit) return { ids: prompt, cut: 0 };
    if (rest >= limit) throw new ContextLimitError(limit, rest + 1);
    const need = prompt.length + rest - limit;
    if (keep === undefined) return { ids: prompt.slice(need), cut: need };
    // Keep the head (chat header, task line, skill) and the generation header; cut in between.
    const head = commonRun(prompt, chat.prompt(text.slice(0, keep(text))));
    const tail = commonRun(prompt, chat.prompt(""), true);
    if (head + tail + need > prompt.length) throw new ContextLimitError(limit, head + tail + rest + 1);
    return { ids: [...prompt.slice(0, head), ...prompt.slice(head + need)], cut: need };
  };
  const withCut = (s: ScoredSequence, cut: number): ScoredSequence => (cut > 0 ? { ...s, promptCut: cut } : s);
  if (traj.historyMode === "window") {
    return traj.turns.map((t, i) => {
      const p = truncate(transform(t.promptText), t.sampledTokens.length);
      return withCut(windowSequence(p.ids, t, i), p.cut);
    });
  }
  const rest = traj.turns.reduce((n, t, i) => n + t.sampledTokens.length + (i > 0 ? t.promptTokens.length : 0), 0);
  const p = truncate(transform(traj.turns[0]!.promptText), rest);
  return [withCut(fullSequence(p.ids, traj.turns), p.cut)];
}

/**
 * Per-turn values from a scored sequence's output, using its segments: `out[turn]` holds the
 * log-probs of that turn's sampled ids.
 */
export function splitByTurn(sequences: readonly ScoredSequence[], scored: readonly Float32Array[]): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  sequences.forEach((s, i) => {
    const values = scored[i]!;
    for (const seg of s.segments) out.set(seg.turn, values.subarray(seg.offset, seg.offset + seg.length));
  });
  return out;
}
