#!/usr/bin/env bash
# Runs bench_bedrock_server against `mcchunk serve` (Bedrock over RakNet on
# loopback): one 1.21.60 client at radius 10 on a cold and then a warm
# server (the time from player_spawn to the last subchunk answered, and the
# server's CPU for the join), 20 clients asking for all their subchunks at
# once (subchunks answered per server CPU second, from the server's
# /proc/PID/task/*/schedstat), and the baseline measured in the same run
# (the library's engine answering and DEFLATEing the same subchunks in the
# bench's own process).
# The many-clients rounds repeat until the server has used min-cpu seconds
# (default 2). At the end the server's RakNet socket layer says how many
# datagrams it sent in how many send entries (UDP GSO groups among them);
# MCCHUNK_RAKNET_GSO=0 in the environment turns GSO off for comparison.
#   bench/run_bedrock_server_bench.sh [build-dir] [clients] [min-cpu]
# Exit status: 0 when every client got every answer, else 1.
set -uo pipefail
build=${1:-build}
clients=${2:-20}
min_cpu=${3:-2}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

"$build/mcchunk" serve --port 0 --bedrock-port 0 --port-file "$tmp/port" --exit-after 600 \
  --max-players 1000 --view-distance 10 >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 6000); do
  [[ -f $tmp/port && $(wc -l <"$tmp/port") -ge 2 ]] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
port=$(sed -n 2p "$tmp/port" 2>/dev/null)
if [[ -z $port ]]; then
  echo "the server did not start:"; cat "$tmp/serve.log"; exit 1
fi
"$build/bench_bedrock_server" "$port" --pid "$pid" --radius 10 --clients "$clients" --min-cpu "$min_cpu"
status=$?
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
grep -h "UDP GSO\|send entries" "$tmp/serve.log" | sed 's/^/server: /'
exit $status
