// Stage 5: temporal type and end. `time_bound` needs a parseable valid_until (rendered ISO, second precision, Z);
// anything else is persistent. A merge keeps the temporal of the text it keeps.
import type { Temporal } from "../../contract/wire.js";
import { isoSeconds } from "../time.js";
import { survivingIsNew, type Deduplicated } from "./draft.js";

export const PERSISTENT: Temporal = { type: "persistent", valid_until: null };

export function validTemporal(value: unknown): Temporal {
  const t = value as Partial<Temporal> | null | undefined;
  if (!t || t.type !== "time_bound" || typeof t.valid_until !== "string") return PERSISTENT;
  const ms = Date.parse(t.valid_until);
  return Number.isFinite(ms) ? { type: "time_bound", valid_until: isoSeconds(ms) } : PERSISTENT;
}

export function temporal<D extends Deduplicated>(draft: D): D & { temporal: Temporal } {
  if (draft.duplicateOf && !survivingIsNew(draft)) {
    const m = draft.duplicateOf.memory;
    const kept: Temporal =
      m.temporal_type === "time_bound" && m.valid_until !== null
        ? { type: "time_bound", valid_until: isoSeconds(m.valid_until) }
        : PERSISTENT;
    return { ...draft, temporal: kept };
  }
  return { ...draft, temporal: validTemporal(draft.judgement.temporal) };
}
