// SQLite FTS5 over one conversation's turns, in an in-memory database: the engine the store's lexical index uses
// (better-sqlite3's bundled SQLite), so the experiments measure what the service will run.
import Database from "better-sqlite3";
import { wordTokens } from "./bm25.js";
// The service's own English stop list: words that name no topic.
import { STOPWORDS } from "../../../dist/service/models/embed/lexical.js";

export const TOKENIZERS = {
  words: "unicode61 remove_diacritics 2",
  porter: "porter unicode61 remove_diacritics 2",
  trigram: "trigram",
};

/**
 * Free text → an FTS5 query: each distinct word quoted (so no word is read as an operator or a column) and joined
 * by OR, so a memory matching any word is a candidate and bm25 ranks by how many and how rare. Trigram terms need
 * three characters.
 */
export function ftsQuery(text, { stopwords = false, minLength = 1 } = {}) {
  const terms = [...new Set(wordTokens(text))].filter((t) => t.length >= minLength && !(stopwords && STOPWORDS.has(t)));
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

/** One FTS5 table per tokenizer over `documents` (rowid = index + 1), each with an optional second column. */
export function createLexicalIndex(documents, { tokenizers = Object.keys(TOKENIZERS), context } = {}) {
  const db = new Database(":memory:");
  const tables = {};
  for (const name of tokenizers) {
    db.exec(`CREATE VIRTUAL TABLE fts_${name} USING fts5(body, context, tokenize = '${TOKENIZERS[name]}')`);
    const insert = db.prepare(`INSERT INTO fts_${name} (rowid, body, context) VALUES (?, ?, ?)`);
    db.transaction(() => documents.forEach((text, i) => insert.run(i + 1, text, context ? context[i] : "")))();
    tables[name] = {
      ranked: db.prepare(
        `SELECT rowid, -bm25(fts_${name}, 1.0, ?) AS score FROM fts_${name} WHERE fts_${name} MATCH ? ORDER BY bm25(fts_${name}, 1.0, ?) LIMIT ?`,
      ),
      plain: db.prepare(`SELECT rowid, 1.0 AS score FROM fts_${name} WHERE fts_${name} MATCH ? ORDER BY rowid DESC LIMIT ?`),
    };
  }

  /** Best first: [{index, score}], score = −bm25 (higher is better), or match order when `plain`. */
  function search(name, query, { depth = 50, plain = false, contextWeight = 0, stopwords = false } = {}) {
    const terms = ftsQuery(query, { stopwords, minLength: name === "trigram" ? 3 : 1 });
    if (!terms) return [];
    // A column filter keeps the context column out of matching unless it is weighted in.
    const match = contextWeight > 0 ? terms : `body : (${terms})`;
    const rows = plain ? tables[name].plain.all(match, depth) : tables[name].ranked.all(contextWeight, match, contextWeight, depth);
    return rows.map((r) => ({ index: r.rowid - 1, score: r.score }));
  }
  return { search, close: () => db.close() };
}
