/**
 * The GPT-2 byte-level alphabet: every byte 0..255 gets one printable Unicode character, so BPE
 * works on strings without ever seeing control bytes or spaces. Printable Latin-1 bytes map to
 * themselves; the other 68 bytes (controls, space, NBSP, soft hyphen) map to U+0100 onwards in
 * byte order. This is the layout of every Hugging Face `ByteLevel` tokenizer (GPT-2, Qwen2), so
 * it must not change: a real `tokenizer.json` vocab is written in these characters.
 */

function buildByteToChar(): string[] {
  const out = new Array<string>(256);
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    out[b] = String.fromCharCode(printable ? b : next++);
  }
  return out;
}

/** `BYTE_TO_CHAR[b]` is the one-character string standing for byte `b`. */
export const BYTE_TO_CHAR: readonly string[] = buildByteToChar();

/** Char code -> byte, or -1 for characters outside the alphabet. Indexed by UTF-16 code unit. */
export const CHAR_TO_BYTE: Int16Array = (() => {
  const t = new Int16Array(512).fill(-1);
  BYTE_TO_CHAR.forEach((c, b) => (t[c.charCodeAt(0)] = b));
  return t;
})();

/** The byte-level string of some bytes (each byte becomes one character). */
export function bytesToSymbols(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += BYTE_TO_CHAR[bytes[i]!]!;
  return s;
}

/** The bytes of a byte-level string, or null if it contains a character outside the alphabet. */
export function symbolsToBytes(symbols: string): Uint8Array | null {
  const out = new Uint8Array(symbols.length);
  for (let i = 0; i < symbols.length; i++) {
    const code = symbols.charCodeAt(i);
    const b = code < 512 ? CHAR_TO_BYTE[code]! : -1;
    if (b < 0) return null;
    out[i] = b;
  }
  return out;
}
