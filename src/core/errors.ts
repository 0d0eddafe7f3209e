/**
 * Small named error classes. Expected, routine failures (an unparseable action, a malformed
 * skill) are `Result` values, not exceptions; these are for user, config and system errors.
 * The CLI prints `message` of a `SeedError` without a stack trace: write messages a user can act on.
 */

/** Base class of every error the library throws on purpose. */
export class SeedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A user mistake on the command line or in an input file (bad flag, missing file). */
export class UsageError extends SeedError {}

/** One problem in a configuration, located by its dotted path. */
export type ConfigIssue = { readonly path: string; readonly message: string };

/** A configuration with one or more problems; all are reported at once. */
export class ConfigError extends SeedError {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("\n"));
    this.issues = issues;
  }
}

/** A checkpoint, weights or tokenizer file that is missing, corrupt, truncated or mismatched. */
export class CheckpointError extends SeedError {
  readonly path: string;
  constructor(path: string, problem: string, options?: ErrorOptions) {
    super(`${path}: ${problem}`, options);
    this.path = path;
  }
}

/** Tensor shapes, dtypes or values that a kernel cannot accept. */
export class ShapeError extends SeedError {}

/** A token sequence longer than a model's context window. */
export class ContextLimitError extends SeedError {
  readonly limit: number;
  readonly needed: number;
  constructor(limit: number, needed: number) {
    super(`sequence of ${needed} tokens exceeds the context limit of ${limit}`);
    this.limit = limit;
    this.needed = needed;
  }
}

/** A data file (benchmark game, catalogue, QA set) that cannot be read or is malformed. */
export class DataError extends SeedError {}

/** An episode was stepped after it ended, or an environment was used before reset. */
export class EnvStateError extends SeedError {}

/** A remote server (OpenAI-compatible endpoint) failed or lacks a feature we need. */
export class RemoteError extends SeedError {}
