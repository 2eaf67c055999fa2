#!/usr/bin/env bash
# Builds and runs the native shim's C tests, each under valgrind memcheck (--error-exitcode=1 --leak-check=full), or
# with NICBRIDGE_C_SANITIZE=1 built with ASan + UBSan instead (../sanitizers.sh); without valgrind they run natively
# (skipped memcheck, or a failure when NICBRIDGE_REQUIRE names valgrind: see ../require.sh):
#   shim_lib_test      the built libnicshim.so: loads, exports exactly the API, answers without an interface
#   fault_test         fault.c alone: the fault injector's decisions (rates, determinism, off)
#   shim_api_test      nicshim.c + the test-only card: arguments, states, windows, DMA regions, registers (lo)
#   *_card_test.c      card unit tests: X_card_test.c is linked with fake_platform.c and src/main/c/shim/X_card.c
#   shim_veth_test     nicshim.c + xsk.c + fault.c + the test-only card (AF_PACKET, then AF_XDP) over a veth pair between two network namespaces made here
#                      (unique names, removed by a trap that always runs); skipped with the reason when the
#                      machine does not permit namespaces (a failure when NICBRIDGE_REQUIRE names net)
# Usage: run-shim-tests.sh GCC INCLUDE_DIR SHIM_SRC_DIR OUT_DIR LIBRARY
set -euo pipefail
gcc=${1:-gcc}
inc=${2:?include dir}
src=${3:?shim source dir}
out=${4:?output dir}
lib=${5:?path of libnicshim.so}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../require.sh
. "$here/../require.sh"
# shellcheck source=../sanitizers.sh
. "$here/../sanitizers.sh"
mkdir -p "$out"
flags=(-std=c11 -D_GNU_SOURCE -O1 -g -pthread -Wall -Wextra -Werror -I"$inc" -I"$src" -I"$here" "${sanitize_flags[@]}")

if [ "$sanitizing" = 1 ]; then
  memcheck=()
elif command -v valgrind >/dev/null 2>&1; then
  memcheck=(valgrind -q --error-exitcode=97 --leak-check=full)
  echo "shim C tests: under valgrind memcheck"
else
  memcheck=()
  require_or_skip valgrind "shim C tests: valgrind is not on the PATH, so they run without memcheck"
fi

# run NAME PREFIX... -- COMMAND...: runs a test binary (optionally inside `ip netns exec NS`) under memcheck.
run() {
  local name=$1
  shift
  local prefix=()
  while [ "$1" != "--" ]; do prefix+=("$1"); shift; done
  shift
  local rc=0
  "${prefix[@]}" "${memcheck[@]}" "$@" || rc=$?
  if [ $rc -eq 97 ]; then
    echo "$name: valgrind memcheck found errors" >&2
    exit 1
  elif [ $rc -eq 77 ]; then # SHIM_TEST_SKIPPED (shim_test.h): a part needed root / CAP_NET_RAW / an interface
    require_or_skip net "$name: skipped the tests that open a shim (see its output above)"
  elif [ $rc -ne 0 ]; then
    echo "$name: failed (exit status $rc)" >&2
    exit 1
  fi
}

"$gcc" "${flags[@]}" "$here/shim_lib_test.c" -ldl -o "$out/shim_lib_test"
run shim_lib_test -- "$out/shim_lib_test" "$lib"

"$gcc" "${flags[@]}" "$here/fault_test.c" "$src/fault.c" -lm -o "$out/fault_test"
run fault_test -- "$out/fault_test"

"$gcc" "${flags[@]}" "$here/shim_api_test.c" "$here/test_card.c" "$src/nicshim.c" "$src/xsk.c" "$src/fault.c" -o "$out/shim_api_test"
run shim_api_test -- "$out/shim_api_test"

shopt -s nullglob
for test in "$here"/*_card_test.c; do
  name=$(basename "$test" .c)
  card="$src/${name%_test}.c"
  if [ ! -f "$card" ]; then
    echo "$name: no card source $card for this test" >&2
    exit 1
  fi
  "$gcc" "${flags[@]}" "$test" "$here/fake_platform.c" "$card" -o "$out/$name"
  run "$name" -- "$out/$name"
done

"$gcc" "${flags[@]}" "$here/shim_veth_test.c" "$here/test_card.c" "$src/nicshim.c" "$src/xsk.c" "$src/fault.c" -o "$out/shim_veth_test"
if ! command -v ip >/dev/null 2>&1; then
  require_or_skip net "shim_veth_test: the ip command (iproute2) is not installed"
  exit 0
fi
nsa="nbA$$"
nsb="nbB$$"
ifa="nbvA$$"
ifb="nbvB$$"
cleanup() {
  ip netns del "$nsa" 2>/dev/null || true
  ip netns del "$nsb" 2>/dev/null || true
}
trap cleanup EXIT
if ! reason=$(ip netns add "$nsa" 2>&1 && ip netns add "$nsb" 2>&1); then
  require_or_skip net "shim_veth_test: cannot create network namespaces here (ip netns add: $reason)"
  exit 0
fi
if ! reason=$(ip link add "$ifa" netns "$nsa" type veth peer name "$ifb" netns "$nsb" 2>&1); then
  require_or_skip net "shim_veth_test: cannot create a veth pair here (ip link add: $reason)"
  exit 0
fi
# No IPv6 on the pair (no neighbour discovery noise); room for the oversize frame of the truncation test.
for pair in "$nsa $ifa" "$nsb $ifb"; do
  set -- $pair
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
    "net.ipv6.conf.$2.disable_ipv6=1"
  ip -n "$1" link set "$2" mtu 3000 up
done
run shim_veth_test ip netns exec "$nsa" -- "$out/shim_veth_test" "$ifa" "$nsb" "$ifb"
