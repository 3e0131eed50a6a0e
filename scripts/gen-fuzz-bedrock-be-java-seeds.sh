#!/bin/sh
# gen-fuzz-bedrock-be-java-seeds.sh: writes the seeds of
# fuzz/fuzz_bedrock_be_java.c into fuzz/corpus/fuzz_bedrock_be_java/: two
# bytes (the Bedrock block's index in the target's list, the Java target's
# index), then one Bedrock block entity as network NBT, written by
# `mcchunk nbt --from-snbt --format bedrock-network` from the SNBT below.
# regress_bad_utf8 is not made here: an input libFuzzer found (sign text
# that is not UTF-8, which Java NBT cannot hold), kept as it was.
#
#   scripts/gen-fuzz-bedrock-be-java-seeds.sh build/mcchunk
set -eu
mc=${1:-build/mcchunk}
out=$(dirname "$0")/../fuzz/corpus/fuzz_bedrock_be_java
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed() { # name block target snbt
    printf '%s' "$4" >"$tmp/in.snbt"
    "$mc" nbt "$tmp/in.snbt" --from-snbt --write "$tmp/nbt.bin" --format bedrock-network
    printf "\\$(printf '%03o' "$2")\\$(printf '%03o' "$3")" >"$out/$1"
    cat "$tmp/nbt.bin" >>"$out/$1"
}
seed sign 0 2 '{id:"Sign",x:1,y:2,z:3,FrontText:{Text:"a\nb",SignTextColor:-65536,IgnoreLighting:1b},BackText:{Text:"c"},IsWaxed:1b}'
seed sign_old 0 0 '{id:"Sign",x:1,y:2,z:3,Text:"one\ntwo\nthree\nfour\nfive",SignTextColor:-16777216}'
seed bed 1 0 '{id:"Bed",x:4,y:5,z:6,color:11b}'
seed banner 2 3 '{id:"Banner",x:0,y:0,z:0,Base:4,Type:0,Patterns:[{Pattern:"cre",Color:1},{Pattern:"??",Color:99}]}'
seed skull 3 0 '{id:"Skull",x:7,y:7,z:7,SkullType:6b,Rotation:-67.5f}'
seed pot 4 0 '{id:"FlowerPot",x:2,y:2,z:2,PlantBlock:{name:"minecraft:poppy",states:{},version:18168865}}'
seed chest 5 4 '{id:"Chest",x:3,y:3,z:3,pairx:4,pairz:3,CustomName:"x",Items:[{Name:"minecraft:diamond",Count:2b,Slot:0b,Damage:0s},{Name:"minecraft:nope",Count:1b,Slot:1b}]}'
seed spawner 6 1 '{id:"MobSpawner",x:9,y:9,z:9,EntityIdentifier:"minecraft:zombie"}'
