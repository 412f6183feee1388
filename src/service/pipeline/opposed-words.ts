// Words of time, order and state that turn one fact into another ("before"/"after" the same event, "opened"/"closed"):
// every scale in one list so it is read and extended as a whole; same-fact.ts applies the rule.

/**
 * A scale: its opposed poles, each a space-separated list of word forms (`_` joins the words of a phrase). Two texts
 * that each use the scale but not the same poles disagree. A marked pole changes what a text claims even when the
 * other text says nothing on the scale ("I used to live in Porto" / "I live in Porto"), so it disagrees there too.
 */
interface Scale {
  poles: Record<string, string>;
  marked?: readonly string[];
}

export const SCALES: Readonly<Record<string, Scale>> = {
  // Time, relative to an event or to now.
  order: {
    poles: { before: "before prior beforehand earlier", after: "after afterwards afterward later subsequently" },
  },
  sequence: { poles: { first: "first initial", last: "last final", next: "next upcoming" } },
  timing: { poles: { early: "early", late: "late overdue delayed" } },
  era: {
    poles: {
      past: "used_to formerly former ex anymore any_more back_then",
      present: "now currently nowadays these_days still",
    },
    marked: ["past"],
  },
  age: { poles: { old: "old older oldest previous", new: "new newer newest latest brand-new" } },
  // Order of work: what is intended is not what was done.
  progress: {
    poles: {
      planned: "planned planning intend intends intended intending",
      started: "start starts started starting begin begins began begun beginning underway ongoing in_progress",
      finished: "finish finishes finished finishing end ends ended ending complete completes completed completing done",
    },
    marked: ["planned"],
  },
  // States a thing is in.
  openness: {
    poles: { open: "open opens opened reopen reopens reopened", closed: "close closes closed closing shut shuts" },
  },
  switch: {
    poles: {
      on: "enable enables enabled enabling active activated turned_on switched_on online",
      off: "disable disables disabled disabling inactive deactivated turned_off switched_off offline",
    },
  },
  verdict: {
    poles: {
      yes: "accept accepts accepted approve approves approved approval succeed succeeds succeeded success successful",
      no: "reject rejects rejected decline declines declined deny denies denied fail fails failed failure failing",
    },
  },
  outcome: { poles: { won: "win wins won winning", lost: "lose loses lost losing" } },
  trend: {
    poles: {
      up: "increase increases increased rise rises rose risen grow grows grew grown raise raised gain gained",
      down: "decrease decreases decreased fall falls fell fallen drop drops dropped shrink shrank shrunk reduce reduced",
    },
  },
  membership: {
    poles: {
      joined: "join joins joined joining hire hires hired",
      left: "leave leaves left leaving quit quits resign resigns resigned fire fires fired laid_off",
    },
  },
  ownership: { poles: { bought: "buy buys bought buying purchase purchased", sold: "sell sells sold selling" } },
  presence: {
    poles: { added: "add adds added adding", removed: "remove removes removed removing delete deletes deleted deleting" },
  },
  permission: {
    poles: {
      allowed: "allow allows allowed permit permits permitted",
      forbidden: "forbid forbids forbidden ban bans banned block blocks blocked prohibit prohibits prohibited",
    },
  },
  travel: { poles: { arrived: "arrive arrives arrived arriving", departed: "depart departs departed departing" } },
  lock: { poles: { locked: "lock locks locked", unlocked: "unlock unlocks unlocked" } },
  payment: { poles: { paid: "paid", unpaid: "unpaid owed outstanding" } },
  availability: { poles: { available: "available in_stock", unavailable: "unavailable sold_out out_of_stock" } },
  life: { poles: { alive: "alive born", dead: "dead died passed_away" } },
  relationship: { poles: { engaged: "engaged", married: "married", divorced: "divorced separated" } },
};

/** Prepositions that name where something goes from or to: the same thing on opposite ends is another fact. */
const FROM_WORDS = new Set(["from", "since"]);
const TO_WORDS = new Set(["to", "into", "onto", "until", "till", "toward", "towards"]);
/** Words skipped between a preposition and the thing it names. */
const DETERMINERS = new Set(["the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that"]);

const POLE_OF = new Map<string, Array<{ scale: string; pole: string }>>();
for (const [scale, { poles }] of Object.entries(SCALES)) {
  for (const [pole, words] of Object.entries(poles)) {
    for (const word of words.split(" ")) POLE_OF.set(word, [...(POLE_OF.get(word) ?? []), { scale, pole }]);
  }
}
const LONGEST_PHRASE = Math.max(...[...POLE_OF.keys()].map((w) => w.split("_").length));

function tokensOf(text: string): string[] {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []
  ).map((t) => t.replace(/’/g, "'"));
}

/** The poles a text uses, by scale (a phrase is read before its words, so "passed away" is not "passed"). */
export function polesOf(text: string): Map<string, Set<string>> {
  const tokens = tokensOf(text);
  const out = new Map<string, Set<string>>();
  for (let i = 0; i < tokens.length; i++) {
    for (let n = Math.min(LONGEST_PHRASE, tokens.length - i); n >= 1; n--) {
      const found = POLE_OF.get(tokens.slice(i, i + n).join("_"));
      if (!found) continue;
      for (const { scale, pole } of found) out.set(scale, (out.get(scale) ?? new Set()).add(pole));
      i += n - 1;
      break;
    }
  }
  return out;
}

/** Whether a pole is marked (see Scale). */
export function isMarked(scale: string, pole: string): boolean {
  return SCALES[scale]?.marked?.includes(pole) ?? false;
}

/** What each `from`/`to` names in a text: "moved from Porto to Lisbon" gives porto → from, lisbon → to. */
export function endsOf(text: string, isContentWord: (word: string) => boolean): Map<string, Set<"from" | "to">> {
  const tokens = tokensOf(text);
  const out = new Map<string, Set<"from" | "to">>();
  tokens.forEach((token, i) => {
    const end = FROM_WORDS.has(token) ? "from" : TO_WORDS.has(token) ? "to" : null;
    if (!end) return;
    let j = i + 1;
    while (j < tokens.length && DETERMINERS.has(tokens[j]!)) j++;
    const object = tokens[j];
    if (object !== undefined && isContentWord(object)) out.set(object, (out.get(object) ?? new Set()).add(end));
  });
  return out;
}

/**
 * Why two texts disagree on time, order or state, or null: a scale both use with different poles, a marked pole
 * only one uses, or one thing named as the start in one and the end in the other.
 */
export function timeOrderStateConflict(
  a: string,
  b: string,
  isContentWord: (word: string) => boolean,
): { scale: string; a: string[]; b: string[] } | null {
  const pa = polesOf(a);
  const pb = polesOf(b);
  for (const scale of new Set([...pa.keys(), ...pb.keys()])) {
    const sa = [...(pa.get(scale) ?? [])].sort();
    const sb = [...(pb.get(scale) ?? [])].sort();
    if (sa.join() === sb.join()) continue;
    if (sa.length > 0 && sb.length > 0) return { scale, a: sa, b: sb };
    if ([...sa, ...sb].some((pole) => isMarked(scale, pole))) return { scale, a: sa, b: sb };
  }
  const ea = endsOf(a, isContentWord);
  const eb = endsOf(b, isContentWord);
  for (const [thing, ends] of ea) {
    const other = eb.get(thing);
    if (!other || ends.size > 1 || other.size > 1) continue;
    const [x] = ends;
    const [y] = other;
    if (x !== y) return { scale: "from-to", a: [`${x} ${thing}`], b: [`${y} ${thing}`] };
  }
  return null;
}
