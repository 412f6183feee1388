// Categories (issue 30): the deciding rules by name, the calibrated selection, a labeller left out of training, and
// the absurd examples through a real `serve`.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DOMAINS, TOPICS, type Topic } from "../../src/contract/taxonomy.js";
import { createOfflineEmbedder } from "../../src/service/models/embed/index.js";
import {
  DECIDING_RULES,
  RULES_CALIBRATION,
  SHORT_TEXT_WORDS,
  chooseCategories,
  scoreCategories,
  titledTopics,
} from "../../src/service/models/judge/categories.js";
import { sentencePart, type ClassifierWeights } from "../../src/service/models/judge/classifier.js";
import { CLASSIFIER_WEIGHTS } from "../../src/service/models/judge/data/classifier-weights.js";
import { createOfflineJudge } from "../../src/service/models/judge/index.js";
import type { Embedder } from "../../src/service/models/types.js";
import { call, startService, type ServiceHandle } from "../support/service.js";
import { fitLogistic } from "./logistic.js";
import { scoreCategories as scoreSet, type CategoryCase } from "./metrics.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const NOW = new Date("2025-07-16T13:00:00Z");
const PLANTS = "Plants need water on Fridays.";
const ATLAS = "Project Atlas stores its data in PostgreSQL 15 on the db-2 host.";
const LISBON = "I'm working from the Lisbon office until Friday.";

let embedder: Embedder;
const rules = createOfflineJudge();
let model: ReturnType<typeof createOfflineJudge>;
const vectorOf = async (text: string) => (await embedder.embed([text], "document"))[0]!;
/** Both paths of the offline judge: rules alone, and rules with the classifiers over the default embedder's vector. */
async function both(text: string): Promise<Array<{ mode: string; categories: string[] }>> {
  return [
    { mode: "rules", categories: (await rules.judge(text, NOW, null)).categories },
    { mode: "rules+classifier", categories: (await model.judge(text, NOW, await vectorOf(text))).categories },
  ];
}

beforeAll(async () => {
  embedder = createOfflineEmbedder("semantic");
  await embedder.load();
  model = createOfflineJudge({ embedderId: embedder.id });
});

const rule = (name: string) => {
  const found = DECIDING_RULES.find((r) => r.name === name);
  if (!found) throw new Error(`no rule named ${name}`);
  return found;
};

