/** The prompt renderer of every environment, looked up by environment id. */
import { UsageError } from "../../core/errors.ts";
import { ENV_IDS, type EnvId } from "../protocol.ts";
import { alfworldRenderer } from "./alfworld.ts";
import { alfworldCompactRenderer } from "./alfworld-compact.ts";
import { ezpointsRenderer } from "./ezpoints.ts";
import type { PromptRenderer } from "./renderer.ts";
import { searchRenderer } from "./search.ts";
import { sokobanRenderer } from "./sokoban.ts";
import { webshopRenderer } from "./webshop.ts";

export type { MaskEntry, PromptRenderer, PromptState } from "./renderer.ts";

/** Renderers by environment id. */
export const renderers = {
  alfworld: alfworldRenderer,
  webshop: webshopRenderer,
  search: searchRenderer,
  sokoban: sokobanRenderer,
  ezpoints: ezpointsRenderer,
} as const satisfies Record<EnvId, PromptRenderer>;

/**
 * Prompt styles: `verl` is verl-agent's wording (every environment; what LLM runs use);
 * `compact` is the short ALFWorld prompt for small models trained from scratch
 * (`alfworld-compact.ts`). Environments without a compact renderer use their standard one.
 */
export const PROMPT_STYLES = ["verl", "compact"] as const;

/** One of `PROMPT_STYLES`. */
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/** Compact renderers by environment id (only ALFWorld has one). */
export const compactRenderers: Partial<Record<EnvId, PromptRenderer>> = { alfworld: alfworldCompactRenderer };

/**
 * The renderer of an environment in a prompt style, or a `UsageError` listing the known ids.
 * @example rendererFor("alfworld", "compact") // alfworldCompactRenderer
 */
export function rendererFor(envId: string, style: PromptStyle = "verl"): PromptRenderer {
  const r = (renderers as Record<string, PromptRenderer>)[envId];
  if (r === undefined) throw new UsageError(`no prompt renderer for environment '${envId}' (known: ${ENV_IDS.join(", ")})`);
  if (style === "compact") return (compactRenderers as Record<string, PromptRenderer>)[envId] ?? r;
  return r;
}
