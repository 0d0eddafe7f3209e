/**
 * The settings a checkpoint acts under: the environment (name, data, step limit, room size) and
 * the agent's rollout settings (prompt style, history mode and window, action budget, mask) it
 * was trained with. Evaluating a checkpoint in process and evaluating it served by `seed serve`
 * both start from these, so the two see the same prompts and history (`seed serve` publishes
 * them at `GET /v1/seed/agent`, and `seed eval --policy` reads them from there).
 *
 * Where they come from, first match:
 *   a run directory's checkpoint   the run's `config.json`
 *   a Stage-0/1 model (`<out>/model`)  the `settings` recorded in `<out>/stage0.json` or
 *                                  `stage1.json`; older reports: ALFWorld and their `prompt`
 *   anything else                  none (the caller uses defaults and asks for `--env`)
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { readJsonFile } from "../core/fs.ts";
import { defaultConfig, mergeConfig, type SeedConfig } from "../config/config.ts";
import { shapeIssues } from "../config/check.ts";
import { readRunConfig, upgradeConfig, type CheckpointTarget } from "../run/run-dir.ts";

/** A config a checkpoint acts under, and where it was read. */
export type AgentSettings = {
  readonly config: SeedConfig;
  /** e.g. "the run at runs/seed", "the Stage-0 report runs/stage0/stage0.json". */
  readonly source: string;
};

/** The settings of the checkpoint `target` names, or null when nothing records them. */
export function checkpointAgentSettings(target: CheckpointTarget): AgentSettings | null {
  if (target.runDir !== null) return { config: readRunConfig(target.runDir), source: `the run at ${target.runDir}` };
  const out = dirname(target.policyDir);
  for (const [file, stage] of [["stage1.json", "Stage-1"], ["stage0.json", "Stage-0"]] as const) {
    const path = join(out, file);
    if (!existsSync(path)) continue;
    const report = readJsonFile(path) as { settings?: unknown; prompt?: unknown };
    if (typeof report !== "object" || report === null) throw new UsageError(`${path} is not a stage report (not a JSON object)`);
    // Reports written before `settings` was recorded: Stage 0/1 build ALFWorld agents only.
    const patch = report.settings ?? { env: { name: "alfworld" }, ...(typeof report.prompt === "string" ? { rollout: { prompt: report.prompt } } : {}) };
    const issues = shapeIssues(patch);
    if (issues.length > 0) throw new UsageError(`${path}: its settings are not a valid config part (${issues.slice(0, 2).map((i) => `${i.path}: ${i.message}`).join("; ")})`);
    return { config: mergeConfig(defaultConfig, patch), source: `the ${stage} report ${path}` };
  }
  return null;
}

/**
 * The settings a server published (`seed serve`'s `/v1/seed/agent` document), checked like a run's
 * config.json: an unusable document is a `UsageError` naming `where`.
 */
export function publishedAgentSettings(document: unknown, where: string): AgentSettings {
  const doc = document as { config?: unknown; source?: unknown };
  const config = upgradeConfig(doc?.config);
  const issues = typeof config === "object" && config !== null ? shapeIssues(config) : [{ path: "config", message: "missing" }];
  if (issues.length > 0) throw new UsageError(`${where} is not a usable agent settings document (${issues.slice(0, 2).map((i) => `${i.path}: ${i.message}`).join("; ")})`);
  return { config: mergeConfig(defaultConfig, config), source: `${typeof doc.source === "string" ? doc.source : "the served checkpoint"}, as ${where} publishes` };
}
