#!/usr/bin/env bash
# Load run of the Modbus-to-MQTT bridge (examples/bridge_load.rs): 50 local test devices of 100
# points each, polled every 100 ms by the release bridge binary; prints states per second, the
# bridge's CPU and RSS, and the latency from a register change to the MQTT subscriber.
#
#   benches/bridge/load.sh [extra bridge_load arguments, e.g. --sources 10 --seconds 30]
#
# With MOSQUITTO=1 the bridge publishes to Debian's mosquitto (started here on 127.0.0.1)
# instead of its embedded broker, so the bridge's CPU figure excludes the broker's.
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin modbus-mqtt-bridge --example bridge_load
ARGS=(--bridge "$TARGET/release/modbus-mqtt-bridge" "$@")
if [[ "${MOSQUITTO:-0}" == 1 ]]; then
    WORK="$(mktemp -d)"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\nset_tcp_nodelay true\n' "$PORT" >"$WORK/m.conf"
    timeout 600 /usr/sbin/mosquitto -c "$WORK/m.conf" 2>/dev/null &
    MPID=$!
    trap 'kill $MPID 2>/dev/null; rm -rf "$WORK"' EXIT
    sleep 0.5
    ARGS+=(--external-broker "$PORT")
fi
"$TARGET/release/examples/bridge_load" "${ARGS[@]}"
