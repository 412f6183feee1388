// What the store's lexical index is asked for: the query's words, lower-cased, without the words that carry no topic
// (they would match most memories and only slow the index down), each once.
import { STOPWORDS } from "../models/embed/lexical.js";

/** More terms than this add nothing a question needs and make the index's OR query longer. */
export const SEARCH_TERMS_MAX = 24;

/** Words of letters and digits; both stores' tokenizers split text at the same places for these. */
export function searchTerms(query: string): string[] {
  const words =
    query
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = new Set<string>();
  for (const word of words) {
    if (STOPWORDS.has(word) || terms.has(word)) continue;
    terms.add(word);
    if (terms.size === SEARCH_TERMS_MAX) break;
  }
  return [...terms];
}

/** How a memory holds a query word the lexical index matched. */
export type WordMatch = "word" | "fragment";

/** Scripts written without spaces between words: whatever the index matched inside a run of them is taken as a word. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * What may follow a query word for a longer word to be the same word inflected: the plural and possessive, the past
 * and the -ing form, with the consonant doubled or not ("painting" → "paintings", "plan" → "planned"). Deliberately
 * not a Porter/Snowball stem, which also joins derivations ("product" with "production", "general" with "generous"
 * under Lancaster): those are the fragments the issue counts as noise (docs/decisions.md, issue 30).
 */
const INFLECTION = /^(?:s|es|ed|d|ing)$/;

/** Lower case, compatibility forms folded and diacritics dropped, as SQLite's index (remove_diacritics) reads text. */
export const foldText = (text: string) => text.normalize("NFKC").toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");

/** The words of a (folded) text. */
export const wordsOf = (folded: string): ReadonlySet<string> => new Set(folded.match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * "word" when the memory holds the query word whole or inflected (`words` from wordsOf(foldText(text))), else
 * "fragment": the index found it only inside a longer word (`use` in `user`, `sign` in `design`).
 */
export function wordMatch(term: string, words: ReadonlySet<string>): WordMatch {
  const t = foldText(term);
  if (UNSPACED.test(t) || words.has(t)) return "word";
  for (const w of words) {
    if (w.length <= t.length || !w.startsWith(t)) continue;
    const rest = w.slice(t.length);
    if (INFLECTION.test(rest) || (rest[0] === t.at(-1) && INFLECTION.test(rest.slice(1)))) return "word";
  }
  return "fragment";
}

/** Endings a word's stem is read without (../fusion.ts inflectedEvidence), longest first where they overlap. */
const STEM_ENDINGS = ["ing", "ed", "es", "s", "er", "d"] as const;

/**
 * A light stem of a (folded) word, for matching a query word with another inflection of it that the lexical index
 * cannot find ("camped" with "camping", "painting" with "painted", "dance" with "dancing"): one ending of STEM_ENDINGS
 * dropped when at least four letters remain, then a doubled last consonant ("planned") and a final "e". Words of fewer
 * than four letters are their own stem.
 */
export function stemOf(word: string): string {
  for (const ending of STEM_ENDINGS) {
    if (word.length - ending.length < 4 || !word.endsWith(ending)) continue;
    let base = word.slice(0, -ending.length);
    if (base.length >= 5 && base.at(-1) === base.at(-2)) base = base.slice(0, -1);
    return base.length >= 5 && base.endsWith("e") ? base.slice(0, -1) : base;
  }
  return word.length >= 5 && word.endsWith("e") ? word.slice(0, -1) : word;
}
