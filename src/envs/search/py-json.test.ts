// Python json.dumps equivalence. Expected strings were printed by Python 3.11's json.dumps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pyJsonDumps } from "./py-json.ts";

test("strings escape like ensure_ascii=True: short escapes, lower-case \\u, surrogate pairs", () => {
  assert.equal(
    pyJsonDumps({ result: "Doc 1: \"Evan\"\nL. – “x” é 🙂\t\u0001\u007f/" }),
    '{"result": "Doc 1: \\"Evan\\"\\nL. \\u2013 \\u201cx\\u201d \\u00e9 \\ud83d\\ude42\\t\\u0001\\u007f/"}',
  );
  assert.equal(pyJsonDumps(["a\\b", "\r\b\f", null, true, false]), '["a\\\\b", "\\r\\b\\f", null, true, false]');
});

test("numbers print as Python floats", () => {
  const cases: [number, string][] = [
    [1, "1.0"], [0.5, "0.5"], [1e-5, "1e-05"], [0.0001, "0.0001"], [123.456, "123.456"], [1e16, "1e+16"],
    [1e15, "1000000000000000.0"], [2.5e-7, "2.5e-07"], [-3.25, "-3.25"], [12345678901234567890, "1.2345678901234567e+19"],
    [0.1 + 0.2, "0.30000000000000004"], [0, "0.0"],
  ];
  for (const [x, s] of cases) assert.equal(pyJsonDumps(x), s, String(x));
  assert.throws(() => pyJsonDumps(Number.NaN), RangeError);
});
