/**
 * A small S-expression reader for the PDDL problems embedded in ALFWorld game files.
 * It lower-cases every symbol (Fast Downward does, and ALFWorld's entity ids are the lower-cased
 * PDDL names) and drops `;` comments. It is a reader, not a PDDL validator: the meaning of the
 * lists is checked by `problem.ts`.
 */
import { DataError } from "../../core/errors.ts";

/** A symbol or a parenthesised list of expressions. */
export type SExpr = string | SExpr[];

const OPEN = 40, CLOSE = 41, SEMI = 59, NL = 10;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/**
 * Read every top-level expression of `text`.
 * @param where file name used in error messages
 * @throws DataError on unbalanced parentheses
 */
export function readSExprs(text: string, where: string): SExpr[] {
  const stack: SExpr[][] = [[]];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) { i++; continue; }
    if (c === SEMI) {
      while (i < n && text.charCodeAt(i) !== NL) i++;
      continue;
    }
    if (c === OPEN) {
      const list: SExpr[] = [];
      stack[stack.length - 1]!.push(list);
      stack.push(list);
      i++;
      continue;
    }
    if (c === CLOSE) {
      if (stack.length === 1) throw new DataError(`${where}: unbalanced ')' in the PDDL problem at offset ${i}`);
      stack.pop();
      i++;
      continue;
    }
    const start = i;
    while (i < n) {
      const d = text.charCodeAt(i);
      if (isSpace(d) || d === OPEN || d === CLOSE || d === SEMI) break;
      i++;
    }
    stack[stack.length - 1]!.push(text.slice(start, i).toLowerCase());
  }
  if (stack.length !== 1) throw new DataError(`${where}: the PDDL problem ends inside an unclosed '('`);
  return stack[0]!;
}
