// What an agent (or a person at the command line) reads of each API answer, as a few plain lines (failures:
// ./render-error.ts). Answers from other servers may lack fields or carry new enumeration values, so every read is
// tolerant.
import { SIGNAL_LABELS } from "../contract/health.js";
import type { HealthResponse, RetrieveResponse, StatusResponse, StoreResponse } from "../client/schemas.js";

export function renderRemember(result: StoreResponse): string {
  const lines: string[] = [];
  const action = result.dedup?.action;
  if (action === "merged") {
    const into = result.dedup.existing_id ?? result.memory_id;
    lines.push(`Merged into existing memory ${into}: it already held this fact (the richer text was kept).`);
  } else if (action === "stored_new" || action === undefined) {
    lines.push(`Remembered as new memory ${result.memory_id}.`);
  } else {
    // A dedup outcome this adapter does not know: say what the service said, without guessing its meaning.
    const existing = result.dedup.existing_id != null ? `, existing memory ${result.dedup.existing_id}` : "";
    lines.push(`Stored as memory ${result.memory_id} (dedup: ${action}${existing}).`);
  }
  if (result.importance !== undefined) lines.push(`Importance: ${result.importance}/10`);
  if (result.categories?.length) lines.push(`Categories: ${result.categories.join(", ")}`);
  lines.push(describeTemporal(result.temporal));
  return lines.join("\n");
}

export function renderRecall(result: RetrieveResponse): string {
  const memories = result.memories ?? [];
  if (memories.length === 0) return "No memories matched.";
  const lines = [`${memories.length} ${memories.length === 1 ? "memory" : "memories"} matched, best first:`];
  memories.forEach((memory, index) => {
    const marks = [`score ${formatScore(memory.score)}`];
    if (memory.importance !== undefined) marks.push(`importance ${memory.importance}/10`);
    const temporal = memory.meta?.temporal;
    if (memory.expired) {
      marks.push(`EXPIRED${temporal?.valid_until ? ` (was valid until ${temporal.valid_until})` : ""}`);
    } else if (temporal?.type === "time_bound") {
      marks.push(`time-bound until ${temporal.valid_until ?? "unknown"}`);
    } else if (temporal?.type && temporal.type !== "persistent") {
      marks.push(`temporal ${temporal.type}`);
    }
    lines.push(`${index + 1}. [${memory.id}] ${marks.join(" · ")}`);
    lines.push(indent(memory.text ?? ""));
  });
  if (memories.some((m) => m.expired)) {
    lines.push("Expired memories describe something that has ended: do not present them as current.");
  }
  return lines.join("\n");
}

export function renderHealth(result: HealthResponse): string {
  const lines = [`Memory quality score: ${result.quality_score}/100`, "Signals:"];
  for (const [name, value] of Object.entries(result.signals ?? {})) {
    lines.push(`- ${SIGNAL_LABELS[name]?.phrase ?? name.replace(/_/g, " ")}: ${value}`);
  }
  const recommendations = result.recommendations ?? [];
  if (recommendations.length === 0) {
    lines.push("Recommendations: none.");
  } else {
    lines.push("Recommendations:");
    for (const r of recommendations) lines.push(`- ${r.message}${r.count !== undefined ? ` (${r.count})` : ""} [${r.code}]`);
  }
  if (result.generated_at) lines.push(`Generated at ${result.generated_at}.`);
  return lines.join("\n");
}

const STATE_WARNINGS: Record<string, string> = {
  suspended:
    "Warning: this workspace is suspended: remembering, recalling and health checks are refused until its administrator reactivates it.",
  limit_reached:
    "Warning: this workspace has reached its plan's limit: new memories are refused, but recall still works. Upgrade the plan or remove memories to store more.",
  deleted: "Warning: this workspace has been deleted: every call but status is refused. Use a key for another workspace.",
};

export function renderStatus(result: StatusResponse): string {
  const lines = [
    `Workspace: ${result.workspace_name ?? "(unnamed)"} (${result.workspace_id ?? "unknown id"})`,
    `State: ${result.workspace_status}`,
    `Plan: ${result.plan_name ?? "unknown"}${result.billing_cycle ? ` (billing cycle ${result.billing_cycle})` : ""}`,
    `Key prefix: ${result.api_key_prefix ?? "unknown"}${result.api_key_id !== undefined ? ` (key id ${result.api_key_id})` : ""}`,
  ];
  if (result.memory_count !== undefined) lines.push(`Memories: ${result.memory_count}`);
  const service = [result.healthy === false ? "unhealthy" : "healthy"];
  if (result.version) service.push(`version ${result.version}`);
  if (result.server_time) service.push(`server time ${result.server_time}`);
  lines.push(`Service: ${service.join(", ")}`);
  const warning = STATE_WARNINGS[result.workspace_status];
  if (warning) lines.push(warning);
  if (result.healthy === false) {
    lines.push("Warning: the service reports it cannot use its store or models right now: calls may fail until it recovers.");
  }
  return lines.join("\n");
}

function describeTemporal(temporal: StoreResponse["temporal"] | undefined): string {
  if (temporal?.type === "time_bound") return `Time-bound: valid until ${temporal.valid_until ?? "unknown"}`;
  if (temporal?.type === "persistent") return "Persistent: no end date";
  return `Temporal: ${temporal?.type ?? "unknown"}`;
}

function formatScore(score: number | undefined): string {
  return typeof score === "number" ? score.toFixed(2) : "?";
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `   ${line}`)
    .join("\n");
}
