/**
 * The PDDL problem of an ALFWorld game, read into plain data: typed object declarations, the
 * initial facts and the goal expression. Identifiers are lower-cased. Nothing here knows the
 * Alfred domain; `game.ts` turns these lists into the engine's representation.
 */
import { DataError } from "../../core/errors.ts";
import { readSExprs, type SExpr } from "./sexpr.ts";

/** One ground fact: predicate name and argument ids, all lower-case. */
export type Fact = { readonly pred: string; readonly args: readonly string[] };

/** A PDDL problem as lists. */
export type PddlProblem = {
  /** Declared objects (`name - type`), in declaration order. */
  readonly objects: ReadonlyArray<{ readonly id: string; readonly type: string }>;
  readonly init: readonly Fact[];
  /** The expression inside `(:goal ...)`. */
  readonly goal: SExpr;
};

function isList(e: SExpr | undefined): e is SExpr[] {
  return Array.isArray(e);
}

/**
 * Parse the text of a `(define (problem ...) ...)` form.
 * @param where file name used in error messages
 * @throws DataError when a section is missing or malformed
 */
export function parsePddlProblem(text: string, where: string): PddlProblem {
  const top = readSExprs(text, where);
  const define = top.find((e) => isList(e) && e[0] === "define");
  if (!isList(define)) throw new DataError(`${where}: no (define ...) form in the PDDL problem`);
  let objects: { id: string; type: string }[] | undefined;
  let init: Fact[] | undefined;
  let goal: SExpr | undefined;
  for (const section of define.slice(1)) {
    if (!isList(section)) continue;
    const head = section[0];
    if (head === ":objects") objects = parseTypedList(section.slice(1), where);
    else if (head === ":init") init = section.slice(1).map((f) => parseFact(f, where));
    else if (head === ":goal") {
      if (section.length !== 2) throw new DataError(`${where}: (:goal ...) must hold exactly one expression`);
      goal = section[1];
    }
  }
  if (objects === undefined) throw new DataError(`${where}: the PDDL problem has no (:objects ...) section`);
  if (init === undefined) throw new DataError(`${where}: the PDDL problem has no (:init ...) section`);
  if (goal === undefined) throw new DataError(`${where}: the PDDL problem has no (:goal ...) section`);
  return { objects, init, goal };
}

/** `a b - t1 c - t2` into `[{a,t1},{b,t1},{c,t2}]`. */
export function parseTypedList(items: readonly SExpr[], where: string): { id: string; type: string }[] {
  const out: { id: string; type: string }[] = [];
  let pending: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== "string") throw new DataError(`${where}: unexpected list in a typed name list`);
    if (item === "-") {
      const type = items[i + 1];
      if (typeof type !== "string") throw new DataError(`${where}: '-' without a type name`);
      for (const id of pending) out.push({ id, type });
      pending = [];
      i++;
    } else {
      pending.push(item);
    }
  }
  for (const id of pending) out.push({ id, type: "object" });
  return out;
}

function parseFact(e: SExpr, where: string): Fact {
  if (!isList(e) || e.length === 0 || e.some((x) => typeof x !== "string")) {
    throw new DataError(`${where}: an (:init ...) entry is not a flat fact: ${JSON.stringify(e).slice(0, 80)}`);
  }
  const [pred, ...args] = e as string[];
  return { pred: pred!, args };
}
