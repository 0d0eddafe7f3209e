/**
 * A synthetic knowledge base for Search-QA with a from-scratch model (the shipped wiki-18 passages do
 * not hold the answers): made-up
 * countries, cities, people, companies and books with facts; one passage per entity in the wiki-18
 * format (`"Title"\ntext`); and questions in NQ / HotpotQA style built from those facts, one-hop
 * ("Who founded Velmora Works?") and two-hop ("Where was the founder of Velmora Works born?"),
 * each with its fact chain. Every kept question is checked answerable: the passage of each hop is
 * in the top 3 BM25 results of that hop's query, so at most two searches suffice.
 *
 * Seeded and deterministic; small by default (about 90 passages, 320 questions), `scale` times larger
 * when asked (the registry's world is scale 8: 720 passages, 512 test questions). Names
 * are invented from syllables and checked unique after analysis, so a name query finds its entity.
 * This is a training and demo corpus, not a benchmark: real evaluation uses the shipped QA sets.
 */
import { Rng, deriveSeed } from "../../core/rng.ts";
import type { TaskSpec } from "../env.ts";
import { englishAnalyzer } from "../text/analyzer.ts";
import type { SearchPayload } from "./loaders.ts";
import { Bm25Retriever, type Passage } from "./retriever.ts";

/** Sizes of the generated world. */
export type KnowledgeBaseOptions = {
  /** @default 0 */
  readonly seed?: number;
  /** @default 6 */
  readonly countries?: number;
  /** @default 18 */
  readonly cities?: number;
  /** @default 36 */
  readonly people?: number;
  /** @default 14 */
  readonly companies?: number;
  /** @default 16 */
  readonly books?: number;
  /** Share of questions in the `test` split; the rest are `train`. @default 0.2 */
  readonly testFraction?: number;
  /**
   * Multiplies every default entity count (an explicit count is used as given). Scale 8 has 720
   * passages and 2,560 questions, 512 of them in `test`: room for a 500-question panel.
   * @default 1
   */
  readonly scale?: number;
};

/** The generated corpus and its questions (split `train` or `test`). */
export type KnowledgeBase = {
  readonly passages: readonly Passage[];
  readonly questions: readonly TaskSpec[];
};

type Country = { name: string; capital?: City | undefined; population: number; export: string };
type City = { name: string; country: Country; founded: number; feature: string };
type Person = { name: string; surname: string; born: number; city: City; occupation: string };
type Company = { name: string; founder: Person; hq: City; founded: number; industry: string };
type Book = { name: string; author: Person; year: number; genre: string };

const ONSETS = ["b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "r", "s", "st", "t", "v", "z", "th", "sh", "tr"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"];
const CODAS = ["", "", "n", "r", "s", "l", "th", "nd", "x", "m"];
const OCCUPATIONS = ["painter", "chemist", "composer", "architect", "novelist", "engineer", "astronomer", "sculptor", "physician", "poet"];
const INDUSTRIES = ["shipbuilding", "textile", "railway", "publishing", "pharmaceutical", "mining", "brewing", "aviation"];
const COMPANY_SUFFIXES = ["Works", "Industries", "Holdings", "Company", "Foundry", "Mills"];
const GENRES = ["historical", "adventure", "detective", "satirical", "romance", "war"];
const BOOK_NOUNS = ["Lantern", "Harbour", "Orchard", "Winter", "Crossing", "Tower", "Garden", "Voyage", "Mirror", "Bridge"];
const EXPORTS = ["timber", "copper", "wool", "salt", "grain", "tea", "wine", "marble"];
const FEATURES = ["a river port", "a university town", "a market town", "a fortified hill town", "a coastal city", "a railway junction"];

/** Invents pronounceable names whose analyzed terms are unique across the whole world. */
class NameMaker {
  private readonly used = new Set<string>();
  private readonly rng: Rng;
  constructor(rng: Rng, reserved: Iterable<string>) {
    this.rng = rng;
    for (const w of reserved) for (const t of englishAnalyzer(w)) this.used.add(t);
  }
  word(): string {
    for (;;) {
      const syllables = 2 + this.rng.int(2);
      let w = "";
      for (let i = 0; i < syllables; i++) w += this.rng.choice(ONSETS) + this.rng.choice(VOWELS);
      w += this.rng.choice(CODAS);
      const terms = englishAnalyzer(w);
      if (w.length < 5 || terms.length !== 1 || this.used.has(terms[0]!)) continue;
      this.used.add(terms[0]!);
      return w[0]!.toUpperCase() + w.slice(1);
    }
  }
}

