// BM25 as rank-bm25's BM25Okapi computes it (k1 1.5, b 0.75, epsilon 0.25: a term in more than half the documents
// gets epsilon times the mean idf instead of a negative one), over lowercased word tokens. The protocol's baseline.

/** Lowercased word tokens (letters, digits, underscore, any script). */
export function wordTokens(text) {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

export function createBm25Okapi(documents, { k1 = 1.5, b = 0.75, epsilon = 0.25, tokenize = wordTokens } = {}) {
  const termFrequencies = [];
  const lengths = [];
  const documentFrequency = new Map();
  for (const text of documents) {
    const counts = new Map();
    const tokens = tokenize(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    termFrequencies.push(counts);
    lengths.push(tokens.length);
    for (const token of counts.keys()) documentFrequency.set(token, (documentFrequency.get(token) ?? 0) + 1);
  }
  const n = documents.length;
  const averageLength = lengths.reduce((a, c) => a + c, 0) / (n || 1);
  const idf = new Map();
  let idfSum = 0;
  const negative = [];
  for (const [term, df] of documentFrequency) {
    const value = Math.log(n - df + 0.5) - Math.log(df + 0.5);
    idf.set(term, value);
    idfSum += value;
    if (value < 0) negative.push(term);
  }
  const floor = epsilon * (idfSum / (idf.size || 1));
  for (const term of negative) idf.set(term, floor);

  /** One score per document; repeated query terms count again, as in rank-bm25. */
  function scores(query) {
    const out = new Float64Array(n);
    for (const term of tokenize(query)) {
      const weight = idf.get(term);
      if (weight === undefined) continue;
      for (let i = 0; i < n; i++) {
        const tf = termFrequencies[i].get(term);
        if (!tf) continue;
        out[i] += (weight * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * lengths[i]) / averageLength));
      }
    }
    return out;
  }
  return { scores };
}
