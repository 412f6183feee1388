// The wording half of relevance: hashed word unigrams and bigrams plus character trigrams, so names, numbers and
// rare words match exactly where a sentence model blurs them. No weights, no vocabulary: deterministic everywhere.
import type { Embedder } from "../types.js";

export const LEXICAL_DIMENSIONS = 1024;

/** Words that carry no topic; they still count in bigrams so phrasing is kept, but not as unigrams. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if then else of to in on at by for with from as into onto about over under is are was " +
    "were be been being am do does did doing have has had having it its it's this that these those there here i " +
    "me my mine we us our you your he him his she her they them their what which who whom whose when where why " +
    "how not no nor so too very can could should would will shall may might must just also than such only own " +
    "same some any all each both few more most other again further once up down out off s t don"
  ).split(" "),
);

/** Lower-cased word tokens (letters and digits, inner apostrophes, dots and dashes kept in numbers and names). */
export function wordsOf(text: string): string[] {
  const normal = text.normalize("NFKC").toLowerCase();
  const raw = normal.match(/[\p{L}\p{N}]+(?:['’.\-_/][\p{L}\p{N}]+)*/gu) ?? [];
  const out: string[] = [];
  for (const token of raw) {
    out.push(token.replace(/’/g, "'"));
    // Split compound tokens too ("eu-west-1" also yields "eu", "west", "1") so partial mentions still meet.
    if (/['.\-_/]/.test(token)) for (const part of token.split(/['’.\-_/]+/)) if (part) out.push(part);
  }
  return out;
}

/** FNV-1a, 32 bit: a stable hash for feature names. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface LexicalWeights {
  unigram: number;
  bigram: number;
  trigram: number;
}

/** Relative weight of each feature family inside the lexical vector (each family is L2-normalized first). */
export const LEXICAL_WEIGHTS: LexicalWeights = { unigram: 1.0, bigram: 0.5, trigram: 0.5 };

/**
 * Adds the text's lexical features into `out` (length = dimensions), unit length overall.
 * Signed hashing keeps collisions from adding up to false similarity.
 */
export function lexicalFeatures(text: string, dimensions: number, weights: LexicalWeights = LEXICAL_WEIGHTS): Float32Array {
  const words = wordsOf(text);
  const families: Map<string, number>[] = [new Map(), new Map(), new Map()];
  const add = (family: Map<string, number>, feature: string, weight = 1) => family.set(feature, (family.get(feature) ?? 0) + weight);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!STOPWORDS.has(word)) add(families[0]!, "w:" + word, /\d/.test(word) ? 1.5 : 1);
    if (i + 1 < words.length) add(families[1]!, "b:" + word + " " + words[i + 1]);
    if (!STOPWORDS.has(word)) {
      const padded = `<${word}>`;
      for (let j = 0; j + 3 <= padded.length; j++) add(families[2]!, "c:" + padded.slice(j, j + 3));
    }
  }
  const familyWeights = [weights.unigram, weights.bigram, weights.trigram];
  const out = new Float32Array(dimensions);
  const part = new Float32Array(dimensions);
  for (let f = 0; f < families.length; f++) {
    part.fill(0);
    // Sublinear tf: a word said three times is not three times as relevant.
    for (const [feature, tf] of families[f]!) {
      const h = hash32(feature);
      part[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(tf));
    }
    let sum = 0;
    for (let d = 0; d < dimensions; d++) sum += part[d]! * part[d]!;
    const norm = Math.sqrt(sum) || 1;
    for (let d = 0; d < dimensions; d++) out[d]! += (familyWeights[f]! * part[d]!) / norm;
  }
  return normalize(out);
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** Wording-only embedder: the offline baseline, and the fallback when no sentence model can load. */
export function createLexicalEmbedder(dimensions = LEXICAL_DIMENSIONS): Embedder {
  return {
    id: `lexical-hash/${dimensions}/1`,
    dimensions,
    dedupThreshold: 0.8,
    distinctFacts,
    async load() {},
    async embed(texts) {
      return texts.map((text) => lexicalFeatures(text, dimensions));
    },
  };
}

const NUMBER_WORDS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  eleven: "11",
  twelve: "12",
  thirteen: "13",
  fourteen: "14",
  fifteen: "15",
  sixteen: "16",
  seventeen: "17",
  eighteen: "18",
  nineteen: "19",
  twenty: "20",
  thirty: "30",
  forty: "40",
  fifty: "50",
  sixty: "60",
  seventy: "70",
  eighty: "80",
  ninety: "90",
  hundred: "100",
  thousand: "1000",
  first: "1",
  second: "2",
  third: "3",
  fourth: "4",
  fifth: "5",
  sixth: "6",
  seventh: "7",
  eighth: "8",
  ninth: "9",
  tenth: "10",
  once: "1",
  twice: "2",
  single: "1",
  double: "2",
};
/** Negation, and verbs that state the opposite of a preference ("dislikes" = "does not like"). */
const NEGATIONS = new Set(
  (
    "not no never none nobody nothing without cannot can't don't doesn't didn't won't isn't aren't wasn't shouldn't " +
    "mustn't dislike dislikes disliked hate hates hated avoid avoids avoided refuse refuses refused stop stops stopped " +
    "cancel cancels cancelled canceled"
  ).split(" "),
);
/**
 * Qualifiers that name which thing a fact is about, so "the staging database" and "the production database" are
 * two facts: deployment environments, client platforms, and people's relations and roles.
 */
