/**
 * The one typed training configuration (`SeedConfig`) and its defaults (`defaultConfig`).
 *
 * A method is data: which loss terms are on, with which coefficients, where the teacher's skill
 * comes from, and whether the student sees a skill during rollouts (docs/PAPER.md, Baselines and
 * ablations). Presets
 * in `configs/` are partial `SeedConfig`s merged over `defaultConfig`.
 *
 * Defaults follow the paper (Table 5) except where the embedded tiny model
 * needs its own value; each such departure says why in its TSDoc. Every closed set of string
 * values is written once, in `OPTION_VALUES` (from the registries where one exists: aggregation
 * modes, KL estimators, advantage estimators, environments); the field types and the validation
 * (`check.ts`) both derive from it. Not here: what a config means as a method (`method.ts`),
 * validation (`check.ts`), reading preset files (`presets.ts`) and CLI overrides (`overrides.ts`).
 */
import { aggregations } from "../math/aggregate.ts";
import { advantageEstimators } from "../math/estimators.ts";
import { klEstimators } from "../math/kl.ts";
import { ENV_NAMES } from "../envs/registry.ts";

function keys<T extends object>(registry: T): readonly (keyof T & string)[] {
  return Object.keys(registry) as (keyof T & string)[];
}

/**
 * The allowed values of every string option with a closed set, by dotted path: the one list the
 * field's type (`Choice<path>`) and the validation's choices are both read from.
 */
export const OPTION_VALUES = {
  "rollout.history": ["full", "window"],
  "rollout.prompt": ["verl", "compact"],
  "grpo.std": ["population", "bessel"],
  "grpo.scope": ["trajectories", "steps"],
  "grpo.singleton": ["raw", "zero"],
  "loss.aggregation": keys(aggregations),
  "kl.estimator": keys(klEstimators),
  "pg.advantage": keys(advantageEstimators),
  "opd.denominator": ["response", "active"],
  "opd.teacherScoring": ["live", "frozen"],
  "skills.teacher": ["none", "self", "library", "static-self", "external"],
  "skills.student": ["none", "library"],
  "skills.context": ["insert", "prepend"],
  "eval.skill": ["none", "library"],
  "env.name": ENV_NAMES,
  "stage1.analyzer": ["rule", "llm", "degraded"],
} as const;

/** One allowed value of the option at `path`. */
export type Choice<P extends keyof typeof OPTION_VALUES> = (typeof OPTION_VALUES)[P][number];

/**
 * Where a teacher (or student) skill comes from: `none` (the teacher term, if any, sees the
 * plain context); `self` (SEED: θ_old, or the analyzer snapshot, writes one hindsight skill per
 * trajectory, every update); `library` (the static skill library of `skills/`: SDAR, Skill-SD,
 * RLSD, OPSD, Skill-GRPO); `static-self` (a library written once by the starting checkpoint's
 * analyzer role, then frozen: the "static library" ablation); `external` (the Stage-1 external
 * analyzer writes each trajectory's skill at every update: a privileged control that separates
 * the value of hindsight skills from the quality of the policy's own analyzer role, not a method
 * of the paper).
 */
export type SkillSource = Choice<"skills.teacher">;

