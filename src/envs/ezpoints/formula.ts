/**
 * EZPoints formulas: the tokens are joined without spaces and evaluated as a Python integer
 * expression, as gym-cards evaluates it. Only what the 13 actions can write is supported: decimal
 * numbers (adjacent number tokens concatenate: `1`,`2` is 12), binary `+` and `*`, unary `+`,
 * and `**` (power, right-associative, binding tighter than unary plus on its left and allowing
 * it on its right, as in Python). Anything else is a syntax error, returned as `undefined`.
 * Not a general expression evaluator.
 */

type Tok = { kind: "num"; value: number } | { kind: "+" | "*" | "**" };

function lex(text: string): Tok[] | undefined {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c >= "0" && c <= "9") {
      let j = i;
      while (j < text.length && text[j]! >= "0" && text[j]! <= "9") j++;
      const digits = text.slice(i, j);
      // Python rejects decimal literals with a leading zero (other than 0 itself).
      if (digits.length > 1 && digits[0] === "0" && /[1-9]/.test(digits)) return undefined;
      out.push({ kind: "num", value: Number(digits) });
      i = j;
    } else if (c === "*") {
      if (text[i + 1] === "*") {
        out.push({ kind: "**" });
        i += 2;
      } else {
        out.push({ kind: "*" });
        i++;
      }
    } else if (c === "+") {
      out.push({ kind: "+" });
      i++;
    } else {
      return undefined;
    }
  }
  return out;
}

/**
 * Value of the formula written by `tokens`, or `undefined` for a syntax error (an empty formula,
 * a dangling operator, `*` at the start). Values stay far below 2^53 for formulas of at most
 * five tokens with at most two numbers, the only ones the environment evaluates.
 * @example evaluateFormula(["4", "*", "3"]) // 12
 */
export function evaluateFormula(tokens: readonly string[]): number | undefined {
  const toks = lex(tokens.join(""));
  if (toks === undefined || toks.length === 0) return undefined;
  let pos = 0;
  const peek = (): Tok | undefined => toks[pos];

  // expr := term ('+' term)* ; term := factor ('*' factor)* ; factor := '+' factor | power ;
  // power := NUM ['**' factor]
  const factor = (): number | undefined => {
    const t = peek();
    if (t === undefined) return undefined;
    if (t.kind === "+") {
      pos++;
      return factor();
    }
    if (t.kind !== "num") return undefined;
    pos++;
    if (peek()?.kind === "**") {
      pos++;
      const exp = factor();
      return exp === undefined ? undefined : t.value ** exp;
    }
    return t.value;
  };
  const term = (): number | undefined => {
    let v = factor();
    while (v !== undefined && peek()?.kind === "*") {
      pos++;
      const r = factor();
      v = r === undefined ? undefined : v * r;
    }
    return v;
  };
  let v = term();
  while (v !== undefined && peek()?.kind === "+") {
    pos++;
    const r = term();
    v = r === undefined ? undefined : v + r;
  }
  return v !== undefined && pos === toks.length ? v : undefined;
}
