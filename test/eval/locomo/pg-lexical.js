// PostgreSQL's built-in full text over the same turns, for the experiments: a throwaway cluster (test/bench/pg.js),
// one table, tsvectors under the `simple` (no stemming) and `english` configurations, ranked by ts_rank_cd or
// ts_rank, and pg_trgm's word similarity. Each query is the same OR of distinct words as the FTS5 lists.
import pg from "pg";
import { startPostgres } from "../../bench/pg.js";
import { wordTokens } from "./bm25.js";
import { STOPWORDS } from "../../../dist/service/models/embed/lexical.js";

const QUERY_TIMEOUT_MS = 30_000;

export async function createPgLexical(conversations) {
  const cluster = await startPostgres({ sharedBuffers: "64MB" });
  const client = new pg.Client({ connectionString: cluster.url, statement_timeout: QUERY_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS });
  await client.connect();
  await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
  await client.query(`CREATE TABLE turns (conversation text, idx int, text text,
    simple tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
    english tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED)`);
  for (const c of conversations) {
    for (let i = 0; i < c.turns.length; i += 500) {
      const chunk = c.turns.slice(i, i + 500);
      const values = chunk.map((_, k) => `($1, $${k * 2 + 2}, $${k * 2 + 3})`).join(", ");
      await client.query(`INSERT INTO turns (conversation, idx, text) VALUES ${values}`, [
        c.id,
        ...chunk.flatMap((t, k) => [i + k, t.text]),
      ]);
    }
  }
  await client.query("ANALYZE turns");

  /** Best first [{index, score}] for one conversation's question, by `method`. */
  async function search(conversation, question, method, depth = 100) {
    const terms = [...new Set(wordTokens(question))].filter((t) => !STOPWORDS.has(t) && /^[\p{L}\p{N}]+$/u.test(t));
    if (terms.length === 0) return [];
    const or = terms.map((t) => `'${t}'`).join(" | ");
    const [config, rank] =
      {
        simpleCd: ["simple", "ts_rank_cd(simple, q, 1)"],
        simpleRank: ["simple", "ts_rank(simple, q, 1)"],
        englishCd: ["english", "ts_rank_cd(english, q, 1)"],
      }[method] ?? [];
    if (method === "simpleBm25" || method === "englishBm25") {
      // BM25 from the index's own statistics, as FTS5 computes it (k1 1.2, b 0.75, idf floored just above 0):
      // document frequencies by one index probe per term, tf from the tsvector's positions, length in lexemes.
      const cfg = method === "simpleBm25" ? "simple" : "english";
      const { rows } = await client.query(
        `WITH q AS (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('${cfg}', $2))),
         stats AS MATERIALIZED (SELECT count(*)::float8 AS n, avg(length(${cfg}))::float8 AS avgdl FROM turns WHERE conversation = $1),
         df AS MATERIALIZED (SELECT term, (SELECT count(*) FROM turns WHERE conversation = $1 AND ${cfg} @@ to_tsquery('${cfg}', quote_literal(term)))::float8 AS n FROM q),
         idf AS (SELECT term, greatest(ln((stats.n - df.n + 0.5) / (df.n + 0.5)), 1e-6) AS w FROM df, stats),
         cand AS (SELECT idx, ${cfg} AS v FROM turns WHERE conversation = $1 AND ${cfg} @@ to_tsquery('${cfg}', $3))
         SELECT cand.idx, sum(idf.w * (array_length(u.positions, 1) * 2.2) /
                (array_length(u.positions, 1) + 1.2 * (0.25 + 0.75 * length(cand.v) / stats.avgdl)))::float8 AS score
           FROM cand CROSS JOIN LATERAL unnest(cand.v) AS u JOIN idf ON idf.term = u.lexeme CROSS JOIN stats
          GROUP BY cand.idx ORDER BY score DESC, cand.idx LIMIT $4`,
        [conversation, terms.join(" "), or, depth],
      );
      return rows.map((r) => ({ index: r.idx, score: Number(r.score) }));
    }
    if (method === "trgm") {
      const { rows } = await client.query(
        `SELECT idx, word_similarity($2, text) AS score FROM turns WHERE conversation = $1 AND $2 <% text ORDER BY score DESC, idx LIMIT $3`,
        [conversation, terms.join(" "), depth],
      );
      return rows.map((r) => ({ index: r.idx, score: Number(r.score) }));
    }
    const column = config;
    const { rows } = await client.query(
      `SELECT idx, ${rank}::float8 AS score FROM turns, to_tsquery('${config}', $2) AS q WHERE conversation = $1 AND ${column} @@ q ORDER BY score DESC, idx LIMIT $3`,
      [conversation, or, depth],
    );
    return rows.map((r) => ({ index: r.idx, score: Number(r.score) }));
  }

  async function close() {
    await client.end();
    await cluster.stop();
  }
  return { search, close };
}
