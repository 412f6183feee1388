// The dashboard's page: workspaces, a workspace's memories (search by meaning, filters, forgetting), one memory,
// health, charts, usage, webhooks (./webhooks.tsx) and settings (API keys). Views live after `#` (the server serves one
// page); a view's search and filters live in its hash too, so Back returns to the same list.
import { render, type ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import {
  isHit,
  post,
  type DashboardKey,
  type DashboardMemory,
  type DuplicateView,
  type HealthResponse,
  type MemoryPage,
  type MemoryStats,
  type UsageReport,
  type WorkspaceOverview,
} from "./api.js";
import { BarChart, dailyBars } from "./charts.js";
import { Confirm, Loading, ShownOnce, shortText, useApi, when } from "./parts.js";
import { Webhooks } from "./webhooks.js";
import { AGE_RANGES, FORGET_MIN_SCORE_DEFAULT, type HealthList } from "../service/dashboard/choices.js";
import { NEVER_RETRIEVED_AFTER_DAYS, OVERLONG_CHARS, SIGNAL_LABELS, STALE_AFTER_DAYS } from "../contract/health.js";
import "./app.css";

/** Days shown by the per-day charts. */
const CHART_DAYS = 30;

interface Route {
  path: string[];
  params: URLSearchParams;
}

function readRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, "");
  const [path = "", query = ""] = hash.split("?");
  return { path: path.split("/").filter(Boolean), params: new URLSearchParams(query) };
}

function useRoute(): Route {
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const onChange = () => setRoute(readRoute());
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  const [first, ws, sub, item] = route.path;
  const workspaceId = first === "w" && ws !== undefined ? ws : null;
  // Moving between views puts the focus on the new view's heading, so keyboard and screen-reader users follow.
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    main.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [route.path.join("/")]);
  let view: ComponentChildren;
  if (workspaceId === null) view = <Workspaces />;
  else if (sub === "m" && item !== undefined) view = <Memory ws={workspaceId} id={item} />;
  else if (sub === "health") view = <Health ws={workspaceId} params={route.params} />;
  else if (sub === "charts") view = <Charts ws={workspaceId} />;
  else if (sub === "usage") view = <Usage ws={workspaceId} />;
  else if (sub === "settings") view = <Settings ws={workspaceId} />;
  else if (sub === "webhooks") view = <Webhooks ws={workspaceId} endpoint={item} />;
  else view = <Memories ws={workspaceId} params={route.params} />;
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          brain-mcp
        </a>
        <span class="muted">dashboard</span>
      </header>
      {workspaceId !== null && <WorkspaceNav ws={workspaceId} current={sub !== undefined && VIEWS.includes(sub) ? sub : "memories"} />}
      <main ref={main}>{view}</main>
    </>
  );
}

/** The workspace's views after the memory list, by their path segment. */
const VIEWS = ["health", "charts", "usage", "webhooks", "settings"];

