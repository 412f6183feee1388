// The dashboard's webhooks view: a workspace's endpoints (add one and see its signing secret once; send a test event;
// rotate the secret; enable a disabled one; remove one) and, at #/w/WS/webhooks/ID, an endpoint's delivery log.
import { useState } from "preact/hooks";
import { post, type DeliveryView, type EndpointView, type TestOutcome } from "./api.js";
import { WEBHOOK_CATEGORIES, WEBHOOK_EVENT_TYPES } from "../service/webhooks/events.js";
import { Confirm, Loading, ShownOnce, useApi, when } from "./parts.js";

const TYPES_BY_CATEGORY = WEBHOOK_CATEGORIES.map((category) => ({
  category,
  types: Object.entries(WEBHOOK_EVENT_TYPES)
    .filter(([, c]) => c === category)
    .map(([type]) => type),
}));

const subscriptionText = (events: string[]) => (events.length === 0 ? "every event" : events.join(", "));

export function Webhooks({ ws, endpoint }: { ws: string; endpoint?: string }) {
  return endpoint === undefined ? <Endpoints ws={ws} /> : <Deliveries ws={ws} id={endpoint} />;
}

function Endpoints({ ws }: { ws: string }) {
  const [version, setVersion] = useState(0);
  const state = useApi<{ endpoints: EndpointView[] }>(`/api/workspaces/${ws}/webhooks`, version);
  const [secret, setSecret] = useState<{ message: string; value: string } | null>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const reload = () => setVersion((v) => v + 1);
  const test = async (e: EndpointView) => {
    setOutcome(null);
    try {
      const answer = await post<TestOutcome>(`/api/workspaces/${ws}/webhooks/${e.id}/test`);
      setOutcome(
        answer.delivered
          ? { ok: true, text: `Test event ${answer.msg_id} delivered to endpoint #${e.id} (HTTP ${answer.status_code}).` }
          : { ok: false, text: `The test event to endpoint #${e.id} was not delivered: ${answer.error}` },
      );
    } catch (err) {
      setOutcome({ ok: false, text: (err as Error).message });
    }
    reload();
  };
  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="muted">
        The service posts workspace events (lifecycle, billing, anomalies) to these endpoints, signed as the Standard Webhooks specification
        says: verify them with the endpoint's <code>whsec_</code> secret and a <code>standardwebhooks</code> library.
      </p>
      <AddEndpoint
        ws={ws}
        onAdded={(added) => {
          setSecret({
            message: `Endpoint #${added.id} is added. Copy its signing secret now: it is shown only this once.`,
            value: added.secret,
          });
          reload();
        }}
      />
      {secret && <ShownOnce message={secret.message} label="Signing secret" value={secret.value} onDone={() => setSecret(null)} />}
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} class={outcome.ok ? "done" : "error"}>
          {outcome.text}
        </p>
      )}
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <Loading state={state}>
          {({ endpoints }) =>
            endpoints.length === 0 ? (
              <p>No endpoints yet.</p>
            ) : (
              <table>
                <caption class="sr-only">The workspace's webhook endpoints</caption>
                <thead>
                  <tr>
                    <th scope="col">Endpoint</th>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">Status</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {endpoints.map((e) => (
                    <tr key={e.id}>
                      <th scope="row">
                        <a href={`#/w/${ws}/webhooks/${e.id}`} aria-label={`Deliveries of endpoint #${e.id}`}>
                          #{e.id}
                        </a>
                      </th>
                      <td class="url">
                        <code>{e.url}</code>
                      </td>
                      <td>{subscriptionText(e.events)}</td>
                      <td>
                        <EndpointStatus e={e} />
                      </td>
                      <td class="actions">
                        {e.disabled ? (
                          <button
                            type="button"
                            onClick={async () => {
                              setOutcome(null);
                              try {
                                await post(`/api/workspaces/${ws}/webhooks/${e.id}/enable`);
                                setOutcome({ ok: true, text: `Endpoint #${e.id} is enabled; its pending deliveries go out again.` });
                              } catch (err) {
                                setOutcome({ ok: false, text: (err as Error).message });
                              }
                              reload();
                            }}
                          >
                            Enable #{e.id}
                          </button>
                        ) : (
                          <button type="button" onClick={() => test(e)}>
                            Send a test event to #{e.id}
                          </button>
                        )}
                        <Confirm
                          label={`Rotate the secret of #${e.id}…`}
                          question={`Give endpoint #${e.id} a new signing secret? The old one stops signing at once.`}
                          action={async () => {
                            const answer = await post<{ secret: string }>(`/api/workspaces/${ws}/webhooks/${e.id}/rotate-secret`);
                            setSecret({
                              message: `Endpoint #${e.id} has a new signing secret. Copy it now: it is shown only this once.`,
                              value: answer.secret,
                            });
                            return "";
                          }}
                          onDone={() => undefined}
                        />
                        <Confirm
                          label={`Remove #${e.id}…`}
                          question={`Remove endpoint #${e.id} and its delivery log? Events are no longer sent to it.`}
                          action={async () => {
                            await post(`/api/workspaces/${ws}/webhooks/${e.id}/remove`);
                            return "";
                          }}
                          onDone={() => {
                            setOutcome({ ok: true, text: `Endpoint #${e.id} is removed.` });
                            reload();
                          }}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loading>
      </section>
    </>
  );
}

