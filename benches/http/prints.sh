#!/usr/bin/env bash
# Load run of the print lists and the CSV export over 100,000 prints.
#
#   benches/http/prints.sh [N] [BINARY]
#
# BINARY defaults to a release build of this tree (so an older build can be measured alike on the
# same seeded data; the seeding example is built once).
# Builds the release binary and the seeding example, seeds N prints (default 100,000) into a
# fresh data directory, starts `printcost` on 127.0.0.1, and prints start-up time, RSS, and wrk
# latency percentiles for:
#   - GET /api/prints?page=1&pageSize=25&status=DONE (a filtered first page),
#   - GET /api/prints?page=1&pageSize=25 with a where group (DONE or SHIPPED, not archived),
#   - GET /api/prints/export narrowed to the last days that hold at most 5,000 DONE prints (the
#     export's limit; the seed dates a third of its prints DONE, evenly over two years),
#   - GET /api/dashboard for 30 days and for all time.
# With DATA=DIR it runs on that data directory as it is instead of seeding a fresh one (a
# million prints take over a minute to seed; DIR must hold prints seeded so, and a build older
# than the directory's schema refuses it).
# Installs curl and wrk when missing (scripts/debian-packages). Everything listens on 127.0.0.1 only and stops at the end.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../../scripts/debian-packages"
ensure_debian_packages wrk curl
N="${1:-100000}"
PORT="${PORT:-18182}"
B="http://127.0.0.1:$PORT"
TARGET="${CARGO_TARGET_DIR:-target}"
BIN="${2:-}"
if [[ -z "$BIN" ]]; then
  cargo build --release --quiet --bin printcost --example seed_prints
  BIN="$TARGET/release/printcost"
fi
[[ -x "$TARGET/release/examples/seed_prints" ]] || cargo build --release --quiet --example seed_prints
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

if [[ -n "${DATA:-}" ]]; then
  DIR="$DATA"
else
  DIR="$WORK/data"
  "$TARGET/release/examples/seed_prints" "$DIR" "$N"
fi
t0=$(date +%s%N)
"$BIN" --listen "127.0.0.1:$PORT" --data-dir "$DIR" --log-level info >"$WORK/log" 2>&1 &
PID=$!
until curl -sf "$B/api/health" >/dev/null; do sleep 0.005; done
echo "== start to healthy with $N prints: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
until grep -q "print projection loaded" "$WORK/log"; do sleep 0.05; done
echo "== $(grep -o 'print projection loaded.*' "$WORK/log")"
sleep 2
curl -s -o /dev/null -H "Origin: $B" -H 'Content-Type: application/json' -c "$WORK/jar" "$B/api/auth/login" \
  -d '{"email":"bench@example.com","password":"benchmark password"}'
TOKEN=$(awk '$6 == "print-cost-session" {print $7}' "$WORK/jar")
echo "== RSS idle: $(awk '/VmRSS/ {print $2}' "/proc/$PID/status") KiB"

WHERE=$(python3 -c 'import urllib.parse,json;print(urllib.parse.quote(json.dumps({"AND":[{"status":{"in":["DONE","SHIPPED"]}},{"archived":False}]})))')
DAYS=$(( 5000 * 3 * 730 / N - 1 ))
FROM=$(date -d "$DAYS days ago" +%F)
run() {
  local name="$1" url="$2"
  local total
  total=$(curl -s -H "Cookie: print-cost-session=$TOKEN" "$url" | sed -n 's/.*"total":\([0-9]*\).*/\1/p' | tail -1 || true)
  echo "== $name ${total:+(total $total)}, 8 connections, 10 s"
  wrk -t2 -c8 -d10s --latency -H "Cookie: print-cost-session=$TOKEN" "$url" | sed -n '/Latency Distribution/,/99%/p;/Requests\/sec/p'
}
run "list, status=DONE" "$B/api/prints?page=1&pageSize=25&status=DONE"
run "list, where group" "$B/api/prints?page=1&pageSize=25&where=$WHERE"
run "UI prints page (HTML), status=DONE" "$B/prints?status=DONE"
run "dashboard, 30 days" "$B/api/dashboard?period=30d"
run "dashboard, all time" "$B/api/dashboard?period=all"
echo "== export rows: $(( $(curl -s -H "Cookie: print-cost-session=$TOKEN" "$B/api/prints/export?dateFrom=$FROM" | wc -l) - 1 ))"
run "CSV export, DONE since $FROM" "$B/api/prints/export?dateFrom=$FROM"
echo "== RSS after the runs: $(awk '/VmRSS/ {print $2}' "/proc/$PID/status") KiB"