const QUALIFIERS: Record<string, string> = Object.fromEntries(
  [
    ["prod production live", "production"],
    ["staging stage preprod pre-production", "staging"],
    ["dev development local", "development"],
    ["test testing qa", "test"],
    ["sandbox", "sandbox"],
    ["web browser", "web"],
    ["mobile ios android iphone", "mobile"],
    ["desktop", "desktop"],
    ["frontend front-end", "frontend"],
    ["backend back-end", "backend"],
    ["son", "son"],
    ["daughter", "daughter"],
    ["wife", "wife"],
    ["husband", "husband"],
    ["partner", "partner"],
    ["mother mom mum", "mother"],
    ["father dad", "father"],
    ["brother", "brother"],
    ["sister", "sister"],
    ["manager boss", "manager"],
    ["report reports", "report"],
    ["colleague coworker", "colleague"],
    ["client customer", "customer"],
    ["friend", "friend"],
  ].flatMap(([words, key]) => words!.split(" ").map((w) => [w, key!])),
);

/**
 * Words that name when something happens: days of the week, parts of the day and days relative to now. They count
 * wherever they stand and however they are written ("Fridays" = "friday"), so "tea in the afternoon" and "coffee in
 * the morning" are two facts. Months are capitalized and read as names; "may" alone is too often the verb.
 */
const DATE_TERMS: Record<string, string> = Object.fromEntries(
  [
    ["monday"],
    ["tuesday"],
    ["wednesday"],
    ["thursday"],
    ["friday"],
    ["saturday"],
    ["sunday"],
    ["weekday"],
    ["weekend"],
    ["morning"],
    ["noon", "midday lunchtime"],
    ["afternoon"],
    ["evening"],
    ["night", "overnight"],
    ["midnight"],
    ["today"],
    ["tonight"],
    ["tomorrow"],
    ["yesterday"],
  ].flatMap(([key, synonyms]) => [key!, ...(synonyms?.split(" ") ?? [])].map((w) => [w, "d:" + key!])),
);

/**
 * The facts that tell two similar sentences apart: numbers (digits, number words and ordinals read alike),
 * capitalized names, dates and times of day, qualifiers (environment, platform, relation) and negation. Lower-cased,
 * plural "s" dropped, so "Fridays" meets "Friday".
 */
export function keyTerms(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const add = (term: string, weight = 1) => out.set(term, Math.max(out.get(term) ?? 0, weight));
  const normal = text.normalize("NFKC").replace(/(\d),(\d{3})\b/g, "$1$2");
  let sentenceStart = true;
  for (const match of normal.matchAll(/[\p{L}\p{N}]+(?:['’.\-_/:][\p{L}\p{N}]+)*|[.!?;:]/gu)) {
    const token = match[0];
    const first = sentenceStart;
    sentenceStart = /^[.!?;:]$/.test(token);
    if (sentenceStart) continue;
    const lower = token.toLowerCase().replace(/’/g, "'");
    if (NEGATIONS.has(lower)) {
      add("not");
      continue;
    }
    const bare = lower.replace(/'s$/, "");
    const date = DATE_TERMS[bare] ?? DATE_TERMS[bare.replace(/(?<=\w{3})s$/, "")];
    if (date !== undefined) {
      add(date);
      continue;
    }
    const qualifier = QUALIFIERS[bare] ?? QUALIFIERS[bare.replace(/(?<=\w{3})s$/, "")];
    if (qualifier !== undefined) {
      add("q:" + qualifier);
      continue;
    }
    const number = lower.match(/^(\d+)(?:st|nd|rd|th)?$/)?.[1] ?? NUMBER_WORDS[lower];
    if (number !== undefined) {
      add(String(Number(number)));
      continue;
    }
    if (/\d/.test(lower)) {
      add(lower);
      for (const part of lower.match(/\d+/g) ?? []) add(String(Number(part)));
      continue;
    }
    // A capital at a sentence's start may be grammar, not a name: it counts half.
    if (/^\p{Lu}/u.test(token) && !STOPWORDS.has(lower)) add(lower.replace(/'s$/, "").replace(/(?<=\w{3})s$/, ""), first ? 0.5 : 1);
  }
  return out;
}

/**
 * True when two texts state different facts by their key terms, however close their meaning: a number, name or
 * negation stated in one is missing from the other. A sentence-initial capital (half weight) conflicts only when
 * both texts open with a different one ("Marcus owns…" / "Priya owns…").
 */
export function distinctFacts(a: string, b: string): boolean {
  const ka = keyTerms(a);
  const kb = keyTerms(b);
  const unmatched = (x: Map<string, number>, y: Map<string, number>) => [...x].filter(([term]) => !y.has(term));
  const onlyA = unmatched(ka, kb);
  const onlyB = unmatched(kb, ka);
  if (onlyA.some(([, w]) => w === 1) || onlyB.some(([, w]) => w === 1)) return true;
  return onlyA.length > 0 && onlyB.length > 0;
}
