#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the native shim with clang (-fsanitize=fuzzer,address,undefined, every sanitizer
# check fatal) and runs each one:
#   fuzz_dec21140_card  fuzz_card.c -DFUZZ_CARD_DEC21140 + dec21140_card.c on the fake platform
#   fuzz_sba200_card    fuzz_card.c -DFUZZ_CARD_SBA200 + sba200_eth_card.c on the fake platform
#   fuzz_api            fuzz_api.c + every shim source (nicshim.c, both cards) on lo in its own network namespace
# first over its committed inputs (corpus/HARNESS: the seeds gen-seeds.py writes; regressions/HARNESS: every input
# that once crashed it, kept after the fix), then fuzzing for SECONDS (0 = the committed inputs only), growing its
# working corpus in OUT_DIR/corpus/HARNESS (kept between runs until `mvn clean`). A crash, a sanitizer report, a
# timeout (10 s per input), an input over 2 GB RSS or a broken invariant fails the run; the input is left in
# OUT_DIR/artifacts/ and the command to replay it is printed. Each harness's figures (executions, exec/s, edges
# covered of those instrumented) go to stdout and to OUT_DIR/fuzz-summary.txt.
#
# Without a clang that links libFuzzer: skipped (a failure when NICBRIDGE_REQUIRE names clang-fuzzer; see
# ../require.sh). fuzz_api without namespaces (not root): skipped (a failure when NICBRIDGE_REQUIRE names net).
#
# Usage: run-fuzz-tests.sh CLANG INCLUDE_DIR OUT_DIR SECONDS [HARNESS...]   (HARNESS: dec21140_card, sba200_card, api;
#   default all three)
#   The Maven test phase runs it with SECONDS = ${nicbridge.fuzz.seconds} (20) per harness; the longer run is
#   ./mvnw -B -q -pl native-headers verify -Dnicbridge.fuzz.seconds=300   (or this script directly, e.g.
#   native-headers/src/test/c/fuzz/run-fuzz-tests.sh clang-14 native-headers/src/main/c/include /tmp/fuzz 300)
set -euo pipefail
clang=${1:?usage: run-fuzz-tests.sh CLANG INCLUDE_DIR OUT_DIR SECONDS}
inc=${2:?include dir}
out=${3:?output dir}
seconds=${4:?seconds per harness}
shift 4
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(dec21140_card sba200_card api)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../require.sh
. "$here/../require.sh"
shim_src=$(cd "$here/../../../main/c/shim" && pwd)
fake="$here/../shim"
mkdir -p "$out/artifacts"

# The clang named, else plain `clang`; it must build and link a libFuzzer harness.
if ! command -v "$clang" >/dev/null 2>&1 && command -v clang >/dev/null 2>&1; then
  clang=clang
fi
probe="$out/probe.c"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {(void)d; (void)n; return 0;}\n' >"$probe"
if ! command -v "$clang" >/dev/null 2>&1 ||
  ! reason=$("$clang" -fsanitize=fuzzer,address,undefined "$probe" -o "$out/probe" 2>&1); then
  require_or_skip clang-fuzzer "shim fuzz harnesses: no clang with libFuzzer here (${reason:-$clang not on the PATH}; Debian: apt-get install clang-14)"
  exit 0
fi

flags=(-std=c11 -D_GNU_SOURCE -O1 -g -pthread -Wall -Wextra -Werror
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  -I"$inc" -I"$shim_src" -I"$fake" -I"$here")
"$clang" "${flags[@]}" -DFUZZ_CARD_DEC21140 "$here/fuzz_card.c" "$fake/fake_platform.c" "$shim_src/dec21140_card.c" \
  -o "$out/fuzz_dec21140_card"
"$clang" "${flags[@]}" -DFUZZ_CARD_SBA200 "$here/fuzz_card.c" "$fake/fake_platform.c" "$shim_src/sba200_eth_card.c" \
  -o "$out/fuzz_sba200_card"
"$clang" "${flags[@]}" "$here/fuzz_api.c" "$shim_src"/*.c -o "$out/fuzz_api"
echo "shim fuzz harnesses: built with $("$clang" --version | head -1)"

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
summary="$out/fuzz-summary.txt"
: >"$summary"

# fuzz NAME: replays the committed inputs, then fuzzes for $seconds.
fuzz() {
  local name=$1 bin="$out/fuzz_$1" log="$out/fuzz_$1.log"
  local committed=("$here/corpus/$name")
  [ -d "$here/regressions/$name" ] && committed+=("$here/regressions/$name")
  mkdir -p "$out/corpus/$name"
  local common=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/$name-")
  local rc=0
  "$bin" "${common[@]}" -runs=0 "${committed[@]}" >"$log" 2>&1 || rc=$?
  if [ $rc -eq 0 ] && [ "$seconds" -gt 0 ]; then
    "$bin" "${common[@]}" -use_value_profile=1 -max_total_time="$seconds" -print_final_stats=1 \
      "$out/corpus/$name" "${committed[@]}" >>"$log" 2>&1 || rc=$?
  fi
  if [ $rc -eq "$skip_status" ]; then
    require_or_skip net "fuzz_$name: $(grep -m1 SKIPPED "$log" || echo 'no network namespace here')"
    return 0
  elif [ $rc -ne 0 ]; then
    tail -n 60 "$log" >&2
    local artifact
    artifact=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //' || true)
    echo "fuzz_$name: FAILED (exit status $rc); input: ${artifact:-see $log}" >&2
    echo "  replay: $bin ${artifact:-INPUT}; after the fix, commit the input under src/test/c/fuzz/regressions/$name/" >&2
    exit 1
  fi
  if [ "$seconds" -eq 0 ]; then
    local line="fuzz_$name: $(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*') runs over the committed inputs (fuzzing off), no crash"
    echo "$line"
    echo "$line" >>"$summary"
    return 0
  fi
  local runs rate cov edges ft units
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  edges=$(grep -o 'Loaded 1 modules *([0-9]* inline 8-bit counters)' "$log" | head -1 | grep -o '([0-9]*' | tr -d '(' || echo '?')
  units=$(find "$out/corpus/$name" -type f | wc -l)
  local line="fuzz_$name: ${seconds}s, $runs executions ($rate exec/s), $cov of $edges edges covered (features $ft), working corpus $units inputs, no crash"
  echo "$line"
  echo "$line" >>"$summary"
}

# The exit status fuzz_api gives where it cannot make its namespace (SHIM_TEST_SKIPPED, shim_test.h).
skip_status=77
for harness in "${harnesses[@]}"; do
  case $harness in
    dec21140_card | sba200_card | api) fuzz "$harness" ;;
    *) echo "run-fuzz-tests.sh: unknown harness '$harness' (dec21140_card, sba200_card, api)" >&2; exit 2 ;;
  esac
done
