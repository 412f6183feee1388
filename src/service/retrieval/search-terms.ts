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
