// Pieces every dashboard view uses: loading a JSON endpoint, a loading/error frame, a change confirmed in place, a
// secret shown once, and how times and long texts are written.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";

/** Loads `path` whenever it (or `version`, bumped after a change) changes; null while loading. */
export function useApi<T>(path: string | null, version = 0): { data: T | null; error: string | null } {
  const key = path === null ? null : `${version} ${path}`;
  const [state, setState] = useState<{ key: string | null; data: T | null; error: string | null }>({ key: null, data: null, error: null });
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState({ key, data: null, error: null });
    api<T>(path).then(
      (data) => live && setState({ key, data, error: null }),
      (err: Error) => live && setState({ key, data: null, error: err.message }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? state : { data: null, error: null };
}

/**
 * A change confirmed in place: the question and its two buttons, then the error (announced) or, when the caller does
 * not take it in `onDone` (its view reloads), the outcome.
 */
export function Confirm({
  label,
  question,
  action,
  onDone,
}: {
  label: string;
  question: string;
  action: () => Promise<string>;
  onDone?: (outcome: string) => void;
}) {
  const [phase, setPhase] = useState<"idle" | "asking" | "working">("idle");
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setPhase("working");
    try {
      const text = await action();
      if (onDone) onDone(text);
      else setOutcome({ ok: true, text });
    } catch (err) {
      setOutcome({ ok: false, text: (err as Error).message });
    }
    setPhase("idle");
  };
  return (
    <div class="confirm">
      {phase === "idle" && (
        <button
          type="button"
          class="danger"
          onClick={() => {
            setOutcome(null);
            setPhase("asking");
          }}
        >
          {label}
        </button>
      )}
      {phase !== "idle" && (
        <fieldset aria-label="Confirm" class="confirm-box">
          <p>{question}</p>
          <button type="button" class="danger" disabled={phase === "working"} onClick={run}>
            Yes, {label.replace(/…$/, "").toLowerCase()}
          </button>{" "}
          <button type="button" class="secondary" disabled={phase === "working"} onClick={() => setPhase("idle")}>
            Cancel
          </button>
        </fieldset>
      )}
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} class={outcome.ok ? "done" : "error"}>
          {outcome.text}
        </p>
      )}
    </div>
  );
}

export function Loading<T>({
  state,
  children,
}: {
  state: { data: T | null; error: string | null };
  children: (data: T) => ComponentChildren;
}) {
  if (state.error)
    return (
      <p role="alert" class="error">
        {state.error}
      </p>
    );
  if (state.data === null) return <p aria-busy="true">Loading…</p>;
  return <>{children(state.data)}</>;
}

export const when = (iso: string | null) =>
  iso === null
    ? "never"
    : iso
        .replace(/\.\d{3}Z$/, "Z")
        .replace("T", " ")
        .replace("Z", " UTC");
export const shortText = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A secret shown this once (an API key, a webhook signing secret), until the person says it is copied. */
export function ShownOnce({ message, label, value, onDone }: { message: string; label: string; value: string; onDone: () => void }) {
  return (
    <div role="status" class="new-key">
      <p>{message}</p>
      <input class="key" type="text" readOnly value={value} aria-label={label} size={value.length} />{" "}
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}
