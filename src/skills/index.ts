/**
 * The skills layer: trajectory serialization for the analyzer, the analyzer template and skill
 * format, parse/repair/validate, H (skill insertion), the rule-based, LLM and degraded analyzers,
 * and the static skill library. Imports `core/` only (and types of the layers below).
 */
export * from "./serialize.ts";
export * from "./template.ts";
export * from "./parse-skill.ts";
export * from "./context.ts";
export * from "./analyzer.ts";
export * from "./rule-alfworld.ts";
export * from "./rule-analyzer.ts";
export * from "./llm-analyzer.ts";
export * from "./degraded-analyzer.ts";
export * from "./library.ts";