/** The whole training configuration. Every field is plain JSON. */
export type SeedConfig = {
  /** What the method is; documentation carried into the run directory. */
  method: {
    /** Preset name (`seed`, `grpo`, ...). What the method computes is `planMethod(config)`; its formula is rendered from that plan (`describeMethod`), never stored. */
    name: string;
  };
  run: {
    /** Base seed; every random stream of the run derives from it. @default 1 */
    seed: number;
    /** Policy updates. 0 runs nothing (the base policy is the result). @default 12 */
    updates: number;
    /** Write a checkpoint every this many updates (the last update always gets one). @default 1 */
    checkpointEvery: number;
    /** Checkpoints kept on disk (oldest removed first). @default 2 */
    keepCheckpoints: number;
    /** Write `samples/update-XXXXXX.jsonl` every this many updates; 0 never. @default 1 */
    samplesEvery: number;
    /** Trajectories per sample file. @default 4 */
    samplesPerUpdate: number;
    /** Consecutive non-finite updates after which training stops with an error. @default 3 */
    maxBadUpdates: number;
  };
  env: {
    /** Environment id (a name of the environment registry). @default "alfworld" */
    name: Choice<"env.name">;
    /** Real benchmark data root; "" uses the environment's seeded generator (no files needed). @default "" */
    data: string;
    /** Split the training tasks come from. @default "train" */
    split: string;
    /** Generated tasks in the pool (ignored with real data). @default 256 */
    generatedTasks: number;
    /** Size of generated games: receptacles per room, ±2 (ALFWorld; the generator's floor is 4). Small rooms keep the full-history sequences short. @default 4 */
    receptacles: number;
    /**
     * Step limit of an episode; 0 takes the protocol's (ALFWorld 30, the paper's and its code's
     * evaluation limit). The `demo` experiment keeps its documented 20 (about 2,500 tokens of full
     * history in small rooms) to stay inside its time budget. @default 0
     */
    maxSteps: number;
    /** Invalid-action penalty c_inv subtracted from an invalid step's score; < 0 takes the protocol's (0.1 ALFWorld). @default -1 */
    invalidPenalty: number;
  };
  policy: {
    /**
     * Starting checkpoint directory. "" builds the embedded base: Stage 0 (behaviour cloning),
     * then Stage 1 (hindsight-skill SFT) when `sft` is true, cached by their configs.
     * @default ""
     */
    init: string;
    /**
     * A finished Stage-0 base checkpoint directory (e.g. the shipped real-room base,
     * `assets/bases/alfworld-real`): Stage 0 is not run, and Stage 1 runs from this base when `sft`
     * is true (cached by a hash of the base's files and the Stage-1 settings). Unlike `init`, which
     * is used as it is. Relative paths resolve against the working directory. "" builds Stage 0.
     * @default ""
     */
    base: string;
    /**
     * A finished Stage-1 SFT checkpoint directory (e.g. `assets/bases/alfworld-real/sft/model`,
     * built from `base` by `seed stage1`): runs with `sft` true start from it and Stage 1 is not
     * run; runs without SFT are unaffected. "" builds Stage 1 when `sft` is true. @default ""
     */
    sftBase: string;
    /** Start from the Stage-1 SFT checkpoint (SEED) or the Stage-0 base (baselines, "w/o SFT"). @default true */
    sft: boolean;
  };
  rollout: {
    /** Tasks per update (the paper and its code: 16; the `demo` experiment uses 4). @default 16 */
    tasksPerUpdate: number;
    /** Group size N (the paper: 8). @default 8 */
    groupSize: number;
    /** History mode: `full` (one growing sequence; cheap for the embedded model) or `window`. @default "full" */
    history: Choice<"rollout.history">;
    /** Window k of the `window` mode; < 0 takes the protocol's. @default -1 */
    window: number;
    /** Sampling temperature of training rollouts. @default 1 */
    temperature: number;
    /** @default 1 */
    topP: number;
    /** @default 0 */
    topK: number;
    /** Most tokens per action (the paper: 512; the embedded agent writes short actions). @default 48 */
    maxActionTokens: number;
    /** Largest prompt + response; 0 takes the policy's. @default 0 */
    maxContext: number;
    /** Restrict actions to the admissible list (off in the paper). @default false */
    actionMask: boolean;
    /**
     * Prompt style (`agent/prompts`): `verl` is verl-agent's wording, what pretrained LLMs should
     * get; `compact` is the short ALFWorld prompt the embedded model is trained on (room
     * sentence, task line, then one observation per turn; no admissible list), about 2.8×
     * fewer tokens per episode. Environments without a compact renderer use their standard one.
     * Stage 0 trains in this style, so a base and every run from it must agree.
     * @default "compact"
     */
    prompt: Choice<"rollout.prompt">;
  };
  optim: {
    /**
     * AdamW learning rate. The paper's 1e-6 is for 1.7-7B pretrained models, a fifth of their
     * 5e-6 SFT step. The embedded model (~0.4M parameters, trained from scratch at 3e-3 in Stage 0
     * and 1e-3 in Stage 1) would not move at 1e-6 in a few dozen updates (Adam moves each weight
     * by about lr per step, and its weights are ~0.05); 1e-4 keeps RL an order of magnitude gentler
     * than its SFT step, as in the paper, while a few updates still change its behaviour.
     * @default 1e-4
     */
    lr: number;
    /** @default 0.9 */
    beta1: number;
    /** @default 0.999 */
    beta2: number;
    /** @default 1e-8 */
    eps: number;
    /** Decoupled weight decay (the reference: 0.01). @default 0.01 */
    weightDecay: number;
    /** Global gradient-norm clip (the reference: 1.0); 0 disables. @default 1 */
    maxGradNorm: number;
  };
  update: {
    /**
     * Mini-batches (optimizer steps) per PPO epoch; sequences are split evenly. 0 derives the
     * count from the reference's mini-batch of `miniBatchSamples` step-samples: max(4,
     * round(S / miniBatchSamples)) for an update of S step-samples, never more than its
     * sequences. A step-sample is one turn (one policy response); in `full` history a trajectory of
     * L turns is one sequence carrying L step-samples and is never split, so a mini-batch of 256
     * step-samples is about 256 / L whole trajectories (16 × 8 trajectories of ~20 turns: 2,560
     * step-samples, 10 mini-batches of ~13 trajectories). In `window` mode a sequence is a turn,
     * as in the reference. @default 0
     */
    miniBatches: number;
    /** Step-samples per mini-batch when `miniBatches` is 0 (the reference's `ppo_mini_batch_size`). @default 256 */
    miniBatchSamples: number;
    /** PPO epochs per update (the reference: 1). @default 1 */
    epochs: number;
  };
  grpo: {
    /** Group std convention: the paper's population std, or verl's Bessel. @default "population" */
    std: Choice<"grpo.std">;
    /** Statistics over one R(τ) per trajectory (paper) or every step-sample (reference code). @default "trajectories" */
    scope: Choice<"grpo.scope">;
    /** @default 1e-6 */
    eps: number;
    /** @default "zero" */
    singleton: Choice<"grpo.singleton">;
    /** @default true */
    normalize: boolean;
  };
  loss: {
    /** Aggregation of every term (the modes of verl's `agg_loss`). @default "token-mean" */
    aggregation: Choice<"loss.aggregation">;
    /** C of `seq-mean-token-sum-norm`. @default 512 */
    normLength: number;
    /**
     * Coefficients of catalogue terms that have no section of their own, by term name (a term
     * added to `math/losses.ts` is switched on here by a preset, with no new config field).
     * @default {}
     */
    terms: Record<string, number>;
  };
  /** The clipped policy-gradient term. */
  pg: {
    /** c_pg; 0 switches the RL term off (OPSD, Vanilla). @default 1 */
    coef: number;
    /** @default 0.2 */
    clipLow: number;
    /** @default 0.2 */
    clipHigh: number;
    /** Dual-clip constant c (> 1); 0 turns the dual clip off (the paper's plain objective). @default 3 */
    dualClip: number;
    /**
     * Token-advantage estimator (`math/estimators.ts`): `grpo` broadcasts the group advantage
     * (RL-Adv); `rlsd` rescales it per token with a library-skill teacher scored frozen.
     * @default "grpo"
     */
    advantage: Choice<"pg.advantage">;
  };
  kl: {
    /** β_KL against the starting weights. @default 0.01 */
    coef: number;
    /** @default "k3" */
    estimator: Choice<"kl.estimator">;
  };
  entropy: {
    /**
     * Entropy bonus coefficient (the reference scripts: 0.001; the paper: none). Must stay 0:
     * entropy needs the full vocabulary, which the per-token-weight seam does not carry.
     * @default 0
     */
    coef: number;
  };
  opd: {
    /** λ_opd, weight of the gated distillation term; 0 switches it off. @default 0.01 */
    coef: number;
    /** Gate sharpness β_opd; 0 gives g ≡ 0.5 (GRPO+OPSD). @default 5 */
    beta: number;
    /** Denominator of the term when some skills are invalid (`gatedDistillation`). @default "response" */
    denominator: Choice<"opd.denominator">;
    /**
     * `live`: teacher log-probs rescored with the current weights before every mini-batch (the
     * paper's Algorithm 1). `frozen`: scored once per update with θ_old (the reference code).
     * Identical with one mini-batch and one epoch.
     * @default "live"
     */
    teacherScoring: Choice<"opd.teacherScoring">;
  };
  skillSd: {
    /** λ of the Skill-SD term (scripts: 0.001); 0 switches it off. @default 0 */
    coef: number;
  };
  /** Settings of the `rlsd` advantage estimator (`pg.advantage`). */
  rlsd: {
    /** @default 0.5 */
    lambda0: number;
    /** @default 100 */
    warmDown: number;
    /** @default 0.2 */
    epsW: number;
  };
  skills: {
    /** Source of the teacher context's skill. @default "self" */
    teacher: SkillSource;
    /** Skill in the student's rollout context (Skill-GRPO, Skill-Prompt): `none` or `library`. @default "none" */
    student: Choice<"skills.student">;
    /** H: `insert` after the task line (SEED) or `prepend` a privileged block (SDAR family). @default "insert" */
    context: Choice<"skills.context">;
    /**
     * Refresh the analyzer every K updates: K = 1 is SEED (θ_old analyses its own rollouts every
     * update); K > 1 keeps a snapshot for K updates; 0 never refreshes (the starting checkpoint
     * analyses throughout: "w/o self-evolving refresh").
     * @default 1
     */
    refreshEvery: number;
    /** Analyzer attempts per trajectory (the paper's Stage 2: one greedy attempt). @default 1 */
    analyzerAttempts: number;
    /** Most tokens of one analyzer answer (the rule-based skills run to 400 characters). @default 160 */
    maxSkillTokens: number;
    /** Rollouts per task the starting checkpoint analyses to build the `static-self` library. @default 2 */
    staticRollouts: number;
  };
  eval: {
    /** Skill in the evaluation context (Skill-GRPO*, Skill-Prompt use `library`). @default "none" */
    skill: Choice<"eval.skill">;
    /** Evaluation sampling temperature (the reference validation: 0.4). @default 0.4 */
    temperature: number;
  };
  stage0: Stage0Config;
  stage1: Stage1Config;
};

