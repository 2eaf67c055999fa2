#!/usr/bin/env bash
# The long run of the Java fuzz tests (Jazzer @FuzzTest), one at a time and nice'd (the machine is shared):
#
#   tools/fuzz-long.sh [DURATION] [FuzzTestClass ...]
#
# DURATION is Jazzer's (120s, 10m, 1h; default 120s). Without class names it runs every fuzz test of the build (each
# class under */src/test/java with a @FuzzTest and a fuzz-<Class> surefire execution in its module's pom). Each run
# is that execution alone (`surefire:test@fuzz-<Class>` after test-compile, so neither the other tests nor the C
# tests and libFuzzer harnesses of native-headers run) with nicbridge.fuzz.duration = DURATION. A finding fails the
# run and Jazzer writes the input into the test's corpus folder; the script goes on with the next test and exits
# non-zero at the end. Then it prints one Markdown table row per test from libFuzzer's final statistics line (the
# "DONE" line; libFuzzer writes it to the fork's stderr, past surefire's redirect, so the script keeps each run's
# console in <module>/target/fuzz-reports/<Class>-long.log): executions, exec/s, edge coverage ("cov"), features
# ("ft": edges with hit counts and the like, libFuzzer's finer measure) and the corpus entries libFuzzer kept.
set -u
cd "$(dirname "$0")/.."
duration=${1:-120s}
shift || true

fuzz_tests() {
    grep -rl --include='*FuzzTest.java' '@FuzzTest' -- */src/test/java | sort
}

classes=("$@")
if [ ${#classes[@]} -eq 0 ]; then
    while read -r f; do classes+=("$(basename "$f" .java)"); done < <(fuzz_tests)
fi

failed=0
rows=()
for class in "${classes[@]}"; do
    file=$(fuzz_tests | grep "/$class.java$" | head -1)
    if [ -z "$file" ]; then
        echo "fuzz-long: no @FuzzTest class named $class" >&2
        failed=1
        continue
    fi
    module=${file%%/*}
    if ! grep -q "<id>fuzz-$class</id>" "$module/pom.xml"; then
        echo "fuzz-long: $module/pom.xml has no fuzz-$class execution" >&2
        failed=1
        continue
    fi
    mkdir -p "$module/target/fuzz-reports"
    report="$module/target/fuzz-reports/$class-long.log"
    echo "fuzz-long: $class ($module) for $duration, console in $report" >&2
    if ! nice -n 10 ./mvnw -B -pl "$module" -am test-compile "surefire:test@fuzz-$class" -Dtest=NONE \
            -Dsurefire.failIfNoSpecifiedTests=false -Dnicbridge.fuzz.skip=false \
            -Dnicbridge.fuzz.duration="$duration" > "$report" 2>&1; then
        echo "fuzz-long: $class FAILED (a finding is in its corpus folder; see $report and $module/target/fuzz-reports)" >&2
        failed=1
    fi
    done_line=$(grep -hE '^#[0-9]+[[:space:]]+DONE' "$report" 2>/dev/null | tail -1)
    execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$done_line")
    rate=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' <<<"$done_line")
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    corp=$(sed -n 's/.*corp: \([0-9]*\)\/.*/\1/p' <<<"$done_line")
    rows+=("| \`$class\` | $duration | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} |")
done

echo "| fuzz test | duration | executions | exec/s | edge coverage | features | corpus entries |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $failed
