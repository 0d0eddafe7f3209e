/** The prompt renderer of every environment, looked up by environment id. */
import { UsageError } from "../../core/errors.ts";
import { ENV_IDS, type EnvId } from "../protocol.ts";
import { alfworldRenderer } from "./alfworld.ts";
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

/** The renderer of an environment, or a `UsageError` listing the known ids. */
export function rendererFor(envId: string): PromptRenderer {
  const r = (renderers as Record<string, PromptRenderer>)[envId];
  if (r === undefined) throw new UsageError(`no prompt renderer for environment '${envId}' (known: ${ENV_IDS.join(", ")})`);
  return r;
}
