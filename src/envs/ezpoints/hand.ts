/**
 * EZPoints hands (gym-cards `ezpoints.py`): two cards whose values can make
 * 12 with one `+` or one `*`. Cards are named suit + rank symbol (`ST` is the ten of spades);
 * A = 1, 2..9, T = 10, J/Q/K = 10. Generated hands never hold an ace; hands given explicitly may.
 */
import { DataError } from "../../core/errors.ts";
import { Rng } from "../../core/rng.ts";

/** One playing card. */
export type Card = {
  /** Suit letter + rank symbol, e.g. `ST`, `HJ`, `D2`. */
  readonly name: string;
  /** Its number in formulas: A = 1, J/Q/K = 10. */
  readonly value: number;
};

/** Two cards. */
export type Hand = readonly [Card, Card];

const SUITS = ["H", "S", "D", "C"] as const;
const SUIT_NAMES: Readonly<Record<string, string>> = { H: "hearts", S: "spades", D: "diamonds", C: "clubs" };
const RANK_SYMBOLS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"] as const;
const RANK_NAMES: Readonly<Record<string, string>> = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

/** A card from its two-letter name (`ST`, `hq`, `C9`); throws `DataError` for anything else. */
export function parseCard(name: string): Card {
  const m = /^([HSDC])([A2-9TJQK])$/i.exec(name.trim());
  if (m === null) throw new DataError(`'${name}' is not a card name (suit H/S/D/C + rank A,2-9,T,J,Q,K)`);
  const symbol = m[2]!.toUpperCase();
  const rank = RANK_SYMBOLS.indexOf(symbol as (typeof RANK_SYMBOLS)[number]);
  return { name: m[1]!.toUpperCase() + symbol, value: Math.min(rank, 10) };
}

/** A card described in words, e.g. `jack of spades`. */
export function describeCard(card: Card): string {
  const symbol = card.name.slice(1);
  return `${RANK_NAMES[symbol] ?? symbol} of ${SUIT_NAMES[card.name[0]!]}`;
}

/** The hand of one game, drawn from `seed` as gym-cards draws it (a distribution, not its stream). */
export function generateHand(seed: number): Hand {
  const rng = Rng.from(seed);
  const rank = 2 + rng.int(12); // 2..13 (K)
  const v1 = Math.min(rank, 10);
  const first: Card = { name: rng.choice(SUITS) + RANK_SYMBOLS[rank]!, value: v1 };
  const v2 = [2, 3, 4, 6].includes(v1) && rng.bernoulli(0.5) ? 12 / v1 : 12 - v1;
  const second: Card = { name: rng.choice(SUITS) + RANK_SYMBOLS[v2]!, value: v2 };
  return rng.bernoulli(0.5) ? [second, first] : [first, second];
}