/** Stage 0: the embedded base agent (behaviour cloning on noisy-expert episodes, some with hints). */
export type Stage0Config = {
  /**
   * A pretrained checkpoint directory to fine-tune instead of a fresh model (e.g. SmolLM2 from
   * `seed model import-gguf`): the corpus is encoded with its tokenizer, which must have the
   * ChatML markers, and `model`, `dModel`, `layers` and `vocabSize` are not used. "" builds the
   * seeded tiny model and its BPE. @default ""
   */
  init: string;
  /** Model shape preset (`embedded`, `tiny`, ...; see `model/config.ts`). @default "embedded" */
  model: string;
  /** Width d_model instead of the preset's (0 keeps it; heads stay 4 of size d/4). @default 96 */
  dModel: number;
  /** Layers instead of the preset's (0 keeps it). @default 4 */
  layers: number;
  /** BPE vocabulary size. @default 1024 */
  vocabSize: number;
  /** Model context (tokens): 20 steps of full history in a small room. @default 3072 */
  maxContext: number;
  /** Training games of the corpus (generated, or the first of the real train split). @default 400 */
  games: number;
  /** Noisy-expert episodes per game. @default 2 */
  episodesPerGame: number;
  /** Random-action rate of an episode without a hint. @default 0.3 */
  epsilon: number;
  /** Share of episodes that carry a correct hint inserted by H (0.5 measured weaker hint-following; docs/TRAINING.md §6). @default 0.7 */
  hintShare: number;
  /** Random-action rate of an episode with a hint (the demonstrator follows it with less noise). @default 0.05 */
  hintEpsilon: number;
  /**
   * Share of hinted episodes whose hint is the rule analyzer's skill of a noisy episode of the
   * same game (ε = `selfHintEpsilon`) instead of the clean expert's: an avoidance rule when that
   * episode failed, a workflow with its detours when it won, the kinds of skill the analyzer
   * writes about an agent's own rollouts. 0 keeps the clean-expert hints only. @default 0
   */
  selfHints: number;
  /** Random-action rate of the noisy episode a self hint is written from. @default 0.5 */
  selfHintEpsilon: number;
  /**
   * Train the random actions of unhinted episodes too, so that without a skill the base imitates
   * the noisy demonstrator and with one the clean expert: the teacher (skill in context) then
   * prefers plan-shortening actions over the student, which is SEED's premise. @default false
   */
  trainPlainNoise: boolean;
  /**
   * Loss weight of the context tokens after the first response (observations, information
   * blocks), next to 1 on the expert's responses: a little language modelling of what the
   * environment shows. Names repeat in that text (a searched entity comes back as the passage
   * title), so it teaches the model to copy, which the responses alone (about 30 trained tokens
   * per Search-QA episode) did not in 800 steps. @default 0
   */
  contextWeight: number;
  /** Optimizer steps of behaviour cloning (about 12 passes over the corpus; 1,200 measured a base that barely reads hints). @default 2400 */
  steps: number;
  /** Sequences per optimizer step. @default 4 */
  batch: number;
  /** Peak learning rate (linear warm-up 5%, cosine decay). @default 3e-3 */
  lr: number;
  /** Held-out games for the success and hint-shift report. @default 24 */
  evalGames: number;
  /** Temperature of the success report's rollouts. @default 0.4 */
  evalTemperature: number;
};