function WorkspaceNav({ ws, current }: { ws: string; current: string }) {
  const state = useApi<WorkspaceOverview>(`/api/workspaces/${ws}`);
  const link = (name: string, href: string, label: string) => (
    <a href={href} aria-current={current === name ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <nav class="tabs" aria-label="Workspace">
      <a href="#/">All workspaces</a>
      <span class="ws-name">{state.data ? `${state.data.name} (#${state.data.id})` : `Workspace #${ws}`}</span>
      {link("memories", `#/w/${ws}`, "Memories")}
      {link("health", `#/w/${ws}/health`, "Health")}
      {link("charts", `#/w/${ws}/charts`, "Charts")}
      {link("usage", `#/w/${ws}/usage`, "Usage")}
      {link("webhooks", `#/w/${ws}/webhooks`, "Webhooks")}
      {link("settings", `#/w/${ws}/settings`, "Settings")}
    </nav>
  );
}

function Workspaces() {
  const state = useApi<{ workspaces: WorkspaceOverview[] }>("/api/workspaces");
  return (
    <>
      <h1 tabIndex={-1}>Workspaces</h1>
      <Loading state={state}>
        {({ workspaces }) =>
          workspaces.length === 0 ? (
            <p>No workspaces yet: the first `brain-mcp serve` makes one.</p>
          ) : (
            <table>
              <caption class="sr-only">Every workspace in the store</caption>
              <thead>
                <tr>
                  <th scope="col">Workspace</th>
                  <th scope="col">Status</th>
                  <th scope="col">Plan</th>
                  <th scope="col" class="num">
                    Memories
                  </th>
                  <th scope="col" class="num">
                    Live keys
                  </th>
                  <th scope="col" class="num">
                    Writes
                  </th>
                  <th scope="col" class="num">
                    Recalls
                  </th>
                  <th scope="col" class="num">
                    Quality score
                  </th>
                </tr>
              </thead>
              <tbody>
                {workspaces.map((w) => (
                  <tr key={w.id}>
                    <th scope="row">
                      <a href={`#/w/${w.id}`}>{w.name}</a> <span class="muted">#{w.id}</span>
                    </th>
                    <td>
                      <span class={`status status-${w.status}`}>{w.status}</span>
                    </td>
                    <td>
                      {w.plan} <span class="muted">({w.billing_cycle})</span>
                    </td>
                    <td class="num">{w.memories}</td>
                    <td class="num">{w.live_keys}</td>
                    <td class="num">{w.writes}</td>
                    <td class="num">{w.recalls}</td>
                    <td class="num">
                      <a href={`#/w/${w.id}/health`}>{w.quality_score}</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loading>
    </>
  );
}

const FILTERS = ["q", "category", "temporal", "min_importance", "age"] as const;

function Memories({ ws, params }: { ws: string; params: URLSearchParams }) {
  const stats = useApi<MemoryStats>(`/api/workspaces/${ws}/stats`);
  const query = new URLSearchParams();
  for (const name of [...FILTERS, "offset"]) {
    const value = params.get(name);
    if (value) query.set(name, value);
  }
  const [version, setVersion] = useState(0);
  const state = useApi<MemoryPage>(`/api/workspaces/${ws}/memories?${query}`, version);
  // What the last change did, shown above the reloaded list until the list changes.
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setNotice(null), [query.toString()]);
  // The results to forget: those scoring FORGET_MIN_SCORE_DEFAULT or more until the person ticks otherwise. The ticks
  // belong to the page they were made on; a new page starts from its defaults in the same render (no frame unticked).
  const [ticked, setTicked] = useState<{ page: MemoryPage | null; ids: Set<number> } | null>(null);
  const ticksOn = (t: typeof ticked) =>
    t && t.page === state.data
      ? t.ids
      : new Set((state.data?.memories ?? []).filter((m) => isHit(m) && m.score >= FORGET_MIN_SCORE_DEFAULT).map((m) => m.id));
  const chosen = ticksOn(ticked);
  const toggle = (id: number) =>
    setTicked((was) => {
      const next = new Set(ticksOn(was));
      if (!next.delete(id)) next.add(id);
      return { page: state.data, ids: next };
    });
  const howMany = (n: number) => (n === 1 ? "1 memory" : `${n} memories`);
  const searching = params.get("q") !== null && params.get("q") !== "";
  // The search box follows the hash (Clear, Back) and keeps what is typed until it is submitted.
  const [typed, setTyped] = useState(params.get("q") ?? "");
  useEffect(() => setTyped(params.get("q") ?? ""), [params.get("q")]);

  /** The form's fields become the hash; the list follows. */
  const apply = (form: HTMLFormElement) => {
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(new FormData(form).get(name) ?? "").trim();
      if (value) next.set(name, value);
    }
    location.hash = `#/w/${ws}?${next}`;
  };
  const pageTo = (offset: number) => {
    const next = new URLSearchParams(query);
    next.set("offset", String(offset));
    location.hash = `#/w/${ws}?${next}`;
  };

  return (
    <>
      <h1 tabIndex={-1}>Memories</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: a form with role=search is the ARIA pattern every browser reads; <search> is too new */}
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          apply(e.currentTarget);
        }}
        onChange={(e) => {
          // Filters apply as they change; the search waits for Enter or the button.
          if ((e.target as HTMLElement).getAttribute("name") !== "q") apply(e.currentTarget);
        }}
      >
        <div class="field grow">
          <label for="q">Search by meaning</label>
          <input
            id="q"
            name="q"
            type="search"
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
            placeholder="e.g. how do we deploy?"
          />
        </div>
        <button type="submit">Search</button>
        <Choice
          name="category"
          label="Category"
          params={params}
          options={(stats.data?.categories ?? []).map((c) => [c.category, `${c.category} (${c.count})`])}
        />
        <Choice name="temporal" label="Temporal type" params={params} options={TEMPORAL_CHOICES} />
        <Choice name="min_importance" label="Minimum importance" params={params} options={IMPORTANCE_CHOICES} />
        <Choice name="age" label="Age" params={params} options={AGE_CHOICES} />
        {query.toString() !== "" && (
          <a class="clear" href={`#/w/${ws}`}>
            Clear
          </a>
        )}
      </form>
      {notice && (
        <p role="status" class="done">
          {notice}
        </p>
      )}
      <Loading state={state}>
        {(page) => (
          <>
            <p role="status" class="muted">
              {searching
                ? `${page.total} ${page.total === 1 ? "memory" : "memories"} found by meaning, best first (the service's own retrieval; this search is not counted as a recall).`
                : `${page.total} ${page.total === 1 ? "memory" : "memories"}, newest first.`}
            </p>
            <MemoryTable ws={ws} page={page} chosen={searching ? { ids: chosen, toggle } : undefined} />
            {!searching && <Pager page={page} onPage={pageTo} />}
            {searching && page.memories.length > 0 && (
              <section aria-labelledby="forget-title" class="forget">
                <h2 id="forget-title">Forget memories</h2>
                <p class="muted">
                  The results ticked in the Forget column (at first, those scoring {FORGET_MIN_SCORE_DEFAULT} or more) are deleted for good:
                  text, vector, and the answers kept for retried stores. Agents will no longer recall them.
                </p>
                {chosen.size === 0 ? (
                  <p>No result is ticked.</p>
                ) : (
                  <Confirm
                    label={`Forget the ${howMany(chosen.size)} ticked…`}
                    question={`Forget ${howMany(chosen.size)} (${page.memories
                      .filter((m) => chosen.has(m.id))
                      .map((m) => `#${m.id}`)
                      .join(", ")})? This cannot be undone.`}
                    action={async () => {
                      const { forgotten } = await post<{ forgotten: number[] }>(`/api/workspaces/${ws}/memories/forget`, {
                        ids: [...chosen],
                      });
                      return `Forgot ${forgotten.length} ${forgotten.length === 1 ? "memory" : "memories"}.`;
                    }}
                    onDone={(outcome) => {
                      setNotice(outcome);
                      setVersion((v) => v + 1);
                    }}
                  />
                )}
              </section>
            )}
          </>
        )}
      </Loading>
    </>
  );
}

const TEMPORAL_CHOICES: [string, string][] = [
  ["persistent", "Persistent"],
  ["time_bound", "Time-bound"],
];
const IMPORTANCE_CHOICES: [string, string][] = [2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [String(n), `${n} or more`]);
const AGE_CHOICES: [string, string][] = Object.entries(AGE_RANGES).map(([value, range]) => [value, range.label]);

/** A labelled filter whose value lives in the hash; "Any" leaves it out. */
function Choice({ name, label, params, options }: { name: string; label: string; params: URLSearchParams; options: [string, string][] }) {
  return (
    <div class="field">
      <label for={name}>{label}</label>
      <select id={name} name={name} value={params.get(name) ?? ""}>
        <option value="">Any</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

function Pager({ page, onPage }: { page: MemoryPage; onPage: (offset: number) => void }) {
  const size = page.limit;
  if (page.total <= size) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page.offset === 0} onClick={() => onPage(Math.max(0, page.offset - size))}>
        Previous
      </button>
      <span>
        {page.offset + 1}–{Math.min(page.total, page.offset + size)} of {page.total}
      </span>
      <button type="button" disabled={page.offset + size >= page.total} onClick={() => onPage(page.offset + size)}>
        Next
      </button>
    </nav>
  );
}

/** A list of memories; with `chosen`, a first column of checkboxes picks which to forget. */
function MemoryTable({ ws, page, chosen }: { ws: string; page: MemoryPage; chosen?: { ids: Set<number>; toggle: (id: number) => void } }) {
  if (page.memories.length === 0) return <p>No memories here.</p>;
  const scored = page.memories.some(isHit);
  return (
    <table class="memories">
      <thead>
        <tr>
          {chosen && <th scope="col">Forget</th>}
          <th scope="col">Memory</th>
          {scored && (
            <th scope="col" class="num">
              Score
            </th>
          )}
          {scored && (
            <th scope="col" class="num">
              Similarity
            </th>
          )}
          <th scope="col">Categories</th>
          <th scope="col" class="num">
            Importance
          </th>
          <th scope="col">Temporal</th>
          <th scope="col">Created</th>
          <th scope="col" class="num">
            Recalls
          </th>
        </tr>
      </thead>
      <tbody>
        {page.memories.map((m) => (
          <tr key={m.id}>
            {chosen && (
              <td>
                <input
                  type="checkbox"
                  checked={chosen.ids.has(m.id)}
                  onChange={() => chosen.toggle(m.id)}
                  aria-label={`Forget memory #${m.id}`}
                />
              </td>
            )}
            <td>
              <a href={`#/w/${ws}/m/${m.id}`}>{shortText(m.text)}</a>
            </td>
            {isHit(m) && <td class="num score">{m.score.toFixed(3)}</td>}
            {isHit(m) && <td class="num similarity">{m.similarity.toFixed(3)}</td>}
            <td>
              <Categories list={m.categories} />
            </td>
            <td class="num">{m.importance}</td>
            <td class="nowrap">
              <Temporal m={m} />
            </td>
            <td class="nowrap">{m.created_at.slice(0, 10)}</td>
            <td class="num">{m.access_count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const Categories = ({ list }: { list: string[] }) => (
  <ul class="tags" aria-label="Categories">
    {list.map((c) => (
      <li key={c}>{c}</li>
    ))}
  </ul>
);

const Temporal = ({ m }: { m: DashboardMemory }) =>
  m.temporal.type === "persistent" ? (
    <span>persistent</span>
  ) : (
    <span class={m.expired ? "expired" : ""}>
      until {m.temporal.valid_until?.slice(0, 10)}
      {m.expired ? " (expired)" : ""}
    </span>
  );

function Memory({ ws, id }: { ws: string; id: string }) {
  const state = useApi<DashboardMemory>(`/api/workspaces/${ws}/memories/${id}`);
  const [forgotten, setForgotten] = useState(false);
  return (
    <>
      <h1 tabIndex={-1}>Memory #{id}</h1>
      <p>
        <a href={`#/w/${ws}`} onClick={(e) => history.length > 1 && (e.preventDefault(), history.back())}>
          ← Back to the memories
        </a>
      </p>
      {forgotten ? (
        <p role="status" class="done">
          Memory #{id} was forgotten.
        </p>
      ) : (
        <Loading state={state}>
          {(m) => (
            <>
              <article class="memory" aria-label={`Memory ${m.id}`}>
                <blockquote class="text">{m.text}</blockquote>
                <dl class="facts">
                  <dt>Categories</dt>
                  <dd>
                    <Categories list={m.categories} />
                  </dd>
                  <dt>Importance</dt>
                  <dd>{m.importance} of 10</dd>
                  <dt>Temporal</dt>
                  <dd>
                    <Temporal m={m} />
                  </dd>
                  <dt>Length</dt>
                  <dd>{m.characters} characters</dd>
                  <dt>Created</dt>
                  <dd>{when(m.created_at)}</dd>
                  <dt>Updated</dt>
                  <dd>{when(m.updated_at)}</dd>
                  <dt>Last recalled</dt>
                  <dd>{when(m.last_accessed_at)}</dd>
                  <dt>Recalls</dt>
                  <dd>{m.access_count}</dd>
                  <dt>Embedded by</dt>
                  <dd>
                    <code>{m.embedder_id}</code>
                  </dd>
                  <dt>Meta</dt>
                  <dd>
                    {Object.keys(m.meta).length === 0 ? <span class="muted">none</span> : <pre>{JSON.stringify(m.meta, null, 2)}</pre>}
                  </dd>
                </dl>
              </article>
              <Confirm
                label="Forget this memory…"
                question={`Forget memory #${m.id}? Its text and vector are deleted for good and agents will no longer recall it.`}
                action={async () => {
                  await post(`/api/workspaces/${ws}/memories/forget`, { ids: [m.id] });
                  return "";
                }}
                onDone={() => setForgotten(true)}
              />
            </>
          )}
        </Loading>
      )}
    </>
  );
}

const LISTS: { list: HealthList; title: string; help: string }[] = [
  { list: "stale", title: "Stale memories", help: `expired, or not recalled for ${STALE_AFTER_DAYS} days` },
  { list: "duplicates", title: "Duplicate pairs", help: "pairs that say nearly the same thing" },
  { list: "never_retrieved", title: "Never retrieved", help: `older than ${NEVER_RETRIEVED_AFTER_DAYS} days and never recalled` },
  { list: "overlong", title: "Overlong memories", help: `over ${OVERLONG_CHARS.toLocaleString("en-US")} characters` },
];

function Health({ ws, params }: { ws: string; params: URLSearchParams }) {
  const state = useApi<HealthResponse>(`/api/workspaces/${ws}/health`);
  const list = params.get("list") ?? "stale";
  return (
    <>
      <h1 tabIndex={-1}>Health</h1>
      <Loading state={state}>
        {(h) => (
          <>
            <section aria-labelledby="score-title" class="score-card">
              <h2 id="score-title">Quality score</h2>
              <p class="score-value">
                <meter min={0} max={100} low={60} high={85} optimum={100} value={h.quality_score} aria-label="Quality score">
                  {h.quality_score}
                </meter>
                <strong>{h.quality_score}</strong> / 100
              </p>
              <p class="muted">Generated {when(h.generated_at)}</p>
            </section>
            <section aria-labelledby="signals-title">
              <h2 id="signals-title">Signals</h2>
              <dl class="signals">
                {Object.entries(h.signals).map(([name, value]) => (
                  <div key={name}>
                    <dt>{SIGNAL_LABELS[name]?.title ?? name}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
            </section>
            <section aria-labelledby="recs-title">
              <h2 id="recs-title">Recommendations</h2>
              {h.recommendations.length === 0 ? (
                <p>None: nothing to act on.</p>
              ) : (
                <ul class="recommendations">
                  {h.recommendations.map((r) => (
                    <li key={r.code}>
                      <code>{r.code}</code> ({r.count}): {r.message}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </Loading>
      <section aria-labelledby="lists-title">
        <h2 id="lists-title">The memories behind the signals</h2>
        <nav class="tabs sub" aria-label="Health lists">
          {LISTS.map((l) => (
            <a key={l.list} href={`#/w/${ws}/health?list=${l.list}`} aria-current={list === l.list ? "page" : undefined}>
              {l.title}
            </a>
          ))}
        </nav>
        <p class="muted">{LISTS.find((l) => l.list === list)?.help}</p>
        {list === "duplicates" ? <Duplicates ws={ws} /> : <SignalList ws={ws} list={list} params={params} />}
      </section>
    </>
  );
}

function SignalList({ ws, list, params }: { ws: string; list: string; params: URLSearchParams }) {
  const offset = params.get("offset") ?? "0";
  const state = useApi<MemoryPage>(`/api/workspaces/${ws}/health/${list}?offset=${offset}`);
  return (
    <Loading state={state}>
      {(page) => (
        <>
          <MemoryTable ws={ws} page={page} />
          <Pager page={page} onPage={(o) => (location.hash = `#/w/${ws}/health?list=${list}&offset=${o}`)} />
        </>
      )}
    </Loading>
  );
}

function Duplicates({ ws }: { ws: string }) {
  const state = useApi<{ pairs: DuplicateView[] }>(`/api/workspaces/${ws}/health/duplicates`);
  return (
    <Loading state={state}>
      {({ pairs }) =>
        pairs.length === 0 ? (
          <p>No memories here.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Similarity
                </th>
                <th scope="col">One</th>
                <th scope="col">The other</th>
              </tr>
            </thead>
            <tbody>
              {pairs.map((p) => (
                <tr key={`${p.a.id}-${p.b.id}`}>
                  <td class="num">{p.cosine.toFixed(3)}</td>
                  <td>
                    <a href={`#/w/${ws}/m/${p.a.id}`}>{shortText(p.a.text, 100)}</a>
                  </td>
                  <td>
                    <a href={`#/w/${ws}/m/${p.b.id}`}>{shortText(p.b.text, 100)}</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Loading>
  );
}

function Charts({ ws }: { ws: string }) {
  const state = useApi<MemoryStats>(`/api/workspaces/${ws}/stats`);
  const now = Date.now();
  return (
    <>
      <h1 tabIndex={-1}>Charts</h1>
      <Loading state={state}>
        {(s) => (
          <div class="charts">
            <BarChart
              id="created"
              title={`Memories stored per day (last ${CHART_DAYS} days)`}
              unit="memories"
              bars={dailyBars(s.createdPerDay, CHART_DAYS, now)}
            />
            <BarChart
              id="recalls"
              title={`Recalls per day (last ${CHART_DAYS} days)`}
              unit="recalls"
              bars={dailyBars(s.recallsPerDay, CHART_DAYS, now)}
            />
            <BarChart
              id="categories"
              title="Categories"
              unit="labels"
              bars={s.categories.slice(0, 12).map((c) => ({ label: c.category, value: c.count }))}
            />
            <BarChart
              id="importance"
              title="Importance"
              unit="memories"
              bars={Array.from({ length: 10 }, (_, i) => ({
                label: String(i + 1),
                value: s.importance.find((x) => x.importance === i + 1)?.count ?? 0,
              }))}
            />
          </div>
        )}
      </Loading>
    </>
  );
}

function Usage({ ws }: { ws: string }) {
  const state = useApi<UsageReport>(`/api/workspaces/${ws}/usage`);
  const now = Date.now();
  const isoOf = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  return (
    <>
      <h1 tabIndex={-1}>Usage</h1>
      <p class="muted">Billable writes (stores) and reads (recalls), as the service recorded them; status and health are not billed.</p>
      <Loading state={state}>
        {(u) => (
          <>
            <section aria-labelledby="cycles-title">
              <h2 id="cycles-title">Per billing cycle ({u.billing_cycle})</h2>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Cycle</th>
                    <th scope="col" class="num">
                      Writes
                    </th>
                    <th scope="col" class="num">
                      Reads
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...u.cycles].reverse().map((c) => (
                    <tr key={c.start}>
                      <th scope="row">
                        {when(isoOf(c.start))} to {when(isoOf(c.end))}
                        {c.end > now ? <span class="muted"> (current)</span> : null}
                      </th>
                      <td class="num">{c.write}</td>
                      <td class="num">{c.read}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section aria-labelledby="days-title">
              <h2 id="days-title">Per day</h2>
              <div class="charts">
                <BarChart
                  id="writes"
                  title={`Writes per day (last ${CHART_DAYS} days)`}
                  unit="writes"
                  bars={dailyBars(
                    u.days.map((d) => ({ day: d.day, count: d.write })),
                    CHART_DAYS,
                    now,
                  )}
                />
                <BarChart
                  id="reads"
                  title={`Reads per day (last ${CHART_DAYS} days)`}
                  unit="reads"
                  bars={dailyBars(
                    u.days.map((d) => ({ day: d.day, count: d.read })),
                    CHART_DAYS,
                    now,
                  )}
                />
              </div>
            </section>
          </>
        )}
      </Loading>
    </>
  );
}

function Settings({ ws }: { ws: string }) {
  const [version, setVersion] = useState(0);
  const state = useApi<{ keys: DashboardKey[] }>(`/api/workspaces/${ws}/keys`, version);
  const [created, setCreated] = useState<(DashboardKey & { key: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = async () => {
    setError(null);
    try {
      setCreated(await post<DashboardKey & { key: string }>(`/api/workspaces/${ws}/keys`));
      setVersion((v) => v + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>Settings</h1>
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p class="muted">Agents authenticate with these keys. A revoked key is refused at once, by every process of the service.</p>
        <button type="button" onClick={create}>
          Create a key
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {created && (
          <ShownOnce
            message={`Key #${created.id} is ready. Copy it now: it is shown only this once, and never again anywhere.`}
            label="New API key"
            value={created.key}
            onDone={() => setCreated(null)}
          />
        )}
        <Loading state={state}>
          {({ keys }) => (
            <table>
              <caption class="sr-only">The workspace's API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">#{k.id}</th>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td class="nowrap">{when(k.created_at)}</td>
                    <td class="nowrap">{when(k.last_used_at)}</td>
                    <td>
                      {k.revoked_at !== null ? (
                        <span class="status status-deleted">revoked {when(k.revoked_at)}</span>
                      ) : (
                        <Confirm
                          label={`Revoke key #${k.id}…`}
                          question={`Revoke key #${k.id} (${k.prefix}…)? Agents using it are refused from now on.`}
                          action={async () => {
                            await post(`/api/workspaces/${ws}/keys/${k.id}/revoke`);
                            return `Key #${k.id} is revoked.`;
                          }}
                          onDone={() => setVersion((v) => v + 1)}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Loading>
      </section>
    </>
  );
}

render(<App />, document.getElementById("app")!);