function EndpointStatus({ e }: { e: EndpointView }) {
  if (e.disabled)
    return (
      <span class="status status-deleted">
        disabled {when(e.disabled_at)}: {e.disabled_reason}
      </span>
    );
  if (e.failure_streak > 0) return <span class="status status-suspended">failing: {e.failure_streak} in a row</span>;
  return <span class="status status-active">active</span>;
}

function AddEndpoint({ ws, onAdded }: { ws: string; onAdded: (added: EndpointView & { secret: string }) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (name: string) =>
    setEvents((chosen) => {
      const next = new Set(chosen);
      if (!next.delete(name)) next.add(name);
      return next;
    });
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onAdded(await post<EndpointView & { secret: string }>(`/api/workspaces/${ws}/webhooks`, { url, events: [...events] }));
      setUrl("");
      setEvents(new Set());
    } catch (err) {
      setError((err as Error).message);
    }
    setBusy(false);
  };
  const box = (name: string, label: string) => (
    <label key={name} class="check">
      <input type="checkbox" checked={events.has(name)} onChange={() => toggle(name)} /> {label}
    </label>
  );
  return (
    <section aria-labelledby="add-title">
      <h2 id="add-title">Add an endpoint</h2>
      <form class="add-webhook" onSubmit={submit}>
        <p>
          <label for="webhook-url">Endpoint URL</label>{" "}
          <input
            id="webhook-url"
            type="url"
            required
            size={50}
            placeholder="https://example.com/hooks/brain"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </p>
        <fieldset>
          <legend>Events (none ticked: every event)</legend>
          {TYPES_BY_CATEGORY.map(({ category, types }) => (
            <div key={category} class="event-group">
              {box(category, `all ${category} events`)}
              <details>
                <summary>or single {category} events</summary>
                {types.map((type) => box(type, type))}
              </details>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          Add the endpoint
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}

function Deliveries({ ws, id }: { ws: string; id: string }) {
  const [version, setVersion] = useState(0);
  const state = useApi<{ endpoint: EndpointView; deliveries: DeliveryView[] }>(`/api/workspaces/${ws}/webhooks/${id}/deliveries`, version);
  return (
    <>
      <h1 tabIndex={-1}>Deliveries of endpoint #{id}</h1>
      <p>
        <a href={`#/w/${ws}/webhooks`}>← Back to the webhooks</a>{" "}
        <button type="button" class="secondary" onClick={() => setVersion((v) => v + 1)}>
          Refresh
        </button>
      </p>
      <Loading state={state}>
        {({ endpoint, deliveries }) => (
          <>
            <p>
              <code>{endpoint.url}</code> ({subscriptionText(endpoint.events)}): <EndpointStatus e={endpoint} />
            </p>
            {deliveries.length === 0 ? (
              <p>No deliveries yet.</p>
            ) : (
              <table>
                <caption class="sr-only">Deliveries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Message</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Attempts
                    </th>
                    <th scope="col">Last answer</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last attempt</th>
                    <th scope="col">Next attempt</th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">
                        <code>{d.msg_id}</code>
                      </th>
                      <td>{d.type}</td>
                      <td>
                        <span
                          class={`status ${d.status === "delivered" ? "status-active" : d.status === "failed" ? "status-deleted" : ""}`}
                        >
                          {d.status}
                        </span>
                      </td>
                      <td class="num">{d.attempts}</td>
                      <td>
                        {d.last_status_code !== null && `HTTP ${d.last_status_code}`}
                        {d.last_error && <span class="error"> {d.last_error}</span>}
                      </td>
                      <td class="nowrap">{when(d.created_at)}</td>
                      <td class="nowrap">{when(d.last_attempt_at)}</td>
                      <td class="nowrap">{d.next_attempt_at === null ? "—" : when(d.next_attempt_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Loading>
    </>
  );
}