describe("rules where a word decides", () => {
  it('"an office is a workplace": working from a city\'s office is a location, not travel or a relationship', async () => {
    expect(rule("an office is a workplace").when.test(LISBON)).toBe(true);
    for (const { mode, categories } of await both(LISBON)) expect(categories, mode).toEqual(["work", "location"]);
    for (const { mode, categories } of await both("Kofi sits in the Nairobi office.")) {
      expect(categories, mode).toContain("location");
      expect(categories, mode).not.toContain("travel");
    }
  });

  it('"an office is a workplace" rules travel out only when no travel word is there', async () => {
    const text = "I'm working from the Lisbon office; my flight home is on Friday.";
    for (const { mode, categories } of await both(text)) {
      expect(categories, mode).toContain("location");
      expect(categories, mode).toContain("travel");
    }
  });

  it('"a chore is a task": plants that need water are a to-do, not a process, infrastructure or a preference', async () => {
    expect(rule("a chore is a task").when.test(PLANTS)).toBe(true);
    for (const { mode, categories } of await both(PLANTS)) expect(categories, mode).toEqual(["personal", "task"]);
    for (const { mode, categories } of await both("Water the tomatoes every evening in summer.")) {
      expect(categories.slice(1), mode).toEqual(["task"]);
    }
  });

  it('"a data store is infrastructure": the demo\'s Atlas fact is infrastructure (and a project), never security', async () => {
    expect(rule("a data store is infrastructure").when.test(ATLAS)).toBe(true);
    for (const { mode, categories } of await both(ATLAS)) {
      expect(categories[0], mode).toBe("technical");
      expect(categories, mode).toContain("infrastructure");
      expect(categories, mode).not.toContain("security");
    }
  });

  it("a security word still gives security beside a data store", async () => {
    const text = "Project Atlas stores its data in PostgreSQL; the password is rotated monthly.";
    for (const { mode, categories } of await both(text)) expect(categories, mode).toContain("security");
  });

  // The second pass's rules (issue 30): each gives its topic and drops the named ones, even when their own words appear.
  const overriding: Array<{ name: string; why: string; texts: string[]; gives: Topic; never: Topic[]; domain?: string; not?: string }> = [
    {
      name: "a pet is a relationship",
      why: "a named pet of the user's is a relationship, never a preference",
      texts: ["Pippin is the user's border terrier.", "The user has two cats called Mango and Miso."],
      gives: "relationship",
      never: ["preference"],
      not: "Buy cat litter on Saturday.", // a chore for an animal is still a to-do
    },
    {
      name: "a defect is code",
      why: "a bug in the invoicing or payments code is code, not finance",
      texts: ["The invoicing worker has a deadlock when two jobs overlap.", "There's a bug in the payments webhook handler."],
      gives: "code",
      never: ["finance"],
      domain: "technical",
    },
    {
      name: "a rule about data is security",
      why: "never sharing data is a security policy, not a preference",
      texts: ["Don't share patient records over email.", "Never copy production credentials into notebooks."],
      gives: "security",
      never: ["preference"],
      not: "Never send the user long answers.",
    },
    {
      name: "a pregnancy is health",
      why: "a baby due in some month is health, not a deadline",
      texts: ["Lucia is pregnant and the baby is due in March.", "The user's partner is expecting twins in the autumn."],
      gives: "health",
      never: ["deadline"],
      not: "The report is due in March.",
    },
    {
      name: "saving money is finance",
      why: "saving up for something is finance, not a preference",
      texts: ["The user is saving for a new bike.", "The user puts money aside every month for retirement."],
      gives: "finance",
      never: ["preference"],
    },
  ];
  for (const c of overriding) {
    it(`"${c.name}": ${c.why}`, async () => {
      for (const text of c.texts) {
        expect(rule(c.name).when.test(text), text).toBe(true);
        for (const { mode, categories } of await both(text)) {
          expect(categories, `${mode}: ${text}`).toContain(c.gives);
          for (const t of c.never) expect(categories, `${mode}: ${text}`).not.toContain(t);
          if (c.domain) expect(categories[0], `${mode}: ${text}`).toBe(c.domain);
        }
      }
      if (c.not) expect(rule(c.name).when.test(c.not), c.not).toBe(false);
    });
  }
});

describe("a job title, a role or a kind of company is not a topic (the third pass)", () => {
  it("a field word inside a title gives no topic: the product manager's offer is hiring, not product", async () => {
    const cases: Array<{ text: string; never: Topic; wants?: Topic }> = [
      { text: "The offer for the product manager expires on Monday.", never: "product", wants: "hiring" },
      { text: "Her husband works at a health insurance company.", never: "health", wants: "relationship" },
      { text: "The user's sister is a sales engineer at a robotics startup.", never: "customer", wants: "relationship" },
      { text: "Dana is the head of product at Initech.", never: "product" },
      { text: "We are interviewing for a senior security engineer next week.", never: "security", wants: "hiring" },
    ];
    for (const c of cases) {
      expect([...titledTopics(c.text)], c.text).toContain(c.never);
      for (const { mode, categories } of await both(c.text)) {
        expect(categories, `${mode}: ${c.text}`).not.toContain(c.never);
        if (c.wants) expect(categories, `${mode}: ${c.text}`).toContain(c.wants);
      }
    }
  });

  it("the topic stays when the memory is about it outside the title too", async () => {
    for (const [text, topic] of [
      ["Our product manager wants the free tier removed from the pricing page.", "product"],
      ["The head of security wants every API key rotated before the audit.", "security"],
      ["The finance lead says the Q3 budget is frozen.", "finance"],
    ] as Array<[string, Topic]>) {
      expect(titledTopics(text).has(topic), text).toBe(false);
      for (const { mode, categories } of await both(text)) expect(categories, `${mode}: ${text}`).toContain(topic);
    }
  });

  it("words that only look like a topic's: a code name, a visa interview, rotating people, the holiday season", () => {
    const score = (text: string, t: Topic) => scoreCategories(text).topics.get(t) ?? 0;
    expect(score("Bluebird is the code name for the billing revamp.", "code")).toBe(0);
    expect(score("The dress code for the gala is black tie.", "code")).toBe(0);
    expect(score("The code in utils/time.ts handles time zones.", "code")).toBeGreaterThan(0);
    expect(score("The user's visa interview is next Tuesday.", "hiring")).toBe(0);
    expect(score("The interview with the backend candidate is next Tuesday.", "hiring")).toBeGreaterThan(0);
    expect(score("Team leads rotate the retro facilitator every sprint.", "security")).toBe(0);
    expect(score("Rotate the old deploy keys every quarter.", "security")).toBeGreaterThan(0);
    expect(score("Support is busiest in the holiday season.", "travel")).toBe(0);
    expect(score("The user is on holiday in Crete.", "travel")).toBeGreaterThan(0);
    expect(score("Feature branches are rebased before merging.", "product")).toBe(0);
    expect(score("The export feature is the most used one.", "product")).toBeGreaterThan(0);
  });
});

