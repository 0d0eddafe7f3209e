/**
 * Action masking (off by default, as in the paper): a `TokenConstraint` that leaves sampling
 * free until the response contains the token ids of `<action>`, then allows only token
 * sequences spelling one admissible action followed by `</action>`, then only a stop token.
 * The same constraint is replayed over the sampled ids (`replayConstraint`) so that scoring
 * applies the mask too (`ScoreRequest.allowed`).
 *
 * Tokenization caveat (BPE): the trie holds, for every action `a`, the ids that follow the
 * opener when `<action>a</action>` is encoded as one string, i.e. how the tokenizer writes the
 * action in that position. When a merge crosses the opener's boundary in that encoding, the
 * action's own encoding `a</action>` is used instead. The mask engages only when the model emits
 * the opener as exactly the ids `encode("<action>")` gives (with or without special tokens); a
 * model that spells the opener with other ids escapes the mask for that response.
 */
import type { TokenConstraint, Tokenizer } from "../policy/policy.ts";
import type { MaskEntry } from "./prompts/renderer.ts";

const OPEN = "<action>";
const CLOSE = "</action>";

type TrieNode = {
  readonly children: Map<number, TrieNode>;
  /** A complete `action</action>` ends here: only stop tokens may follow. */
  leaf: boolean;
  /** An open entry's prefix ends here: anything may follow. */
  free: boolean;
};

function node(): TrieNode {
  return { children: new Map(), leaf: false, free: false };
}

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  return prefix.length <= ids.length && prefix.every((t, i) => ids[i] === t);
}

/** One opener spelling (plain text or special token) and the trie of what may follow it. */
type Branch = { readonly opener: readonly number[]; readonly root: TrieNode };

/** The first opener occurrence in `ids`: where it ends and which branch it belongs to. */
function findOpener(ids: readonly number[], branches: readonly Branch[]): { end: number; branch: Branch } | undefined {
  for (let i = 0; i < ids.length; i++) {
    for (const b of branches) {
      const o = b.opener;
      if (o.length > 0 && i + o.length <= ids.length && o.every((t, j) => ids[i + j] === t)) return { end: i + o.length, branch: b };
    }
  }
  return undefined;
}

/** The action-mask constraint of one observation. Build it with {@link buildActionMask}. */
export class ActionMask implements TokenConstraint {
  private readonly branches: readonly Branch[];
  private readonly stopTokens: readonly number[];
  /** Number of (entry, opener) pairs that fell back to the standalone encoding (BPE merge at the opener). */
  readonly fallbacks: number;

  constructor(branches: readonly Branch[], stopTokens: readonly number[], fallbacks: number) {
    this.branches = branches;
    this.stopTokens = stopTokens;
    this.fallbacks = fallbacks;
  }

  allowed(generated: readonly number[]): readonly number[] | null {
    const found = findOpener(generated, this.branches);
    if (found === undefined) return null;
    let at = found.branch.root;
    for (let i = found.end; i < generated.length; i++) {
      // Past a free prefix or a complete action (the latter only if no stop token ended sampling).
      if (at.free || at.leaf) return null;
      const next = at.children.get(generated[i]!);
      if (next === undefined) return null; // left the trie: these ids were not sampled under this mask
      at = next;
    }
    if (at.free) return null;
    if (at.leaf) return this.stopTokens;
    return [...at.children.keys()];
  }
}

function insert(root: TrieNode, seq: readonly number[], open: boolean): void {
  let at = root;
  for (const t of seq) {
    let next = at.children.get(t);
    if (next === undefined) {
      next = node();
      at.children.set(t, next);
    }
    at = next;
  }
  if (open) at.free = true;
  else at.leaf = true;
}

/**
 * The action mask for a list of entries, or undefined when the list is empty (a mask that
 * allows nothing would make sampling impossible). One trie per spelling of the opener: as plain
 * text, and as a special token where the tokenizer has one for `<action>`.
 * @param stopTokens ids allowed once `</action>` is complete (the chat end-of-turn and EOS).
 */
export function buildActionMask(tokenizer: Tokenizer, entries: readonly MaskEntry[], stopTokens: readonly number[]): ActionMask | undefined {
  if (entries.length === 0) return undefined;
  const branches: Branch[] = [];
  let fallbacks = 0;
  for (const allowSpecial of [false, true]) {
    const opener = tokenizer.encode(OPEN, { allowSpecial });
    if (branches.some((b) => b.opener.length === opener.length && b.opener.every((t, i) => t === opener[i]))) continue;
    const root = node();
    for (const entry of entries) {
      const tail = entry.open ? entry.text : entry.text + CLOSE;
      const full = tokenizer.encode(OPEN + tail, { allowSpecial });
      let seq: number[];
      if (startsWith(full, opener)) seq = full.slice(opener.length);
      else {
        fallbacks++;
        seq = tokenizer.encode(tail, { allowSpecial });
      }
      if (seq.length > 0) insert(root, seq, entry.open);
    }
    branches.push({ opener, root });
  }
  return new ActionMask(branches, [...stopTokens], fallbacks);
}

/**
 * The allowed ids at every position of a sampled response, replayed from the constraint:
 * `allowed[i]` restricted the choice of `sampled[i]` (null: unrestricted). This is what
 * `ScoreRequest.allowed` needs at the response's positions.
 */
export function replayConstraint(constraint: TokenConstraint, sampled: readonly number[]): (readonly number[] | null)[] {
  const out: (readonly number[] | null)[] = [];
  for (let i = 0; i < sampled.length; i++) out.push(constraint.allowed(sampled.slice(0, i)));
  return out;
}
