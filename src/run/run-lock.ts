/**
 * The exclusive lock of a run directory: `<run>/.lock`, a small JSON file naming its holder
 * (pid, host, start time, command, and the kernel's start tick of that pid where /proc has it).
 * Two writers of one run directory would append every metrics line twice and race on checkpoint
 * renames, so the second one is refused with a message that names the first.
 *
 * Taking it is atomic: the holder's record is written completely into a private file, which is
 * then hard-linked to `.lock` (a link fails if the name exists, so exactly one process wins and
 * nobody ever reads half a record). A lock is stale when it was taken on this host by a pid that
 * is gone (or that has since been reused by a process that started later, told by its start
 * tick): a run killed with SIGKILL leaves one, and the next run takes it over. A lock taken on
 * another host cannot be checked from here; the message says how to remove it by hand.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, join } from "node:path";
import { UsageError } from "../core/errors.ts";

/** Who holds a run directory's lock (the contents of `.lock`). */
export type LockHolder = {
  readonly pid: number;
  readonly host: string;
  /** ISO time the lock was taken. */
  readonly started: string;
  readonly command: string;
  /** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or null off Linux. */
  readonly procStart: string | null;
};

/** A held lock; `release` is idempotent and also runs when the process exits. */
export type RunLock = {
  readonly path: string;
  readonly holder: LockHolder;
  release(): void;
};

/** The name of the lock file inside a run directory. */
export const LOCK_FILE = ".lock";

/** The start tick of `pid` from /proc, or null when there is no /proc entry for it. */
function procStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is parenthesised and may hold spaces: count from the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): LockHolder | null | "missing" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw e;
  }
  try {
    const j = JSON.parse(text) as LockHolder;
    return typeof j.pid === "number" && typeof j.host === "string" ? j : null;
  } catch {
    return null;
  }
}

/**
 * Whether a lock record no longer protects anything: unreadable (never the case for a record
 * written by `lockRunDir`, which links only complete files), or taken on this host by a
 * process that is gone.
 */
export function isStale(holder: LockHolder | null): boolean {
  if (holder === null) return true;
  if (holder.host !== hostname()) return false;
  if (!isAlive(holder.pid)) return true;
  // The pid is alive: the same process, unless the pid was reused by a later one.
  const now = procStartOf(holder.pid);
  return holder.procStart !== null && now !== null && now !== holder.procStart;
}

/** The one-line description of a holder used in messages. */
export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid} on ${h.host}, started ${h.started}: ${h.command}`;
}

let counter = 0;

/** This process's command line as a user typed it (`seed train --quick ...`), for messages. */
function commandLine(): string {
  const [, script = "node", ...args] = process.argv;
  return [basename(script).replace(/\.(js|mjs|ts)$/, ""), ...args].join(" ");
}

/**
 * Takes the exclusive lock of `runDir` (which must exist), taking over a stale one.
 * @throws UsageError naming the holder when another live process holds it
 */
export function lockRunDir(runDir: string, command: string = commandLine()): RunLock {
  const path = join(runDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command, procStart: procStartOf(process.pid) };
  const mine = join(runDir, `${LOCK_FILE}.${process.pid}.${counter++}`);
  writeFileSync(mine, JSON.stringify(holder) + "\n");
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, path);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const other = readHolder(path);
      if (other === "missing") continue; // released between our link and our read
      if (!isStale(other) || attempt >= 3) {
        const who = other === null ? "another process" : describeHolder(other);
        throw new UsageError(`${runDir} is in use by ${who}; wait for it to finish, or, if that process is gone, delete ${path}`);
      }
      // Move the stale record aside under a private name (one process wins the rename), and
      // check it is still the stale one: a live lock taken meanwhile is put back.
      const aside = `${path}.stale.${process.pid}.${counter++}`;
      try {
        renameSync(path, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw e;
      }
      const moved = readHolder(aside);
      if (moved !== "missing" && !isStale(moved)) {
        try {
          linkSync(aside, path);
        } catch {
          // someone else took the name; their lock stands
        }
        unlinkSync(aside);
        throw new UsageError(`${runDir} is in use by ${moved === null ? "another process" : describeHolder(moved)}; wait for it to finish`);
      }
      unlinkSync(aside);
    }
  } finally {
    unlinkSync(mine);
  }
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    const now = readHolder(path);
    // Only our own record is removed: after a takeover by hand the name may hold another's.
    if (now !== "missing" && now !== null && now.pid === holder.pid && now.started === holder.started) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", release);
  return { path, holder, release };
}