/** Stage 1: offline collection, external analyzer, validation, hindsight-skill SFT. */
export type Stage1Config = {
  /** Tasks M of the offline collection (paper: 180; 96 × 4 gives the SFT ~350 examples). @default 96 */
  tasks: number;
  /** Rollouts K0 per task (paper: 8). @default 4 */
  rollouts: number;
  /** Sampling temperature of the collection (the reference: 0.4). @default 0.4 */
  temperature: number;
  /** External analyzer: `rule` (rule-based hindsight, default), `llm` (OpenAI-compatible endpoint), `degraded`. @default "rule" */
  analyzer: Choice<"stage1.analyzer">;
  /** Base URL of the OpenAI-compatible endpoint for `llm` (e.g. http://127.0.0.1:8000/v1). @default "" */
  endpoint: string;
  /** Model name at the endpoint. @default "" */
  model: string;
  /** Degradation rate of the `degraded` analyzer. @default 0.3 */
  degradeRate: number;
  /**
   * Behaviour-cloning replay mixed into the SFT: this many Stage-0 demonstrations per analyzer
   * example. A ~0.5M-parameter model fine-tuned on analyzer answers alone forgets how to act (we
   * measured every action invalid afterwards); a pretrained LLM does not need this. 0 turns it off.
   * @default 1
   */
  replay: number;
  /** SFT epochs (paper: 3). @default 3 */
  epochs: number;
  /** Sequences per SFT step (the reference: 8; 4 gives the small corpus more steps). @default 4 */
  batch: number;
  /**
   * SFT learning rate (the reference: 5e-6 for 3B). The embedded model has never seen the
   * analyzer's JSON answers, so it needs a from-scratch-sized step: a third of Stage 0's.
   * @default 1e-3
   */
  lr: number;
};

