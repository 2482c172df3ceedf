#!/usr/bin/env bash
# HTTP load run of the ledger against the same server's GET /api/health, in one run: at 1, 8 and
# 64 connections, wrk books durable movements (benches/http/ledger.lua, unique operation keys)
# and then asks for health as fast as it answers. Prints, per connection count: both rates,
# their ratio, the movements' latency percentiles, and the bytes the process wrote to the disk
# per movement (/proc/<pid>/io write_bytes); then RSS.
#
#   benches/http/ledger.sh [SECONDS] [BINARY]
#
# BINARY defaults to a release build of this tree (so an older build can be measured alike).
# RUNS=N repeats each pair N times (movements, then health, on the same server) and ends with the
# median ratio per connection count: the machine is noisy, so quote medians.
set -euo pipefail
SECONDS_PER_RUN="${1:-10}"
PORT="${PORT:-18183}"
B="http://127.0.0.1:$PORT"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../../scripts/debian-packages"
ensure_debian_packages wrk curl
TARGET="${CARGO_TARGET_DIR:-target}"
BIN="${2:-}"
if [[ -z "$BIN" ]]; then
  cargo build --release --quiet --bin printcost
  BIN="$TARGET/release/printcost"
fi
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$BIN" --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --log-level warn >"$WORK/log" 2>&1 &
PID=$!
until curl -sf "$B/api/health" >/dev/null; do sleep 0.01; done
H=(-s -H "Origin: $B" -H 'Content-Type: application/json' -b "$WORK/jar" -c "$WORK/jar")
curl "${H[@]}" -o /dev/null "$B/api/auth/setup" -d '{"displayName":"Bench","email":"bench@example.com","password":"benchmark password","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}'
M=$(curl "${H[@]}" "$B/api/manufacturers" -d '{"name":"Bench"}' | sed 's/.*"id":"\([^"]*\)".*/\1/')
F=$(curl "${H[@]}" "$B/api/filaments" -d "{\"manufacturerId\":\"$M\",\"material\":\"PLA\",\"colorName\":\"Load\",\"colorHex\":\"#000000\",\"purchasePrice\":\"20\",\"netWeightGrams\":\"100000000\"}" | sed 's/.*"id":"\([^"]*\)".*/\1/')
export SPOOL=$(curl "${H[@]}" "$B/api/spools?filamentId=$F" | sed 's/.*"items":\[{"id":"\([^"]*\)".*/\1/')
export TOKEN=$(awk '$6 == "print-cost-session" {print $7}' "$WORK/jar")
export ORIGIN="$B"
written() { awk '/^write_bytes/ {print $2}' "/proc/$PID/io"; }
movements() { curl "${H[@]}" "$B/api/spools/$SPOOL?pageSize=1" | sed 's/.*"movements":{"items":.*"total":\([0-9]*\).*/\1/'; }
rate() { sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$1"; }
RUNS="${RUNS:-1}"
for run in $(seq "$RUNS"); do
  for c in 1 8 64; do
    threads=$(( c < 2 ? 1 : 2 ))
    before_bytes=$(written); before_count=$(movements)
    wrk -t"$threads" -c"$c" -d"${SECONDS_PER_RUN}s" --latency -s "$HERE/ledger.lua" "$B" > "$WORK/ledger-$c"
    booked=$(( $(movements) - before_count ))
    bytes=$(( $(written) - before_bytes ))
    wrk -t"$threads" -c"$c" -d"${SECONDS_PER_RUN}s" --latency "$B/api/health" > "$WORK/health-$c"
    m=$(rate "$WORK/ledger-$c"); h=$(rate "$WORK/health-$c")
    ratio=$(awk -v m="$m" -v h="$h" 'BEGIN {printf "%.1f", 100 * m / h}')
    echo "$ratio" >> "$WORK/ratios-$c"
    echo "== $c connections, $SECONDS_PER_RUN s each (run $run of $RUNS)"
    echo "   POST movements: $m/s; GET /api/health: $h/s; ratio $ratio%"
    echo "   movement latency: $(sed -n 's/^ *\(50\|90\|99\)% *\([0-9.a-z]*\)$/p\1 \2/p' "$WORK/ledger-$c" | tr '\n' ' ')"
    echo "   $(grep 'non-201' "$WORK/ledger-$c")"
    echo "   disk writes: $bytes bytes for $booked movements, $(( bytes / (booked > 0 ? booked : 1) )) bytes per movement"
  done
done
if (( RUNS > 1 )); then
  for c in 1 8 64; do
    echo "== median ratio at $c connections over $RUNS runs: $(sort -n "$WORK/ratios-$c" | awk '{r[NR] = $1} END {print (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2) "%"}')"
  done
fi
echo "== RSS after: $(awk '/VmRSS/ {print $2}' "/proc/$PID/status") KiB"
