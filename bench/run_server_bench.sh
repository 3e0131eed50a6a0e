#!/usr/bin/env bash
# Runs bench_server against `mcchunk serve` and, when installed
# (scripts/install-deps --bench), against flying-squid, in the same run and
# with the same client (protocol 765 = 1.20.4, the newest flying-squid
# speaks; flying-squid's "view distance 10" is a 20x20 square = 400 columns,
# so both are timed to the 400th column), then mcchunk alone for 1.21.11
# and 1.8 with the full 441 columns and many clients.
#   bench/run_server_bench.sh [build-dir]
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

start_mcchunk() {
  rm -f "$tmp/port"
  "$build/mcchunk" serve --port 0 --port-file "$tmp/port" --exit-after 300 --quiet --max-players 1000 --view-distance 10 &
  MC_PID=$!
  for _ in $(seq 300); do [[ -s $tmp/port ]] && break; sleep 0.1; done
  MC_PORT=$(cat "$tmp/port")
}

echo "== mcchunk serve vs flying-squid, protocol 765 (1.20.4), 400 columns"
start_mcchunk
"$build/bench_server" "$MC_PORT" --protocol 765 --columns 400 --clients 8 --pid "$MC_PID" | sed 's/^/mcchunk:      /'
kill "$MC_PID"; wait "$MC_PID" 2>/dev/null || true
if [[ -d $here/peers/node_modules/flying-squid ]]; then
  rm -f "$tmp/fsport"
  node "$here/peer_flying_squid.js" 1.20.4 10 "$tmp/fsport" 300 >"$tmp/fs.log" 2>&1 &
  FS_PID=$!
  for _ in $(seq 600); do [[ -s $tmp/fsport ]] && break; sleep 0.1; done
  BENCH_TIMEOUT=60 "$build/bench_server" "$(cat "$tmp/fsport")" --protocol 765 --columns 400 --clients 8 --pid "$FS_PID" 2>&1 \
    | sed 's/^/flying-squid: /' || true
  kill "$FS_PID" 2>/dev/null || true
else
  echo "flying-squid: not installed (scripts/install-deps --bench); no peer figure"
fi

for proto in 774 47; do
  echo "== mcchunk serve alone, protocol $proto, view distance 10 (441 columns), 32 clients"
  start_mcchunk
  "$build/bench_server" "$MC_PORT" --protocol "$proto" --view-distance 10 --clients 32 --pid "$MC_PID"
  kill "$MC_PID"; wait "$MC_PID" 2>/dev/null || true
done
