#!/usr/bin/env bash
# The bridge beside modbus2mqtt 0.73 (spicierModbus2mqtt, PyPI), alternating, on the same test
# devices (examples/bridge_load.rs) and the same mosquitto: states per second, CPU per state of
# the contestant and of mosquitto relaying it, RSS, and the change-to-subscriber median and p90.
#
#   benches/bridge/peer.sh [ROUNDS]          # default 3 rounds of each load
#   LOADS="50 100 100" benches/bridge/peer.sh 2   # one load: sources, points, interval (ms)
#
# Loads: 10 × 100 and 50 × 100 points every 100 ms, 5 × 20 every second. The peer goes in a
# virtual environment of its own under the cache folder, with pymodbus 3.8.6 (the version it
# works with; the project's own venv holds a newer one). modbus2mqtt takes one Modbus TCP
# endpoint per process, so it runs one process per device; it publishes every poll
# (--always-publish) at QoS 0, as the bridge does with STATE_QOS=0 (the default here; set
# STATE_QOS=1 to measure the bridge's default). Everything listens on 127.0.0.1 and stops at
# the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${1:-3}"
STATE_QOS="${STATE_QOS:-0}"
TARGET="${CARGO_TARGET_DIR:-target}"
CACHE="${PRINTCOST_CACHE:-$HOME/.cache/printcost}"
VENV="$CACHE/modbus2mqtt-venv"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import modbus2mqtt' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "modbus2mqtt==0.73" "pymodbus==3.8.6"
fi
cargo build --release --quiet --bin modbus-mqtt-bridge --example bridge_load

WORK="$(mktemp -d)"
MPID=""
trap '[[ -n "$MPID" ]] && kill "$MPID" 2>/dev/null; rm -rf "$WORK"' EXIT
# A fresh mosquitto for every run: one saturated by the peer keeps relaying what its sockets
# still hold after the peer has stopped.
start_broker() {
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n' "$PORT" >"$WORK/m.conf"
    /usr/sbin/mosquitto -c "$WORK/m.conf" 2>/dev/null &
    MPID=$!
    sleep 0.5
}
stop_broker() { kill "$MPID" 2>/dev/null; wait "$MPID" 2>/dev/null || true; MPID=""; }

LOAD="$TARGET/release/examples/bridge_load"
LOADS="${LOADS:-10 100 100,50 100 100,5 20 1000}"
IFS=, read -r -a loads <<<"$LOADS"
for load in "${loads[@]}"; do
    read -r sources points every <<<"$load"
    samples=20
    [[ "$every" -ge 1000 ]] && samples=10
    for round in $(seq "$ROUNDS"); do
        for contestant in bridge modbus2mqtt; do
            if [[ "$contestant" == bridge ]]; then
                who=(--bridge "$TARGET/release/modbus-mqtt-bridge" --state-qos "$STATE_QOS")
            else
                who=(--peer-python "$VENV/bin/python")
            fi
            echo "== $contestant, round $round: $sources × $points every $every ms"
            start_broker
            "$LOAD" "${who[@]}" --external-broker "$PORT" --broker-pid "$MPID" --seconds 8 \
                --sources "$sources" --points "$points" --interval-ms "$every" \
                --samples "$samples" 2>&1 | grep -v -e '^$' -e ' WARN ' || true
            stop_broker
        done
    done
done
