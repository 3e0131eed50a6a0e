#!/usr/bin/env bash
# Runs bench_server against `mcchunk serve` and, when installed
# (scripts/install-deps --bench), against flying-squid, in the same run and
# with the same client: protocol 765 = 1.20.4 (flying-squid 1.12 speaks up
# to 1.21.4; 1.20.4 is the one both sides have run the longest), 400
# columns (flying-squid's "view distance 10" is a 20x20 square) and 8
# clients at once. Then mcchunk alone, one protocol of every chunk-format
# era from 1.8 to 26.1, with the full 441 columns and 32 clients at once.
#
# Start-up is measured here (process start to the port file, polled every
# 10 ms, and the server's CPU time by then) and handed to bench_server,
# which prints the cold login both without and with it, in wall time and
# in server CPU time (the one a busy machine does not blur): mcchunk
# generates its spawn area at start-up (the log line "N columns generated
# in X ms" is shown too) while flying-squid generates on demand during the
# first login. Server CPU is the server
# process's own, summed over its threads from /proc/PID/task/*/schedstat.
#   bench/run_server_bench.sh [build-dir]
# Exit status: 0 when every run delivered every column, else 1 (every run is
# still made).
set -uo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
status=0

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start_server NAME COMMAND...: starts the server in the background, waits
# for its port file ($tmp/port), sets SRV_PID, SRV_PORT and STARTUP_MS.
start_server() {
  local name=$1; shift
  rm -f "$tmp/port"
  local t0; t0=$(now_ms)
  "$@" >"$tmp/$name.log" 2>&1 &
  SRV_PID=$!
  for _ in $(seq 6000); do
    [[ -s $tmp/port ]] && break
    kill -0 "$SRV_PID" 2>/dev/null || break
    sleep 0.01
  done
  STARTUP_MS=$(($(now_ms) - t0))
  SRV_PORT=$(cat "$tmp/port" 2>/dev/null || echo 0)
  STARTUP_CPU_MS=$(cpu_ms "$SRV_PID")
}

# cpu_ms PID: the CPU time of the process so far, ms, summed over its
# threads' schedstat (the wall time of a start-up on a busy machine says
# little; its CPU time does).
cpu_ms() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ ns += $1 } END { printf "%.1f", ns / 1e6 }'
}

stop_server() {
  kill "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || true
}

start_mcchunk() {
  start_server mcchunk "$build/mcchunk" serve --port 0 --port-file "$tmp/port" --exit-after 600 \
    --max-players 1000 --view-distance 10
  local gen
  gen=$(grep -o '[0-9]* columns generated in [0-9]* ms' "$tmp/mcchunk.log" || echo "no world-generation line")
  echo "mcchunk start-up: ${STARTUP_MS} ms from process start to listening, ${STARTUP_CPU_MS} ms of CPU ($gen)"
}

# bench LABEL ARGS...: one bench_server run; a failure is reported, not fatal.
bench() {
  local label=$1; shift
  if [[ $SRV_PORT == 0 ]]; then
    echo "$label: the server did not start"; status=1; return
  fi
  "$build/bench_server" "$SRV_PORT" --pid "$SRV_PID" --startup-ms "$STARTUP_MS" --startup-cpu-ms "$STARTUP_CPU_MS" "$@" 2>&1 |
    tee "$tmp/last.out" | sed "s/^/$label: /"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
}

# fig FILE WHAT: one number of a bench_server output.
fig() {
  case $2 in
    cold) sed -n 's/.*, cold: \([0-9.]*\) ms.*/\1/p' "$1" ;;
    cold_su) sed -n 's/.*; \([0-9.]*\) ms counted from.*/\1/p' "$1" ;;
    warm) sed -n 's/.*, warm: \([0-9.]*\) ms.*/\1/p' "$1" ;;
    cold_cpu) sed -n 's/.*server CPU for the login \([0-9.]*\) ms.*/\1/p' "$1" ;;
    cold_cpu_su) sed -n 's/.*, \([0-9.]*\) ms with its start-up.*/\1/p' "$1" ;;
    rate) sed -n 's/.* = \([0-9]*\) columns\/s.*/\1/p' "$1" ;;
    cpu) sed -n 's/.* = \([0-9]*\) columns per server CPU second.*/\1/p' "$1" ;;
  esac
}

# ratio A B: A/B to one decimal, or "n/a".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", a / b; else printf "n/a" }'; }

echo "== mcchunk serve vs flying-squid, protocol 765 (1.20.4), 400 columns, 8 clients at once"
start_mcchunk
bench "mcchunk     " --protocol 765 --columns 400 --clients 8
cp "$tmp/last.out" "$tmp/mc765.out"
stop_server
if [[ -d $here/peers/node_modules/flying-squid ]]; then
  start_server flying-squid node "$here/peer_flying_squid.js" 1.20.4 10 "$tmp/port" 600
  echo "flying-squid start-up: ${STARTUP_MS} ms from process start to listening, ${STARTUP_CPU_MS} ms of CPU (generates on demand)"
  # flying-squid is ~1000x slower per column: one round of 8 is enough work
  # for its CPU time (several seconds) to be exact to far better than 1%.
  BENCH_TIMEOUT=300 bench "flying-squid" --protocol 765 --columns 400 --clients 8 --min-cpu 0
  stop_server
  m=$tmp/mc765.out f=$tmp/last.out
  echo "ratios flying-squid/mcchunk (higher: mcchunk faster): cold login $(ratio "$(fig $f cold)" "$(fig $m cold)")x" \
    "without start-up, $(ratio "$(fig $f cold_su)" "$(fig $m cold_su)")x counted from each server's process start" \
    "(server CPU: $(ratio "$(fig $f cold_cpu)" "$(fig $m cold_cpu)")x without, $(ratio "$(fig $f cold_cpu_su)" "$(fig $m cold_cpu_su)")x with start-up);" \
    "warm $(ratio "$(fig $f warm)" "$(fig $m warm)")x; 8 clients: columns/s $(ratio "$(fig $m rate)" "$(fig $f rate)")x," \
    "columns per server CPU second $(ratio "$(fig $m cpu)" "$(fig $f cpu)")x"
else
  echo "flying-squid: not installed (scripts/install-deps --bench); no peer figure"
fi

# One protocol per chunk-format era (src/java/chunk_era.c) and per change
# inside the 1.18+ era: 1.20.2 nameless NBT, 1.20.5 known packs, 1.21.5
# no data lengths, 26.1 fluid counts.
for proto in 47 340 404 498 578 754 756 758 763 765 767 769 770 774 775; do
  echo "== mcchunk serve alone, protocol $proto, view distance 10 (441 columns), 32 clients at once"
  start_mcchunk
  bench "mcchunk" --protocol "$proto" --view-distance 10 --clients 32
  stop_server
done
exit $status
