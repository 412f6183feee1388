#!/usr/bin/env bash
# The service benchmarks of two builds in one run on one machine (issue 27 item 5): each step runs on the baseline
# checkout, then on this one, so both meet the same load; the 1-minute load average is printed beside each. Steps:
# service.js at 1,000 and 10,000 memories on SQLite and on PostgreSQL (store and retrieve p50/p99 through HTTP), the
# fleet of 50 agents on SQLite (one process) and on PostgreSQL (two processes), and the adapter's cold start.
# Usage: bash test/bench/before-after.sh BASE_CHECKOUT [OUT_DIR] [STEPS]
#   BASE_CHECKOUT: another checkout with its dist built, e.g. `git worktree add ../base <commit>`, then
#   `npm ci && npm run build` there. Both checkouts share test/bench/data/ (the embedding cache) if it is a link.
#   STEPS: comma-separated subset of sqlite,postgres,fleet-sqlite,fleet-postgres,coldstart (default: all).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
base="$(cd "${1:?usage: before-after.sh BASE_CHECKOUT [OUT_DIR] [STEPS]}" && pwd)"
out="${2:-$(mktemp -d "${TMPDIR:-/tmp}/brain-before-after.XXXXXX")}"
steps="${3:-sqlite,postgres,fleet-sqlite,fleet-postgres,coldstart}"
mkdir -p "$out"
[ -f "$base/dist/service/server.js" ] || { echo "no build in $base (npm run build there first)" >&2; exit 2; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
# run STEP ARGS...: the step on the baseline, then on this checkout; full output in OUT_DIR/STEP-{base,this}.log.
run() {
  local step="$1" script="$2"; shift 2
  for which in base this; do
    local dir="$base"; [ "$which" = this ] && dir="$here"
    echo "::: $step on $which ($(git -C "$dir" rev-parse --short HEAD)), load $(load)"
    (cd "$dir" && node "$script" "$@") >"$out/$step-$which.log" 2>&1 || echo "    (exit $? — see $out/$step-$which.log)"
    grep -E "^== |first retrieve|retrieve p50|store +p50|RSS|completed|calls  p50|errors:|duplicate memories|p50 .*p90|ratio " \
      "$out/$step-$which.log" | sed 's/^/    /' || true
  done
}

case ",$steps," in *,sqlite,*) run sqlite test/bench/service.js --store sqlite --sizes 1000,10000 ;; esac
case ",$steps," in *,postgres,*) run postgres test/bench/service.js --store postgres --sizes 1000,10000 ;; esac
case ",$steps," in *,fleet-sqlite,*) run fleet-sqlite test/bench/fleet.js --agents 50 --seconds 30 ;; esac
case ",$steps," in *,fleet-postgres,*) run fleet-postgres test/bench/fleet.js --agents 50 --seconds 30 --postgres --processes 2 ;; esac
case ",$steps," in *,coldstart,*) run coldstart test/bench/coldstart.js 20 ;; esac
echo "logs in $out"
