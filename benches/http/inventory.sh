#!/usr/bin/env bash
# Load run of the inventory read side and start-up/memory figures of the release binary.
#
#   benches/http/inventory.sh [BINARY]
#
# Starts `printcost` (default: target/release/printcost under $CARGO_TARGET_DIR) on 127.0.0.1
# with a fresh data directory, and prints:
#   - the time from exec to the first healthy GET /api/health (median of 9 starts),
#   - RSS after setup and idle, after a first look at the pages and the API reference, and
#     after 1,000 filaments,
#   - wrk figures for an authenticated GET /api/filaments (page of 25 of 1,000) at 8 and 64
#     connections.
# Needs curl and wrk (Debian: apt-get install wrk). Everything listens on 127.0.0.1 only and
# stops at the end.
set -euo pipefail
BIN="${1:-${CARGO_TARGET_DIR:-target}/release/printcost}"
PORT="${PORT:-18181}"
B="http://127.0.0.1:$PORT"
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

start() {
  "$BIN" --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --log-level warn >"$WORK/log" 2>&1 &
  PID=$!
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }

echo "== start to healthy (ms), fresh data directory each time"
times=()
for _ in $(seq 9); do
  rm -rf "$WORK/data"
  t0=$(date +%s%N); start
  until curl -sf "$B/api/health" >/dev/null; do sleep 0.002; done
  t1=$(date +%s%N); times+=($(( (t1 - t0) / 1000000 ))); stop
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print "median " a[int((NR+1)/2)] " ms, min " a[1] ", max " a[NR]}'

rm -rf "$WORK/data"; start
until curl -sf "$B/api/health" >/dev/null; do sleep 0.01; done
H=(-s -H "Origin: $B" -H 'Content-Type: application/json' -b "$WORK/jar" -c "$WORK/jar")
curl "${H[@]}" -o /dev/null "$B/api/auth/setup" -d '{"displayName":"Bench","email":"bench@example.com","password":"benchmark password","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}'
sleep 2
echo "== RSS after setup, idle: $(rss_kib) KiB"
for page in / /api/filaments /api/prints /api/dashboard /api/spools /api/printers /api/settings \
    /api/openapi.json /api-reference/; do
  curl "${H[@]}" -o /dev/null "$B$page"
done
sleep 3
echo "== RSS after a first look (the pages, the API reference and its document): $(rss_kib) KiB, heap $(awk '/RssAnon/ {print $2}' "/proc/$PID/status") KiB"
M=$(curl "${H[@]}" "$B/api/manufacturers" -d '{"name":"Bench Filaments"}' | sed 's/.*"id":"\([^"]*\)".*/\1/')
for i in $(seq 1000); do
  curl "${H[@]}" -o /dev/null "$B/api/filaments" -d "{\"manufacturerId\":\"$M\",\"material\":\"PLA\",\"colorName\":\"Colour $i\",\"colorHex\":\"#3D3D3D\",\"purchasePrice\":\"29.99\",\"netWeightGrams\":\"1000\"}"
done
total=$(curl "${H[@]}" "$B/api/filaments?pageSize=1" | sed 's/.*"total":\([0-9]*\).*/\1/')
sleep 2
echo "== filaments stored: $total; RSS idle: $(rss_kib) KiB"
TOKEN=$(awk '$6 == "print-cost-session" {print $7}' "$WORK/jar")
for c in 8 64; do
  echo "== wrk GET /api/filaments (25 of $total), $c connections, 10 s"
  wrk -t2 -c"$c" -d10s --latency -H "Cookie: print-cost-session=$TOKEN" "$B/api/filaments" | sed -n '/Latency Distribution/,/Transfer/p;/Requests\/sec/p'
  echo "   RSS after the run: $(rss_kib) KiB"
done
