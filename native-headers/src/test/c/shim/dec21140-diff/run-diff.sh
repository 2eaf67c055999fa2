#!/usr/bin/env bash
# Differential test of the shim's DEC 21140 card against the Java emulated card: random scenarios
# (gen_scenario.py: descriptors in ring mode with a random DSL, setup frames, TX/RX traffic, CSR writes, bad
# addresses) run on both; their traces (CSR5 after every step, CSR8, transmitted frames, every descriptor word,
# the receive buffers) must be identical. Not part of the Maven build: it needs the compiled Java classes of
# native-headers, bridge and sim-hardware (./mvnw -q -B -pl sim-hardware -am compile), a JDK 25 (found like ./nic
# finds it) and python3.
# Usage: run-diff.sh REPO_ROOT OUT_DIR FIRST_SEED COUNT [OPS_PER_SCENARIO]
# Exit status 1 when any scenario's traces differ (the scenario and both traces stay in OUT_DIR).
set -euo pipefail
root=$(cd "${1:?usage: run-diff.sh REPO_ROOT OUT_DIR FIRST_SEED COUNT [OPS]}" && pwd)
out=${2:?out dir}
first=${3:?first seed}
count=${4:?count}
ops=${5:-400}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../../../../../tools/find-jdk.sh
. "$root/tools/find-jdk.sh"   # the JDK 25 that ./nic uses, found the same way
nic_find_jdk || exit 2
java_home=$NIC_JAVA_HOME
slf4j=$(ls "$HOME"/.m2/repository/org/slf4j/slf4j-api/2.*/slf4j-api-2.*.jar 2>/dev/null | grep -v sources | tail -1)
cp="$root/sim-hardware/target/classes:$root/bridge/target/classes:$root/native-headers/target/classes:$slf4j"
for d in sim-hardware bridge native-headers; do
  if [ ! -d "$root/$d/target/classes" ]; then
    echo "run-diff: $root/$d/target/classes missing; build with ./mvnw -q -B -pl sim-hardware -am compile" >&2
    exit 2
  fi
done
mkdir -p "$out/classes"
inc="$root/native-headers/src/main/c/include"
shim="$root/native-headers/src/main/c/shim"
gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$inc" -I"$shim" -I"$here/.." \
  "$shim/dec21140_card.c" "$here/../fake_platform.c" "$here/dec21140_diff_runner.c" -o "$out/dec21140_diff_runner"
"$java_home/bin/javac" -cp "$cp" -d "$out/classes" "$here/Dec21140DiffRunner.java"
same=0
for seed in $(seq "$first" $((first + count - 1))); do
  python3 "$here/gen_scenario.py" "$seed" "$ops" >"$out/scenario-$seed.txt"
  "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$cp" Dec21140DiffRunner \
    "$out/scenario-$seed.txt" >"$out/java-$seed.txt" 2>/dev/null
  "$out/dec21140_diff_runner" "$out/scenario-$seed.txt" >"$out/c-$seed.txt"
  if cmp -s "$out/java-$seed.txt" "$out/c-$seed.txt"; then
    same=$((same + 1))
    rm -f "$out/scenario-$seed.txt" "$out/java-$seed.txt" "$out/c-$seed.txt"
  else
    echo "run-diff: seed $seed: traces differ (diff $out/java-$seed.txt $out/c-$seed.txt)" >&2
  fi
done
echo "run-diff: $same of $count scenarios identical ($ops operations each)"
[ "$same" -eq "$count" ]