function passage(id: number, title: string, text: string): Passage {
  return { id: String(id), contents: `"${title}"\n${title} ${text}` };
}

function hop(query: string, p: Passage, answer: string): NonNullable<SearchPayload["hops"]>[number] {
  return { query, passageId: p.id, answer };
}

/**
 * Generate the world, its passages and its questions.
 * @example
 * const kb = generateKnowledgeBase({ seed: 0 });
 * kb.questions[0]!.payload // { question: "Who founded ...?", answers: [...], dataset: "synthetic", hops: [...] }
 */
export function generateKnowledgeBase(options: KnowledgeBaseOptions = {}): KnowledgeBase {
  const seed = options.seed ?? 0;
  const rng = Rng.from(deriveSeed(seed, "search-knowledge"));
  const reserved = [...OCCUPATIONS, ...INDUSTRIES, ...COMPANY_SUFFIXES, ...GENRES, ...BOOK_NOUNS, ...EXPORTS, ...FEATURES, ...TEMPLATE_WORDS];
  const names = new NameMaker(rng, reserved);
  const year = (lo: number, hi: number) => lo + rng.int(hi - lo + 1);
  const scale = options.scale ?? 1;
  if (!(Number.isInteger(scale) && scale >= 1)) throw new RangeError(`knowledge base scale must be a positive integer, got ${scale}`);
  const count = (given: number | undefined, base: number) => given ?? base * scale;

  const countries: Country[] = Array.from({ length: count(options.countries, 6) }, () => ({ name: names.word(), population: 2 + rng.int(60), export: rng.choice(EXPORTS) }));
  const cities: City[] = Array.from({ length: count(options.cities, 18) }, (_, i) => ({
    name: names.word(), country: countries[i % countries.length]!, founded: year(900, 1750), feature: rng.choice(FEATURES),
  }));
  for (const k of countries) k.capital = cities.find((c) => c.country === k);
  const people: Person[] = Array.from({ length: count(options.people, 36) }, () => {
    const surname = names.word();
    return { name: `${names.word()} ${surname}`, surname, born: year(1780, 1960), city: rng.choice(cities), occupation: rng.choice(OCCUPATIONS) };
  });
  const companies: Company[] = Array.from({ length: count(options.companies, 14) }, () => {
    const founder = rng.choice(people);
    return { name: `${names.word()} ${rng.choice(COMPANY_SUFFIXES)}`, founder, hq: rng.choice(cities), founded: founder.born + 22 + rng.int(30), industry: rng.choice(INDUSTRIES) };
  });
  const books: Book[] = Array.from({ length: count(options.books, 16) }, () => {
    const author = rng.choice(people);
    return { name: `The ${names.word()} ${rng.choice(BOOK_NOUNS)}`, author, year: author.born + 20 + rng.int(40), genre: rng.choice(GENRES) };
  });

  const passages: Passage[] = [];
  const of = new Map<object, Passage>();
  const add = (entity: object, title: string, text: string) => {
    const p = passage(passages.length, title, text);
    passages.push(p);
    of.set(entity, p);
  };
  for (const k of countries) {
    add(k, k.name, `is a country whose capital is ${k.capital?.name ?? "disputed"}. It has about ${k.population} million inhabitants, and its main export is ${k.export}. Travellers reach ${k.name} by sea or by the old mountain roads.`);
  }
  for (const c of cities) {
    add(c, c.name, `is a city in ${c.country.name}, founded in ${c.founded}. Today ${c.name} is known as ${c.feature}, and its old quarter still keeps the plan of the first settlement.`);
  }
  for (const p of people) {
    add(p, p.name, `(born ${p.born}) was ${/^[aeiou]/.test(p.occupation) ? "an" : "a"} ${p.occupation} from ${p.city.name}. ${p.surname} was born in ${p.city.name} and worked there for most of a long career; critics still discuss the work of ${p.surname} today.`);
  }
  for (const co of companies) {
    add(co, co.name, `is a ${co.industry} company founded in ${co.founded} by ${co.founder.name}. Its headquarters are in ${co.hq.name}, where ${co.name} employs several thousand people.`);
  }
  for (const b of books) {
    add(b, b.name, `is a ${b.genre} novel by ${b.author.name}, first published in ${b.year}. ${b.name} was translated into many languages and is still in print.`);
  }

  type Draft = { question: string; answer: string; hops: NonNullable<SearchPayload["hops"]>[number][] };
  const drafts: Draft[] = [];
  const P = (e: object) => of.get(e)!;
  for (const k of countries) if (k.capital) drafts.push({ question: `What is the capital of ${k.name}?`, answer: k.capital.name, hops: [hop(k.name, P(k), k.capital.name)] });
  for (const c of cities) {
    drafts.push({ question: `Which country is ${c.name} in?`, answer: c.country.name, hops: [hop(c.name, P(c), c.country.name)] });
    drafts.push({ question: `When was the city of ${c.name} founded?`, answer: String(c.founded), hops: [hop(c.name, P(c), String(c.founded))] });
  }
  for (const p of people) {
    drafts.push({ question: `Where was ${p.name} born?`, answer: p.city.name, hops: [hop(p.name, P(p), p.city.name)] });
    drafts.push({ question: `In what year was ${p.name} born?`, answer: String(p.born), hops: [hop(p.name, P(p), String(p.born))] });
    drafts.push({ question: `What was the profession of ${p.name}?`, answer: p.occupation, hops: [hop(p.name, P(p), p.occupation)] });
    drafts.push({ question: `In which country was ${p.name} born?`, answer: p.city.country.name, hops: [hop(p.name, P(p), p.city.name), hop(p.city.name, P(p.city), p.city.country.name)] });
  }
  for (const co of companies) {
    const f = co.founder;
    drafts.push({ question: `Who founded ${co.name}?`, answer: f.name, hops: [hop(co.name, P(co), f.name)] });
    drafts.push({ question: `Where is ${co.name} headquartered?`, answer: co.hq.name, hops: [hop(co.name, P(co), co.hq.name)] });
    drafts.push({ question: `Where was the founder of ${co.name} born?`, answer: f.city.name, hops: [hop(co.name, P(co), f.name), hop(f.name, P(f), f.city.name)] });
    drafts.push({ question: `In what year was the founder of ${co.name} born?`, answer: String(f.born), hops: [hop(co.name, P(co), f.name), hop(f.name, P(f), String(f.born))] });
    drafts.push({ question: `In which country is the headquarters of ${co.name}?`, answer: co.hq.country.name, hops: [hop(co.name, P(co), co.hq.name), hop(co.hq.name, P(co.hq), co.hq.country.name)] });
  }
  for (const b of books) {
    const a = b.author;
    drafts.push({ question: `Who wrote ${b.name}?`, answer: a.name, hops: [hop(b.name, P(b), a.name)] });
    drafts.push({ question: `When was ${b.name} first published?`, answer: String(b.year), hops: [hop(b.name, P(b), String(b.year))] });
    drafts.push({ question: `In which city was the author of ${b.name} born?`, answer: a.city.name, hops: [hop(b.name, P(b), a.name), hop(a.name, P(a), a.city.name)] });
    drafts.push({ question: `What was the profession of the author of ${b.name}?`, answer: a.occupation, hops: [hop(b.name, P(b), a.name), hop(a.name, P(a), a.occupation)] });
  }

  // Keep only questions whose every hop is answerable from the top 3 of its query.
  const retriever = new Bm25Retriever(passages);
  const answerable = drafts.filter((d) => d.hops.every((h) => retriever.retrieve([h.query], 3)[0]!.some((hit) => hit.document.id === h.passageId)));
  const order = Rng.from(deriveSeed(seed, "search-knowledge-split")).shuffle(answerable.map((_, i) => i));
  const testCount = Math.round(answerable.length * (options.testFraction ?? 0.2));
  const testSet = new Set(order.slice(0, testCount));
  const questions = answerable.map((d, i): TaskSpec => {
    const payload: SearchPayload = { question: d.question, answers: [d.answer], dataset: "synthetic", hops: d.hops };
    return { id: `synthetic-${seed}/${i}`, split: testSet.has(i) ? "test" : "train", payload };
  });
  return { passages, questions };
}

// Words of the passage and question templates, reserved so no invented name collides with them.
const TEMPLATE_WORDS = [
  "country", "capital", "inhabitants", "million", "export", "travellers", "reach", "sea", "mountain", "roads", "city",
  "founded", "today", "known", "old", "quarter", "plan", "first", "settlement", "born", "was", "from", "worked", "most",
  "long", "career", "critics", "discuss", "work", "company", "headquarters", "employs", "several", "thousand", "people",
  "novel", "published", "translated", "many", "languages", "print", "what", "which", "when", "where", "who", "wrote",
  "year", "profession", "author", "founder", "headquartered", "disputed", "still", "there", "by", "about", "main",
];