/** The defaults: the paper's method (SEED) with the embedded model's sizes. */
export const defaultConfig: SeedConfig = {
  method: { name: "seed" },
  run: { seed: 1, updates: 12, checkpointEvery: 1, keepCheckpoints: 2, samplesEvery: 1, samplesPerUpdate: 4, maxBadUpdates: 3 },
  env: { name: "alfworld", data: "", split: "train", generatedTasks: 256, receptacles: 4, maxSteps: 0, invalidPenalty: -1 },
  policy: { init: "", base: "", sftBase: "", sft: true },
  rollout: { tasksPerUpdate: 16, groupSize: 8, history: "full", window: -1, temperature: 1, topP: 1, topK: 0, maxActionTokens: 48, maxContext: 0, actionMask: false, prompt: "compact" },
  optim: { lr: 1e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 },
  update: { miniBatches: 0, miniBatchSamples: 256, epochs: 1 },
  grpo: { std: "population", scope: "trajectories", eps: 1e-6, singleton: "zero", normalize: true },
  loss: { aggregation: "token-mean", normLength: 512, terms: {} },
  pg: { coef: 1, clipLow: 0.2, clipHigh: 0.2, dualClip: 3, advantage: "grpo" },
  kl: { coef: 0.01, estimator: "k3" },
  entropy: { coef: 0 },
  opd: { coef: 0.01, beta: 5, denominator: "response", teacherScoring: "live" },
  skillSd: { coef: 0 },
  rlsd: { lambda0: 0.5, warmDown: 100, epsW: 0.2 },
  skills: { teacher: "self", student: "none", context: "insert", refreshEvery: 1, analyzerAttempts: 1, maxSkillTokens: 160, staticRollouts: 2 },
  eval: { skill: "none", temperature: 0.4 },
  stage0: {
    init: "", model: "embedded", dModel: 96, layers: 4, vocabSize: 1024, maxContext: 3072, games: 400, episodesPerGame: 2, epsilon: 0.3, hintShare: 0.7, hintEpsilon: 0.05, selfHints: 0, selfHintEpsilon: 0.5, trainPlainNoise: false, contextWeight: 0,
    steps: 2400, batch: 4, lr: 3e-3, evalGames: 24, evalTemperature: 0.4,
  },
  stage1: { tasks: 96, rollouts: 4, temperature: 0.4, analyzer: "rule", endpoint: "", model: "", degradeRate: 0.3, replay: 1, epochs: 3, batch: 4, lr: 1e-3 },
};

/** A deep copy of `base` with the (already shape-checked) partial `patch` merged in. */
export function mergeConfig<T>(base: T, patch: unknown): T {
  if (typeof base !== "object" || base === null || typeof patch !== "object" || patch === null) return (patch === undefined ? structuredClone(base) : patch) as T;
  const out = structuredClone(base) as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) out[k] = mergeConfig(out[k], v);
  return out as T;
}
