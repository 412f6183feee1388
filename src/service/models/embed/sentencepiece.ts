// A unigram SentencePiece tokenizer (Viterbi over piece log-probabilities), enough for USE-lite's 8k vocabulary.

/** The word-boundary mark SentencePiece puts before each word. */
const BOUNDARY = "\u2581";
/** Pieces 0..5 are control symbols (unknown, <s>, </s>, extra ids); 0 stands for an unknown character. */
const CONTROL_PIECES = 6;
const UNKNOWN_ID = 0;
/** A score worse than any piece, so an unknown character is used only where nothing else fits. */
const UNKNOWN_SCORE = -100;

export class SentencePiece {
  private readonly ids = new Map<string, number>();
  private readonly scores: Float64Array;
  private readonly longest: number;

  constructor(readonly vocabulary: ReadonlyArray<readonly [string, number]>) {
    this.scores = new Float64Array(vocabulary.length);
    let longest = 1;
    for (let id = CONTROL_PIECES; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id]!;
      this.ids.set(piece, id);
      this.scores[id] = score;
      longest = Math.max(longest, [...piece].length);
    }
    this.longest = longest;
  }

  get size(): number {
    return this.vocabulary.length;
  }

  /** Piece ids for a text; consecutive unknown characters collapse into one unknown id. */
  encode(text: string): number[] {
    const normal = text.normalize("NFKC").trim().replace(/\s+/g, " ");
    if (!normal) return [];
    const chars = [...(BOUNDARY + normal.replace(/ /g, BOUNDARY))];
    const n = chars.length;
    const best = new Float64Array(n + 1).fill(-Infinity);
    const pieceAt = new Int32Array(n + 1);
    const startAt = new Int32Array(n + 1);
    best[0] = 0;
    for (let start = 0; start < n; start++) {
      if (best[start] === -Infinity) continue;
      let piece = "";
      for (let end = start + 1; end <= Math.min(n, start + this.longest); end++) {
        piece += chars[end - 1];
        const id = this.ids.get(piece);
        const score = id === undefined ? (end === start + 1 ? UNKNOWN_SCORE : NaN) : this.scores[id]!;
        if (Number.isNaN(score)) continue;
        if (best[start]! + score > best[end]!) {
          best[end] = best[start]! + score;
          pieceAt[end] = id ?? UNKNOWN_ID;
          startAt[end] = start;
        }
      }
    }
    const out: number[] = [];
    for (let end = n; end > 0; end = startAt[end]!) out.push(pieceAt[end]!);
    out.reverse();
    return out.filter((id, i) => !(id === UNKNOWN_ID && out[i - 1] === UNKNOWN_ID));
  }
}