describe("words that name something else (the fifth pass)", () => {
  it("a part of a system names what it handles: the tax calculation module is code, not finance", async () => {
    const cases: Array<{ text: string; never: Topic; wants?: Topic }> = [
      { text: "Write unit tests for the tax calculation module, coverage there is only 40%.", never: "finance", wants: "code" },
      { text: "The health check endpoint returns 503 during deploys.", never: "health" },
      { text: "The events table has no index on created_at.", never: "event" },
    ];
    for (const c of cases) {
      expect([...titledTopics(c.text)], c.text).toContain(c.never);
      for (const { mode, categories } of await both(c.text)) {
        expect(categories, `${mode}: ${c.text}`).not.toContain(c.never);
        if (c.wants) expect(categories, `${mode}: ${c.text}`).toContain(c.wants);
      }
    }
    // Outside a system's name the word still counts.
    for (const text of ["The tax return is due on 31 January.", "The tax calculation module is wrong, and we owe £2,000 in tax."]) {
      expect(titledTopics(text).has("finance"), text).toBe(false);
    }
  });

  it("a company's name or someone's line of work is no topic: a demo for Halden Health, a brother in finance", async () => {
    for (const [text, never] of [
      ["Demo for Halden Health on Thursday about the reporting export.", "health"],
      ["My brother works in finance in Leeds.", "finance"],
      ["Her wife Joanna does customer success at Zendesk.", "customer"],
    ] as Array<[string, Topic]>) {
      expect(titledTopics(text).has(never), text).toBe(true);
      for (const { mode, categories } of await both(text)) expect(categories, `${mode}: ${text}`).not.toContain(never);
    }
    // Lower-case, it is the memory's subject: "for mental health" is no company.
    expect(titledTopics("She takes Fridays off for mental health.").has("health")).toBe(false);
  });

  it("a convention, a contact or a reminder with no action is no task; a reminder that asks for one is", () => {
    const task = (text: string) => scoreCategories(text).topics.get("task") ?? 0;
    expect(task("Branch names: feat/, fix/ or chore/ followed by the ticket number.")).toBe(0);
    expect(task("Jon is best reached through his assistant Dana for anything to do with scheduling.")).toBe(0);
    expect(task("Book club is the first Thursday of every month.")).toBe(0);
    expect(task("Book the room for Thursday.")).toBeGreaterThan(0);
    expect(task("I still have to do the laundry.")).toBeGreaterThan(0);
    expect(scoreCategories("Nadia raised her hand for the contrast audit of checkout.").topics.has("finance")).toBe(false);
    expect(scoreCategories("Nadia raised her hand for the contrast audit of checkout.").topics.has("security")).toBe(false);
    expect(scoreCategories("The boat's safety certificate runs out in April.").topics.has("security")).toBe(false);
    expect(scoreCategories("Renew the TLS certificates before they expire.").topics.has("security")).toBe(true);
  });

  it("meeting needs a word of its own: a reminder about timesheets is no meeting", async () => {
    expect(CLASSIFIER_WEIGHTS.topic_calibration!.needsWord).toContain("meeting");
    const text = "Every Friday before five, nudge her to log her hours in Harvest.";
    for (const { mode, categories } of await both(text)) expect(categories, `${mode}: ${text}`).not.toContain("meeting");
  });
});

