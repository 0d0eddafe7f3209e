/**
 * WebShop (text mode): the environment, shops (generated default, real files), goals and splits,
 * the reward, search, page rendering, the expert and its noisy mode, file loaders, and a speed
 * probe. Recorded deviations from the benchmark: nouns of the type reward come from a table of
 * spaCy's tags for the shipped catalogue's titles (other titles: its word lexicon, then a suffix
 * rule), the goal shuffle uses the project's RNG (so the order differs from Python's
 * `random.seed(233)`), the upstream debug queries
 * (`<r>`, `<a>`, `<c>`, `<q>`) are ordinary keywords, and the done page shows only its thank-you
 * line and the score. Option matching follows upstream's `(name, value)` tuples by default
 * (`optionRule: "values"` is the lenient alternative).
 */
export { WebShopEnv, parseAction, SEARCH_ACTION, WEBSHOP_SUCCESS_REWARD } from "./env.ts";
export type { WebShopEnvOptions } from "./env.ts";
export { Shop, generatedShop, realShop, TEST_GOALS, GOAL_SPLITS } from "./shop.ts";
export type { GeneratedShopOptions, RealShopOptions } from "./shop.ts";
export { webshopExpert, webshopRandomAction, goalQuery, requestBody } from "./expert.ts";
export {
  webshopReward, typeReward, attributeMatches, optionMatches, goalOptionItems, goalOptionsCreditable, FUZZY_THRESHOLD,
} from "./reward.ts";
export type { RewardBreakdown, OptionRule, GoalOptionItem } from "./reward.ts";
export { tokenSetRatio, fuzzProcess } from "./fuzz.ts";
export { normalizeColor, COLOR_SET } from "./colors.ts";
export { nouns, isNoun, isNounByRule } from "./nouns.ts";
export {
  priceClause, syntheticGoals, humanGoals, shuffleGoals, splitRange, PRICE_RANGE, NO_PRICE_LIMIT, GOAL_SHUFFLE_SEED,
} from "./goals.ts";
export type { GoalSplit, SplitLayout, ProductInstruction, HumanInstruction } from "./goals.ts";
export { cleanProducts, parsePricing, productPrices } from "./catalog.ts";
export type { CleanOptions } from "./catalog.ts";
export { generateCatalog } from "./generator.ts";
export type { GeneratorOptions, GeneratedCatalog } from "./generator.ts";
export { deriveInstructions, productAttributePhrases, ATTRIBUTE_LEXICON } from "./derive.ts";
export { ProductSearch, searchDocument, optionText, SEARCH_RETURN_N } from "./search-engine.ts";
export {
  renderSearchPage, renderResultsPage, renderItemPage, renderSubPage, renderDonePage, RESULTS_PER_PAGE, SUB_PAGES,
} from "./pages.ts";
export type { RenderedPage, Clickable, SubPage } from "./pages.ts";
export { flattenHtml, decodeEntities } from "./html-text.ts";
export type { FlattenedPage } from "./html-text.ts";
export { reformatObservation } from "./observation.ts";
export {
  loadCatalogFile, loadHumanInstructionsFile, loadAttributesFile, loadHumanGoalTexts, loadGoalQueryMap, readJsonFile,
} from "./data-files.ts";
export { measureWebShopSpeed } from "./speed.ts";
export type { WebShopSpeed } from "./speed.ts";
export type { Product, RawProduct, OptionGroup, WebShopGoal, WebShopTaskPayload, GoalSource } from "./types.ts";
