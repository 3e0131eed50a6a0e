#!/bin/sh
# gen-nbt-seeds.sh: writes the seed corpora of the NBT fuzz targets
# (fuzz/corpus/fuzz_nbt_*/ and fuzz/corpus/fuzz_snbt/) from the synthetic
# SNBT trees below, encoded by the built `mcchunk nbt` tool. No corpus file
# is copied. Rerun after changing the trees:
#     scripts/gen-nbt-seeds.sh [BUILD_DIR]      (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$top/build}/mcchunk
[ -x "$bin" ] || { echo "gen-nbt-seeds: build the tool first ($bin)" >&2; exit 1; }
out=$top/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name|snbt
cat > "$tmp/trees" <<'TREES'
all_types|{b:-5b,s:300s,i:-70000,l:1234567890123L,f:0.5f,d:-2.25d,str:"hello",ba:[B;1B,-1B],ia:[I;1,-2,3],la:[L;1L,-9223372036854775808L],list:[1,2,3],comp:{x:1b}}
chunk|{DataVersion:3955,xPos:1,zPos:-2,Status:"minecraft:full",sections:[{Y:-4b,block_states:{palette:[{Name:"minecraft:stone"},{Name:"minecraft:oak_log",Properties:{axis:"y"}}],data:[L;1229782938247303441L,2L,-1L]},biomes:{palette:["minecraft:plains"]}}],Heightmaps:{MOTION_BLOCKING:[L;0L,1L]},block_entities:[],PostProcessing:[[],[1s,2s]]}
unicode|{"é":"\u00e9\u20ac\U0001F600","nul":"a\x00b",'q"':'it"s',"":""}
nested|{a:[[[[[]]]]],b:[{},{c:[{d:{}}]}],e:[[1b],[2b,3b]],empty_c:[],f:[1.5d,-0.0d]}
arrays|{B:[B;],I:[I;],L:[L;],big:[I;2147483647,-2147483648,0,1,-1,42,7,8,9,10]}
floats|{nan:NaNf,inf:Infinityd,ninf:-Infinityf,tiny:1.0E-45f,huge:1.7976931348623157E308d}
string_root|"just a string"
int_root|42
list_root|[{a:1},{a:2}]
TREES

for d in fuzz_nbt_java fuzz_nbt_java_network fuzz_nbt_bedrock fuzz_nbt_bedrock_network fuzz_nbt_roundtrip fuzz_snbt; do
    mkdir -p "$out/$d"
    rm -f "$out/$d"/seed_*
done

i=0
while IFS='|' read -r name snbt; do
    i=$((i + 1))
    printf '%s' "$snbt" > "$out/fuzz_snbt/seed_$name.snbt"
    printf '%s' "$snbt" > "$tmp/t.snbt"
    for f in java java-network bedrock bedrock-level-dat bedrock-network; do
        "$bin" nbt "$tmp/t.snbt" --from-snbt --name "$name" --write "$tmp/$f.bin" --format "$f"
    done
    cp "$tmp/java.bin" "$out/fuzz_nbt_java/seed_$name"
    cp "$tmp/java-network.bin" "$out/fuzz_nbt_java_network/seed_$name"
    cp "$tmp/bedrock.bin" "$out/fuzz_nbt_bedrock/seed_$name"
    cp "$tmp/bedrock-level-dat.bin" "$out/fuzz_nbt_bedrock/seed_${name}_level_dat"
    cp "$tmp/bedrock-network.bin" "$out/fuzz_nbt_bedrock_network/seed_$name"
    # round trip: byte 0 = input encoding, byte 1 = output encoding
    # (indexes into java, java-network, bedrock, bedrock-level-dat, bedrock-network)
    k=0
    for f in java java-network bedrock bedrock-level-dat bedrock-network; do
        o=$(( (k + i) % 5 ))
        { printf "\\$(printf '%03o' $k)\\$(printf '%03o' $o)"; cat "$tmp/$f.bin"; } > "$out/fuzz_nbt_roundtrip/seed_${name}_$k"
        k=$((k + 1))
    done
done < "$tmp/trees"

# SNBT edge cases the game's reader accepts or refuses
printf '%s' "[B;1b,2b,]" > "$out/fuzz_snbt/seed_trailing_comma.snbt"
printf '%s' "{a:1,a:2}" > "$out/fuzz_snbt/seed_duplicate.snbt"
printf '%s' "[300b,007,true,false,1.2.3]" > "$out/fuzz_snbt/seed_words.snbt"
printf '%s' "{a:[1,2b]}" > "$out/fuzz_snbt/seed_mixed_list.snbt"
printf '%s' "'unterminated" > "$out/fuzz_snbt/seed_unterminated.snbt"
echo "gen-nbt-seeds: wrote seeds under $out"
