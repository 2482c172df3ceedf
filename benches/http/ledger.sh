#!/usr/bin/env bash
# HTTP load run of POST /api/spools/:id/movements, durable, with unique operation keys, at 8 and
# 64 connections (wrk with benches/http/ledger.lua). Prints wrk's latency percentiles, the
# movements booked, and RSS during and after the run.
#
#   benches/http/ledger.sh [SECONDS]
set -euo pipefail
SECONDS_PER_RUN="${1:-10}"
PORT="${PORT:-18183}"
B="http://127.0.0.1:$PORT"
HERE="$(cd "$(dirname "$0")" && pwd)"
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin printcost
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$TARGET/release/printcost" --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --log-level warn >"$WORK/log" 2>&1 &
PID=$!
until curl -sf "$B/api/health" >/dev/null; do sleep 0.01; done
H=(-s -H "Origin: $B" -H 'Content-Type: application/json' -b "$WORK/jar" -c "$WORK/jar")
curl "${H[@]}" -o /dev/null "$B/api/auth/setup" -d '{"displayName":"Bench","email":"bench@example.com","password":"benchmark password","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}'
M=$(curl "${H[@]}" "$B/api/manufacturers" -d '{"name":"Bench"}' | sed 's/.*"id":"\([^"]*\)".*/\1/')
F=$(curl "${H[@]}" "$B/api/filaments" -d "{\"manufacturerId\":\"$M\",\"material\":\"PLA\",\"colorName\":\"Load\",\"colorHex\":\"#000000\",\"purchasePrice\":\"20\",\"netWeightGrams\":\"100000000\"}" | sed 's/.*"id":"\([^"]*\)".*/\1/')
export SPOOL=$(curl "${H[@]}" "$B/api/spools?filamentId=$F" | sed 's/.*"items":\[{"id":"\([^"]*\)".*/\1/')
export TOKEN=$(awk '$6 == "print-cost-session" {print $7}' "$WORK/jar")
export ORIGIN="$B"
for c in 8 64; do
  echo "== POST movements, $c connections, $SECONDS_PER_RUN s"
  ( sleep $((SECONDS_PER_RUN / 2)); echo "   RSS during the run: $(awk '/VmRSS/ {print $2}' "/proc/$PID/status") KiB" ) &
  SAMPLER=$!
  wrk -t2 -c"$c" -d"${SECONDS_PER_RUN}s" --latency -s "$HERE/ledger.lua" "$B" | sed -n '/Latency Distribution/,/99%/p;/Requests\/sec/p;/non-201/p'
  wait "$SAMPLER"
done
echo "== movements on the spool: $(curl "${H[@]}" "$B/api/spools/$SPOOL?pageSize=1" | sed 's/.*"movements":{"items":.*"total":\([0-9]*\).*/\1/')"
echo "== RSS after: $(awk '/VmRSS/ {print $2}' "/proc/$PID/status") KiB"