describe("the calibrated selection", () => {
  it("the shipped weights carry a threshold for every topic, a ratio and a short-text cap", () => {
    const c = CLASSIFIER_WEIGHTS.topic_calibration!;
    expect(Object.keys(c.thresholds).sort()).toEqual([...TOPICS].sort());
    for (const t of TOPICS) expect(c.thresholds[t]).toBeGreaterThan(0);
    expect(c.ratio).toBeGreaterThanOrEqual(0);
    expect(c.shortCap).toBeGreaterThanOrEqual(1);
    expect(c.shortCap).toBeLessThanOrEqual(3);
  });

  it(`a text of ${SHORT_TEXT_WORDS} words or fewer gets at most the short-text cap of topics`, async () => {
    const text = "Security deadline: customer invoice meeting about the database migration.";
    expect(text.split(/\s+/).length).toBeLessThanOrEqual(SHORT_TEXT_WORDS);
    expect(scoreCategories(text).topics.size).toBeGreaterThan(3);
    const [, ...topics] = (await rules.judge(text, NOW, null)).categories;
    expect(topics.length).toBeLessThanOrEqual(RULES_CALIBRATION.shortCap);
    const [, ...modelTopics] = (await model.judge(text, NOW, await vectorOf(text))).categories;
    expect(modelTopics.length).toBeLessThanOrEqual(CLASSIFIER_WEIGHTS.topic_calibration!.shortCap);
  });

  it("a longer text gets at most the long-text cap of topics (people give hardly more topics to a long memory)", async () => {
    const longCap = CLASSIFIER_WEIGHTS.topic_calibration!.longCap!;
    expect(longCap).toBe(2);
    const text = "Security deadline on Friday: the customer invoice meeting about the database migration project and the hiring plan.";
    expect(text.split(/\s+/).length).toBeGreaterThan(SHORT_TEXT_WORDS);
    expect(scoreCategories(text).topics.size).toBeGreaterThan(3);
    const [, ...topics] = (await model.judge(text, NOW, await vectorOf(text))).categories;
    expect(topics.length).toBeLessThanOrEqual(longCap);
    const thresholds = Object.fromEntries(TOPICS.map((t) => [t, 1])) as Record<Topic, number>;
    const scores = {
      topics: new Map<Topic, number>([
        ["code", 5],
        ["infrastructure", 4],
        ["security", 3],
      ]),
      domains: new Map(),
    };
    const calibration = { thresholds, ratio: 0, shortCap: 1, longCap: 2 };
    expect(chooseCategories(scores, DOMAINS, TOPICS, text, calibration).slice(1)).toEqual(["code", "infrastructure"]);
    expect(chooseCategories(scores, DOMAINS, TOPICS, text, { ...calibration, longCap: undefined }).slice(1)).toHaveLength(3);
  });

  it("a topic below its own threshold is not given, and one at it is", () => {
    const thresholds = Object.fromEntries(TOPICS.map((t) => [t, 3])) as Record<Topic, number>;
    const calibration = { thresholds, ratio: 0, shortCap: 3 };
    const scores = {
      topics: new Map<Topic, number>([
        ["finance", 2.9],
        ["customer", 3],
      ]),
      domains: new Map(),
    };
    expect(chooseCategories(scores, DOMAINS, TOPICS, "some longer text about a customer", calibration)).toEqual(["business", "customer"]);
  });

  it("a weaker topic is kept only while it reaches the ratio of the best one's margin", () => {
    const thresholds = Object.fromEntries(TOPICS.map((t) => [t, 2])) as Record<Topic, number>;
    const scores = {
      topics: new Map<Topic, number>([
        ["code", 8],
        ["infrastructure", 3],
      ]),
      domains: new Map(),
    };
    expect(chooseCategories(scores, DOMAINS, TOPICS, "x", { thresholds, ratio: 0.5, shortCap: 3 }).slice(1)).toEqual(["code"]);
    expect(chooseCategories(scores, DOMAINS, TOPICS, "x", { thresholds, ratio: 0.3, shortCap: 3 }).slice(1)).toEqual([
      "code",
      "infrastructure",
    ]);
  });

  it("the model-free path is deterministic: the same text gives the same categories every time", async () => {
    for (const text of [PLANTS, ATLAS, LISBON, "We promised Acme the SSO fix by Friday."]) {
      const first = await rules.judge(text, NOW, null);
      expect(await createOfflineJudge().judge(text, new Date(NOW), null)).toEqual(first);
    }
  });
});

