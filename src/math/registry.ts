/**
 * Lookup of typed `as const` registries by an untyped name (a JSON preset, a CLI override).
 * In TypeScript a misspelt key is a compile error; from a string, an unknown name becomes a
 * `ConfigIssue` (or `ConfigError`) that lists every valid name, so the user can fix it at once.
 */
import { ConfigError, type ConfigIssue } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";

/**
 * The key of `registry` spelt `name`, or an issue at `path` listing the valid keys.
 * @example checkName(aggregations, "token_mean", "loss.aggregation") // { ok: false, error: { path, message: "unknown ... valid: token-mean, ..." } }
 */
export function checkName<R extends object>(registry: R, name: string, path: string, what: string): Result<keyof R & string, ConfigIssue> {
  if (Object.hasOwn(registry, name)) return ok(name as keyof R & string);
  return err({ path, message: `unknown ${what} '${name}'; valid: ${Object.keys(registry).join(", ")}` });
}

/** Like `checkName`, but throws the issue as a `ConfigError`. */
export function lookupName<R extends object>(registry: R, name: string, path: string, what: string): keyof R & string {
  const r = checkName(registry, name, path, what);
  if (!r.ok) throw new ConfigError([r.error]);
  return r.value;
}
