#!/usr/bin/env bash
# The journal's size per booking (issue 48): books 200 movements on a fresh service and reports
# the bytes of a BookMovement entry (its 32-byte hash and canonical JSON; the two index rows
# are not counted), with one example.
#
#   benches/http/journal_size.sh [BINARY]   (default: a release build of this tree)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../../scripts/debian-packages"
ensure_debian_packages curl
BIN="${1:-}"
if [[ -z "$BIN" ]]; then
  cargo build --release --quiet --bin printcost
  BIN="${CARGO_TARGET_DIR:-target}/release/printcost"
fi
PORT=18191; B="http://127.0.0.1:$PORT"; W=$(mktemp -d)
"$BIN" --listen "127.0.0.1:$PORT" --data-dir "$W/data" --log-level warn >"$W/log" 2>&1 & PID=$!
trap 'kill $PID; rm -rf $W' EXIT
until curl -sf "$B/api/health" >/dev/null; do sleep 0.05; done
H=(-s -H "Origin: $B" -H 'Content-Type: application/json' -b "$W/jar" -c "$W/jar")
curl "${H[@]}" -o /dev/null "$B/api/auth/setup" -d '{"displayName":"Bench","email":"bench@example.com","password":"benchmark password","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}'
M=$(curl "${H[@]}" "$B/api/manufacturers" -d '{"name":"Bench"}' | sed 's/.*"id":"\([^"]*\)".*/\1/')
F=$(curl "${H[@]}" "$B/api/filaments" -d "{\"manufacturerId\":\"$M\",\"material\":\"PLA\",\"colorName\":\"Load\",\"colorHex\":\"#000000\",\"purchasePrice\":\"20\",\"netWeightGrams\":\"100000\"}" | sed 's/.*"id":"\([^"]*\)".*/\1/')
S=$(curl "${H[@]}" "$B/api/spools?filamentId=$F" | sed 's/.*"items":\[{"id":"\([^"]*\)".*/\1/')
for i in $(seq 200); do curl "${H[@]}" -o /dev/null "$B/api/spools/$S/movements" -d '{"kind":"CORRECTION","grams":"-0.5","note":"weighed"}'; done
curl "${H[@]}" "$B/api/journal/export" > "$W/export.json"
python3 - "$W/export.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
m = [x for x in e if x["command"] == "BookMovement"]
sizes = [len(x["canonical"].encode()) + 32 for x in m]
print(f"{len(m)} BookMovement entries: {sum(sizes)/len(sizes):.0f} bytes each on average (32-byte hash + canonical JSON), min {min(sizes)}, max {max(sizes)}")
print("example:", m[-1]["canonical"])
PY
