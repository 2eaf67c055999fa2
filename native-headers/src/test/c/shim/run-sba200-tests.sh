#!/usr/bin/env bash
# Compiles the SBA-200 U-Net-over-Ethernet card model (src/main/c/shim/sba200_eth_card.c) with its unit tests
# (test_sba200_eth_card.c) against the fake platform (fake_platform.c) - no sockets, no privileges - runs them,
# then runs them again under valgrind memcheck (--error-exitcode=1 --leak-check=full).
# Usage: run-sba200-tests.sh GCC INCLUDE_DIR OUT_DIR
#   GCC          the C compiler (gcc)
#   INCLUDE_DIR  native-headers/src/main/c/include (nicshim.h, sba200_unet.h)
#   OUT_DIR      where the test binary goes (created)
set -euo pipefail
gcc=${1:?usage: run-sba200-tests.sh GCC INCLUDE_DIR OUT_DIR}
inc=${2:?include dir}
out=${3:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
shim_src=$(cd "$here/../../../main/c/shim" && pwd)
mkdir -p "$out"
bin="$out/test_sba200_eth_card"
"$gcc" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$inc" -I"$shim_src" -I"$here" \
  "$here/test_sba200_eth_card.c" "$shim_src/sba200_eth_card.c" "$here/fake_platform.c" -o "$bin"
"$bin"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "test_sba200_eth_card: FAILED - valgrind is not installed, the memcheck run the build requires cannot run" >&2
  echo "  (Debian/Ubuntu: apt-get install valgrind)" >&2
  exit 1
fi
valgrind -q --error-exitcode=1 --leak-check=full "$bin" >/dev/null
echo "test_sba200_eth_card: valgrind memcheck clean"
