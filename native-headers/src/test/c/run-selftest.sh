#!/usr/bin/env bash
# Compiles and runs headers_selftest.c (the headers' facts recomputed from first principles), then
# runs it again under valgrind memcheck (without valgrind: skipped, or a failure when NICBRIDGE_REQUIRE names it;
# see require.sh); with NICBRIDGE_C_SANITIZE=1 it is an ASan + UBSan build instead, without valgrind (sanitizers.sh).
# Usage: run-selftest.sh GCC INCLUDE_DIR OUT_DIR
set -euo pipefail
gcc=${1:-gcc}
inc=${2:?include dir}
out=${3:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=require.sh
. "$here/require.sh"
# shellcheck source=sanitizers.sh
. "$here/sanitizers.sh"
mkdir -p "$out"
"$gcc" -std=c11 -Wall -Wextra -Werror -pedantic -O1 -g "${sanitize_flags[@]}" -I"$inc" "$here/headers_selftest.c" \
  -o "$out/headers_selftest"
"$out/headers_selftest"
if [ "$sanitizing" = 1 ]; then
  echo "headers_selftest: sanitizers clean"
elif command -v valgrind >/dev/null 2>&1; then
  valgrind -q --error-exitcode=1 --leak-check=full "$out/headers_selftest" >/dev/null
  echo "headers_selftest: valgrind memcheck clean"
else
  require_or_skip valgrind "headers_selftest: valgrind is not on the PATH, so its memcheck run"
fi
