#!/usr/bin/env bash
# Reads sliced files through `POST /api/prints/sliced` on a release build: a 200 MB G-code
# (PrusaSlicer's layout: its metadata at both ends) and a 50-plate `.gcode.3mf` (50 × 1 MB of
# plate G-code and the slice information). Prints, per file, the upload-to-answer time (median
# of RUNS, curl's time_total) and the server's peak RSS growth while it reads (VmHWM after the
# upload minus VmRSS before it, the peak reset through /proc/PID/clear_refs).
#
#   benches/sliced/upload.sh [BINARY]       RUNS=5 for more runs
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/debian-packages
ensure_debian_packages curl python3
binary="${1:-${CARGO_TARGET_DIR:-$HOME/.cache/printcost/target}/release/printcost}"
runs="${RUNS:-3}"
work="$(mktemp -d)"
port=18997
origin="http://127.0.0.1:$port"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import io, sys, zipfile
work = sys.argv[1]
fixture = open("actors/tests/fixtures/sliced/prusa-one-filament.gcode").read()
head, tail = fixture.split("M73 P100", 1)
line = "G1 X10.000 Y10.000 E0.01234 ; a move of the bench's filler\n"
with open(f"{work}/big.gcode", "w") as f:
    f.write(head)
    block = line * 10000
    while f.tell() < 200_000_000:
        f.write(block)
    f.write("M73 P100" + tail)
info = ['<?xml version="1.0" encoding="UTF-8"?>\n<config><header>',
        '<header_item key="X-BBL-Client-Version" value="01.08.00.62"/></header>']
for n in range(1, 51):
    info.append(f'<plate><metadata key="index" value="{n}"/><metadata key="prediction" value="{600 + n}"/>'
                f'<metadata key="weight" value="12.5"/><object identify_id="{n}" name="Part {n}" skipped="false"/>'
                f'<filament id="1" type="PLA" color="#FF8000" used_m="4.19" used_g="12.5"/></plate>')
info.append("</config>\n")
with zipfile.ZipFile(f"{work}/plates.gcode.3mf", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("[Content_Types].xml", "<Types/>")
    z.writestr("Metadata/slice_info.config", "".join(info))
    for n in range(1, 51):
        z.writestr(f"Metadata/plate_{n}.gcode", "".join(f"G1 X{i % 200}.{n:03d} Y{i % 150}.5 E0.0{i % 97}\n" for i in range(30000)))
PY

"$binary" --data-dir "$work/data" --listen "127.0.0.1:$port" --log-level warn >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fs "$origin/api/health" >/dev/null && break; sleep 0.1; done
curl -fs -c "$work/jar" -H "Origin: $origin" -H 'Content-Type: application/json' \
    -d '{"displayName":"Ada","email":"ada@example.org","password":"correct horse battery staple","locale":"en-US","currency":"EUR","electricityPrice":"0.32"}' \
    "$origin/api/auth/setup" >/dev/null

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$pid/status"; }
for file in big.gcode plates.gcode.3mf; do
    times=()
    growth=0
    for _ in $(seq "$runs"); do
        echo 5 > "/proc/$pid/clear_refs"
        before="$(kib VmRSS)"
        time="$(curl -fs -b "$work/jar" -H "Origin: $origin" -o "$work/answer.json" -w '%{time_total}' \
            -F "file=@$work/$file" "$origin/api/prints/sliced")"
        peak="$(kib VmHWM)"
        times+=("$time")
        (( peak - before > growth )) && growth=$((peak - before))
    done
    median="$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    bytes="$(stat -c %s "$work/$file")"
    plates="$(python3 -c "import json; print(len(json.load(open('$work/answer.json'))['parts']))")"
    printf '%-18s %10d bytes  %2d plate(s)  median %.3f s over %d runs  peak RSS growth %d KiB\n' \
        "$file" "$bytes" "$plates" "$median" "$runs" "$growth"
done
