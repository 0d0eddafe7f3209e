/**
 * Small helpers shared by the commands: strict option parsing with a clear message, and JSON
 * output. Parsing errors become `UsageError`s, which the CLI prints without a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";

/**
 * `util.parseArgs` in strict mode, with its errors turned into one-line `UsageError`s; an unknown
 * option names the closest known one ("unknown option --quik (did you mean --quick?)").
 */
export function parseOptions<T extends ParseArgsConfig["options"]>(
  argv: readonly string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const unknown = err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /Unknown option '([^']+)'/.exec(err.message)?.[1] : undefined;
    if (unknown !== undefined) {
      const name = unknown.replace(/^--?/, "").split("=")[0]!;
      throw new UsageError(`unknown option ${unknown}${didYouMean(name, Object.keys(options ?? {}), (c) => `--${c}`)}; see --help`);
    }
    // Node's own wording, first sentence only (the rest is advice about '--' that rarely applies).
    throw new UsageError(err.message.split("\n")[0]!.replace(/\. To specify a positional argument.*$/, ""));
  }
}

/** A required string option, or a `UsageError` naming it. */
export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing required option --${flag}`);
  return value;
}

/** A number option, or a `UsageError` naming it. */
export function numberOption(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${flag} expects a number, got '${value}'`);
  return n;
}

/** Print one JSON object on one line (the `--json` output of every command). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + "\n");
}
