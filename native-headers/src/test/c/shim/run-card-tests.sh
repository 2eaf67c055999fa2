#!/usr/bin/env bash
# Builds and runs the DEC 21140 card model's unit tests (test_dec21140_card.c + dec21140_card.c on the fake
# platform), first natively, then under valgrind memcheck (--error-exitcode=1 --leak-check=full); with
# NICBRIDGE_C_SANITIZE=1 the native runs are ASan + UBSan builds and valgrind is left out (../sanitizers.sh).
# Usage: run-card-tests.sh GCC INCLUDE_DIR OUT_DIR
#   GCC          compiler (e.g. gcc)
#   INCLUDE_DIR  native-headers/src/main/c/include (dec21140.h, nicshim.h)
#   OUT_DIR      where the test binary goes (e.g. native-headers/target/c-tests)
# Exit status is non-zero when a check fails, valgrind reports an error, or valgrind is missing and
# NICBRIDGE_REQUIRE names it (see ../require.sh).
set -euo pipefail
gcc=${1:?usage: run-card-tests.sh GCC INCLUDE_DIR OUT_DIR}
inc=${2:?include dir}
out=${3:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../require.sh
. "$here/../require.sh"
# shellcheck source=../sanitizers.sh
. "$here/../sanitizers.sh"
shim_src=$(cd "$here/../../../main/c/shim" && pwd)
mkdir -p "$out"
flags=(-std=c11 -D_GNU_SOURCE -O1 -g -pthread -Wall -Wextra -Werror "${sanitize_flags[@]}")
"$gcc" "${flags[@]}" -I"$inc" -I"$shim_src" -I"$here" \
  "$shim_src/dec21140_card.c" "$here/fake_platform.c" "$here/test_dec21140_card.c" \
  -o "$out/test_dec21140_card"
"$out/test_dec21140_card"
# the same tests with the CRC's table path only (the folding path is what x86-64 with PCLMULQDQ uses)
"$gcc" "${flags[@]}" -DNICSHIM_CRC_TABLE_ONLY -I"$inc" -I"$shim_src" -I"$here" \
  "$shim_src/dec21140_card.c" "$here/fake_platform.c" "$here/test_dec21140_card.c" \
  -o "$out/test_dec21140_card_table_crc"
"$out/test_dec21140_card_table_crc"
if [ "$sanitizing" = 1 ]; then
  echo "test_dec21140_card: sanitizers clean (both CRC paths)"
elif command -v valgrind >/dev/null 2>&1; then
  valgrind -q --error-exitcode=1 --leak-check=full "$out/test_dec21140_card" >/dev/null
  echo "test_dec21140_card: valgrind memcheck clean"
else
  require_or_skip valgrind "test_dec21140_card: valgrind is not on the PATH, so its memcheck run"
fi
