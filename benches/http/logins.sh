#!/usr/bin/env bash
# Memory of password hashing: RSS of a fresh service after setup, then after 20 logins (6 of them
# at once, then 14 one after another), measured a second after the last one. Each login runs
# argon2id (19 MiB of memory on purpose).
#
#   benches/http/logins.sh [RUNS] [BINARY]
#
# BINARY defaults to a release build of this tree (so an older build can be measured alike).
set -euo pipefail
RUNS="${1:-3}"
PORT="${PORT:-18184}"
B="http://127.0.0.1:$PORT"
TARGET="${CARGO_TARGET_DIR:-target}"
BIN="${2:-}"
if [[ -z "$BIN" ]]; then
  cargo build --release --quiet --bin printcost
  BIN="$TARGET/release/printcost"
fi
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
login() {
  curl -s -o /dev/null -w '%{http_code}\n' -H "Origin: $B" -H 'Content-Type: application/json' \
    "$B/api/auth/login" -d '{"email":"bench@example.com","password":"benchmark password"}'
}
for run in $(seq 1 "$RUNS"); do
  WORK="$(mktemp -d)"
  "$BIN" --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" --log-level warn >"$WORK/log" 2>&1 &
  PID=$!
  until curl -sf "$B/api/health" >/dev/null; do sleep 0.01; done
  curl -s -o /dev/null -H "Origin: $B" -H 'Content-Type: application/json' "$B/api/auth/setup" \
    -d '{"displayName":"Bench","email":"bench@example.com","password":"benchmark password","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}'
  sleep 1
  idle=$(rss "$PID")
  codes=$( { for _ in 1 2 3 4 5 6; do login & done; wait; for _ in $(seq 1 14); do login; done; } | sort | uniq -c | tr -s ' ' | tr '\n' ',')
  sleep 1
  after=$(rss "$PID")
  echo "run $run: RSS after setup ${idle} KiB, 1 s after 20 logins (6 at once) ${after} KiB; answers:${codes%,}"
  kill "$PID"; wait "$PID" 2>/dev/null || true
  rm -rf "$WORK"
done
