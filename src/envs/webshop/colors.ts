/**
 * WebShop's colour normalisation for option matching (`engine/normalize.py`): the first entry
 * of the benchmark's colour list, in list order, that occurs as a substring. The list is a
 * protocol fact and is kept byte for byte, order included (`navy blue` → `blue`, because
 * `blue` comes before `navy`).
 */

/** The benchmark's `COLOR_SET`, in its order. */
export const COLOR_SET: readonly string[] = [
  "alabaster", "apricot", "aqua", "ash", "asphalt", "azure", "banana", "beige", "black", "blue",
  "blush", "bordeaux", "bronze", "brown", "burgundy", "camel", "camo", "caramel", "champagne",
  "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee", "cognac", "copper",
  "coral", "cranberry", "cream", "crystal", "dark", "denim", "eggplant", "elephant", "espresso",
  "fuchsia", "gold", "granite", "grape", "graphite", "grass", "gray", "green", "grey", "heather",
  "indigo", "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac", "lime",
  "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha", "multicolor", "mushroom",
  "mustard", "natural", "navy", "nude", "olive", "orange", "peach", "pewter", "pink", "plum",
  "purple", "rainbow", "red", "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver",
  "skull", "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal", "tiger",
  "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
];

/**
 * The first colour of `COLOR_SET` contained in `s`, else `s` unchanged (case-sensitive, as upstream).
 * @example normalizeColor("navy blue") === "blue"; normalizeColor("webshop") === "webshop"
 */
export function normalizeColor(s: string): string {
  for (const c of COLOR_SET) if (s.includes(c)) return c;
  return s;
}
