/**
 * Stages `analyze` and `teacher views`: the skill of each trajectory (the analyzer role of θ_old
 * or its snapshot, the static library, the frozen `static-self` library, or the Stage-1 external
 * analyzer as a control), then the teacher's
 * view of every sequence: the recorded prompt text rebuilt through H with that skill, followed by
 * the sampled ids untouched (agent/training-views.ts). A trajectory without a usable skill has no
 * teacher view (v_τ = 0): no distillation term, the RL term unchanged.
 */
import { ContextLimitError } from "../../core/errors.ts";
import type { Trajectory } from "../../core/trajectory.ts";
import { teacherSequences, type ScoredSequence } from "../../agent/training-views.ts";
import { applySkill, skillContextEnd } from "../../skills/context.ts";
import type { UpdateContext } from "../context.ts";
import type { TeacherSkills } from "../../skills/sources.ts";
import { deriveSeed } from "../../core/rng.ts";
import { contextLimit } from "../../config/resolve.ts";
import { externalAnalyzer, externalSkills, librarySkills, selfSkills, staticSkills } from "../../skills/sources.ts";
import type { UpdateSequences } from "../sequences.ts";

/** The teacher skill of every trajectory, by the config's source. */
export async function teacherSkills(ctx: UpdateContext, trajectories: readonly Trajectory[]): Promise<TeacherSkills> {
  const c = ctx.config;
  switch (c.skills.teacher) {
    case "none":
      return { skills: trajectories.map(() => ""), valid: trajectories.map(() => 0), metrics: {} };
    case "library":
      return librarySkills(ctx.env.name, trajectories);
    case "static-self":
      return staticSkills(ctx.env.name, ctx.staticLibrary ?? {}, trajectories);
    case "external":
      return externalSkills(externalAnalyzer(c), trajectories);
    case "self": {
      if (ctx.analyzer === null) throw new Error("self skills need an analyzer policy");
      const maxContext = contextLimit(c, ctx.analyzer.maxContext);
      return selfSkills(ctx.analyzer, ctx.chat, trajectories, {
        maxSkillTokens: c.skills.maxSkillTokens, maxContext, attempts: c.skills.analyzerAttempts, seed: deriveSeed(c.run.seed, "analyze", ctx.update),
      });
    }
  }
}

/**
 * Teacher views aligned with `all.sequences`, how many trajectories could not fit theirs
 * (`unfit`), and how many views the context limit cut (`truncated`; the cut always keeps the
 * task line and the skill, `skillContextEnd`).
 */
export function teacherViews(ctx: UpdateContext, trajectories: readonly Trajectory[], all: UpdateSequences, skills: TeacherSkills): { views: (ScoredSequence | undefined)[]; valid: number[]; unfit: number; truncated: number; viewed: number } {
  const maxContext = contextLimit(ctx.config, ctx.policy.maxContext);
  const perTraj: (ScoredSequence[] | undefined)[] = trajectories.map(() => undefined);
  const valid = [...skills.valid];
  let unfit = 0;
  const mode = ctx.config.skills.context;
  trajectories.forEach((traj, t) => {
    if (valid[t] !== 1) return;
    const skill = skills.skills[t]!;
    try {
      perTraj[t] = teacherSequences(traj, (text) => applySkill(text, skill, mode), ctx.chat, { maxContext, keepChars: (text) => skillContextEnd(text, skill, mode) });
    } catch (e) {
      if (!(e instanceof ContextLimitError)) throw e;
      valid[t] = 0;
      unfit++;
    }
  });
  const built = perTraj.flatMap((list) => list ?? []);
  const truncated = built.filter((v) => (v.promptCut ?? 0) > 0).length;
  const next = trajectories.map(() => 0);
  const views = all.sequences.map((s) => {
    const list = perTraj[s.traj];
    const k = next[s.traj]!++;
    return list?.[k];
  });
  return { views, valid, unfit, truncated, viewed: built.length };
}
