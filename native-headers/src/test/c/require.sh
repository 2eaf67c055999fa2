# Sourced by the C test runners: the shell half of io.nicbridge.testing.Requirements (native-headers' test sources),
# the one rule for a test that cannot run here for want of a capability.
#
#   require_or_skip WORD REASON
#     Normally prints "SKIPPED (WORD not available): REASON" and returns 0: the caller leaves that part out and goes
#     on. When NICBRIDGE_REQUIRE names WORD (or is "all"), prints the failure to stderr and exits the runner with
#     status 1, so CI, which requires everything it installs, fails instead of quietly testing less.
#
# NICBRIDGE_REQUIRE is a comma-separated list of the words below (or "all"), case-insensitive. Sourcing this file
# checks it: an unknown word exits the runner with status 2. The words are Capability.word() in Java (a test there
# keeps the two lists equal).
NICBRIDGE_CAPABILITIES="net shim tshark valgrind libclang setpriv chromium clang-fuzzer"

nicbridge_required=" "
IFS=, read -ra nicbridge_words <<< "${NICBRIDGE_REQUIRE:-}"
for nicbridge_word in "${nicbridge_words[@]}"; do
  nicbridge_word=${nicbridge_word//[[:space:]]/}
  nicbridge_word=${nicbridge_word,,}
  if [ -z "$nicbridge_word" ]; then
    continue
  elif [ "$nicbridge_word" = all ]; then
    nicbridge_required=" $NICBRIDGE_CAPABILITIES "
  elif [[ " $NICBRIDGE_CAPABILITIES " == *" $nicbridge_word "* ]]; then
    nicbridge_required+="$nicbridge_word "
  else
    echo "NICBRIDGE_REQUIRE=$NICBRIDGE_REQUIRE: unknown capability '$nicbridge_word'; known:" \
      "${NICBRIDGE_CAPABILITIES// /, }, all" >&2
    exit 2
  fi
done
unset nicbridge_words nicbridge_word

require_or_skip() {
  local word=$1 reason=$2
  if [[ " $NICBRIDGE_CAPABILITIES " != *" $word "* ]]; then
    echo "require_or_skip: unknown capability '$word' (known: $NICBRIDGE_CAPABILITIES)" >&2
    exit 2
  fi
  if [[ "$nicbridge_required" == *" $word "* ]]; then
    echo "FAILED: NICBRIDGE_REQUIRE requires $word, but it is not available here: $reason" >&2
    exit 1
  fi
  echo "SKIPPED ($word not available): $reason"
}
