/**
 * The prompt renderer of every environment, looked up by environment id: one entry per built-in
 * environment (the type requires one for each registry name), plus renderers registered at run
 * time with `registerRenderer` for environments registered with `envs/registry.ts`'s `registerEnv`.
 */
import { UsageError } from "../../core/errors.ts";
import type { EnvId } from "../protocol.ts";
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

const registered = new Map<string, { readonly standard: PromptRenderer; readonly compact?: PromptRenderer }>();

/** Adds the renderer (and optionally a compact one) of an environment registered at run time. */
export function registerRenderer(envId: string, standard: PromptRenderer, compact?: PromptRenderer): void {
  if (Object.hasOwn(renderers, envId)) throw new UsageError(`environment '${envId}' has a built-in renderer`);
  registered.set(envId, compact === undefined ? { standard } : { standard, compact });
}

/**
 * The renderer of an environment in a prompt style, or a `UsageError` listing the known ids.
 * @example rendererFor("alfworld", "compact") // alfworldCompactRenderer
 */
export function rendererFor(envId: string, style: PromptStyle = "verl"): PromptRenderer {
  const extra = registered.get(envId);
  const r = (renderers as Record<string, PromptRenderer>)[envId] ?? extra?.standard;
  if (r === undefined) throw new UsageError(`no prompt renderer for environment '${envId}' (known: ${[...Object.keys(renderers), ...registered.keys()].join(", ")})`);
  if (style === "compact") return (compactRenderers as Record<string, PromptRenderer>)[envId] ?? extra?.compact ?? r;
  return r;
}
