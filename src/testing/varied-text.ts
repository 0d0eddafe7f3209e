/**
 * Seeded varied strings for tokenizer parity checks against reference implementations (HF
 * `tokenizers`, llama.cpp): prose, agent transcripts, code, numbers, contractions in every case,
 * whitespace runs, many scripts, emoji (surrogate pairs and ZWJ sequences), combining marks
 * (NFC-sensitive), controls, and chat-template markers mixed into the text. The same seed gives
 * the same strings on every machine.
 */
import { Rng } from "../core/rng.ts";

const PROSE = [
  "The quick brown fox jumps over the lazy dog.", "You are in the middle of a room.", "Looking quickly around you, you see a cabinet 4, a drawer 2 and a sofa 1.",
  "Your task is to: put a clean mug in the coffeemachine.", "Nothing happens.", "I'd say it's fine, but they'll disagree; we've seen it before.",
  "HE'LL NEVER KNOW WHAT'S IN THE BOX, WON'T HE?", "In 1969, 600 million people watched Apollo 11 land.", "Prices rose 3.5% to $1,234.56 (up from €999).",
  "e-mail: someone@example.com, url: https://example.org/a/b?c=1&d=2#frag",
];
const CODE = [
  "def f(x):\n    return x ** 2  # square\n", "for (let i = 0; i < n; i++) { s += a[i]; }", "if __name__ == \"__main__\":\n\tmain()\n",
  "const re = /^\\s+|\\s+$/g;", "SELECT id, name FROM users WHERE age >= 21;", "<div class=\"x\">&nbsp;</div>", "x=[1,2,3];y={'a':(4,5)}",
];
const SCRIPTS = [
  "你好，世界！今天天气很好。", "日本語のテキストです。カタカナ、ひらがな。", "한국어 문장입니다.", "Привет, как дела? Всё хорошо.", "مرحبا بالعالم",
  "שלום עולם", "Γειά σου Κόσμε", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Ünïcödé façade naïve café", "Straße, Øre, Åse, Œuvre",
];
const EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "❤️", "🤖", "🧪✨"];
const MARKERS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<action>", "</action>", "<tool_call>", "<|fim_prefix|>", "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"];
const SPACES = ["\n", "\n\n", "\r\n", "\t", "  ", "    ", "\u00a0", "\u3000", "\u2009", " \n ", "\n\t\t"];
const CONTRACTIONS = ["don't", "DON'T", "we're", "WE'RE", "I'm", "I'M", "you've", "YOU'VE", "it's", "IT'S", "she'd", "SHE'D", "they'll", "THEY'LL", "o'clock", "'tis"];

/** One fragment of a kind picked by the generator. */
function fragment(rng: Rng): string {
  switch (rng.int(11)) {
    case 0: return rng.choice(PROSE);
    case 1: return rng.choice(CODE);
    case 2: return rng.choice(SCRIPTS);
    case 3: return rng.choice(EMOJI);
    case 4: return rng.choice(MARKERS);
    case 5: return rng.choice(SPACES);
    case 6: return rng.choice(CONTRACTIONS);
    case 7: return String(rng.int(10 ** (1 + rng.int(9)))) + rng.choice(["", ".", ",", " ", "e-3", "%"]);
    // Decomposed accents: NFC changes them, so a normaliser mismatch shows here.
    case 8: return "e\u0301" + rng.choice(["", "a\u0308", "n\u0303o", "A\u030a"]);
    case 9: return String.fromCodePoint(rng.choice([0x20 + rng.int(95), 0xa0 + rng.int(0x500), 0x4e00 + rng.int(0x5000), 0x1f300 + rng.int(0x300), 0x2000 + rng.int(0x70)]));
    default: return rng.choice(["\u0000", "\u0007", "\u001b[0m", "\ufeff", "\u200b", "\u00ad"]);
  }
}

/**
 * `count` varied strings from a seed. Each is 1 to 12 fragments joined by nothing or a space;
 * about one string in twenty is empty or whitespace only.
 * @example variedStrings(1000, 7)
 */
export function variedStrings(count: number, seed: number): string[] {
  const rng = Rng.from(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (rng.int(20) === 0) {
      out.push(rng.choice(["", " ", "\n", "   \n\t", "\u00a0"]));
      continue;
    }
    const n = 1 + rng.int(12);
    let s = "";
    for (let j = 0; j < n; j++) s += (j > 0 && rng.bernoulli(0.5) ? " " : "") + fragment(rng);
    out.push(s);
  }
  return out;
}
