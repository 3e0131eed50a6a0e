#!/bin/sh
# gen-fuzz-world-stats-seeds.sh: writes fuzz/corpus/fuzz_world_stats/, the
# seeds of fuzz/fuzz_world_stats.c (`world stats --merge`'s reader): the
# --json output of `mcchunk world stats` for a one-chunk world of the
# built-in generator, plain and grouped, each behind the byte that picks
# the grouping the fuzz target merges with (0 none, 1 y, 2 biome, 3
# dimension, 4 chunk), and a few hand-made edge cases.
# usage: scripts/gen-fuzz-world-stats-seeds.sh [path/to/mcchunk]
set -eu
BIN=${1:-build/mcchunk}
OUT=$(dirname "$0")/../fuzz/corpus/fuzz_world_stats
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
"$BIN" world create "$TMP/w" --version 1.20.1 --radius 0 --quiet
# (--by y keeps 8 of its 384 groups, to stay small)
trim='import json,sys; d=json.load(sys.stdin); g=d.get("groups"); d["groups"]=dict(list(g.items())[:8]) if g else g; d.pop("groups") if g is None else 0; print(json.dumps(d, indent=1))'
n=0
for by in none y biome dimension chunk; do
    if [ "$by" = none ]; then opt=""; else opt="--by $by"; fi
    # shellcheck disable=SC2086
    { printf "\\$(printf '%03o' $n)"; "$BIN" world stats "$TMP/w" $opt --json --quiet | python3 -c "$trim"; } >"$OUT/seed_$by.json"
    n=$((n + 1))
done
printf '\000{"chunks": 1, "blocks": {"a\\u00e9\\ud83d\\ude00": 9223372036854775807}, "biomes": {}}' >"$OUT/seed_escapes.json"
# (names with the characters JSON escapes: quote, backslash, control characters)
printf '\000{"chunks": 2, "blocks": {"x\\"q\\\\b\\nn\\t\\u0001end": 3, "\\"": 1, "\\\\": 2, "plain\\u001fz": 4}, "biomes": {}, "entities": {"\\n": 5}}' >"$OUT/seed_escapes_ascii.json"
printf '\000{"chunks": 1, "blocks": {"x": 1}, "blocks": {"x": 2}, "entities": {"e": 0}}' >"$OUT/seed_duplicate_keys.json"
printf '\001{"blocks": {}, "by": "y", "groups": {"-64": {"blocks": {"s": 3}}, "x": {}}}' >"$OUT/seed_groups.json"
printf '\000[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' >"$OUT/seed_deep.json"
printf '\000{"blocks": {"a": -1}}' >"$OUT/seed_negative.json"
printf '\000{"blocks": {"a": 1e3}}' >"$OUT/seed_fraction.json"
ls -l "$OUT"