describe("a labeller left out of training (leave one labeller out, issue 30's fourth pass)", () => {
  // Every labelled group is training data for the shipped weights, so scoring one of them with those weights is an
  // in-sample figure. Here the test fits its own classifiers on every group but the old `holdout` split of
  // category-labels.json (another labeller's 133 rows) and judges those rows with them: the lexicon, weights and
  // thresholds are the shipped ones (the thresholds were chosen with these rows among others: a small leak). Since the
  // fifth pass the other groups include category-labels-holdout3.json and category-labels-voices2.json.
  const set = (name: string) =>
    JSON.parse(readFileSync(fileURLToPath(new URL(`../eval/sets/${name}`, import.meta.url)), "utf8")) as Array<
      CategoryCase & { split?: string }
    >;
  const rows = set("category-labels.json");
  const held = rows.filter((r) => r.split === "holdout");
  const data = (name: string) =>
    JSON.parse(
      readFileSync(fileURLToPath(new URL(`../../src/service/models/judge/data/${name}`, import.meta.url)), "utf8"),
    ) as CategoryCase[];
  const train = [
    ...data("training.json"),
    ...data("category-training.json"),
    ...rows.filter((r) => r.split === "dev"),
    ...set("category-labels-holdout2.json"),
    ...set("category-labels-voices.json"),
    ...set("category-labels-holdout3.json"),
    ...set("category-labels-voices2.json"),
    ...set("category-labels-holdout4.json"),
    ...set("category-labels-holdout5.json"),
  ];

  it("has at least 300 memories in several groups, with valid labels and no text twice", () => {
    expect(rows.length).toBeGreaterThanOrEqual(300);
    expect(held.length).toBeGreaterThanOrEqual(100);
    const all = [
      ...rows,
      ...set("category-labels-holdout2.json"),
      ...set("category-labels-voices.json"),
      ...set("category-labels-holdout3.json"),
      ...set("category-labels-voices2.json"),
      ...set("category-labels-holdout4.json"),
      ...set("category-labels-holdout5.json"),
    ];
    expect(new Set(all.map((r) => r.text)).size).toBe(all.length);
    for (const r of all) {
      expect(DOMAINS as readonly string[], r.text).toContain(r.domain);
      for (const t of r.topics) expect(TOPICS as readonly string[], r.text).toContain(t);
    }
  });

  it("topic micro-F1 on the left-out labeller's rows, against a floor under today's figure", async () => {
    const sentences = async (texts: string[]) => (await embedder.embed(texts, "document")).map((v) => sentencePart(v, embedder.id)!);
    const X = await sentences(train.map((r) => r.text));
    const Y = train.map((r) => [...DOMAINS.map((d) => (r.domain === d ? 1 : 0)), ...TOPICS.map((t) => (r.topics.includes(t) ? 1 : 0))]);
    const fit = fitLogistic(
      X,
      Y,
      CLASSIFIER_WEIGHTS.category_l2 ?? 0.0003,
      CLASSIFIER_WEIGHTS.category_iters ?? 300,
      undefined,
      CLASSIFIER_WEIGHTS.category_fit,
    );
    const weights: ClassifierWeights = {
      ...CLASSIFIER_WEIGHTS,
      bias: [CLASSIFIER_WEIGHTS.bias[0]!, ...fit.b],
      weights: [CLASSIFIER_WEIGHTS.weights[0]!, ...fit.W],
    };
    const leftOut = createOfflineJudge({ embedderId: embedder.id, weights });
    const vectors = await embedder.embed(
      held.map((r) => r.text),
      "document",
    );
    const byText = new Map(held.map((r, i) => [r.text, vectors[i]!]));
    const s = await scoreSet(held, (text, now) => leftOut.judge(text, now, byText.get(text)!), NOW);
    console.log(`left-out labeller (holdout): n=${s.n} domain ${s.domainAccuracy.toFixed(3)} topic micro-F1 ${s.microF1.toFixed(3)}`);
    expect(s.microF1).toBeGreaterThanOrEqual(0.8);
    // The fit runs the shipped number of steps and method (1000 of gradient descent from the fifth pass: about a minute
    // of CPU on this machine, 66 s with holdout4's rows; 400 of Adam since 2026-11-29, with holdout5's rows).
  }, 600_000);
});

describe("the issue's examples through a real serve", () => {
  let svc: ServiceHandle;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it("stores each with the categories a person would give", async () => {
    const store = async (text: string) => {
      const res = await call(svc.baseURL, "POST", "/v1/memory/store", { key: svc.apiKey, json: { text } });
      expect(res.status, res.text).toBe(200);
      return res.json.categories as string[];
    };
    expect(await store(PLANTS)).toEqual(["personal", "task"]);
    const atlas = await store(ATLAS);
    expect(atlas[0]).toBe("technical");
    expect(atlas).toContain("infrastructure");
    expect(atlas).not.toContain("security");
    expect(await store(LISBON)).toEqual(["work", "location"]);
  });
});
