#!/usr/bin/env bash
# End-to-end test of the shim serving the DEC 21140 contract over a real veth pair: builds
# test_e2e_dec21140.c against the shim sources (every src/main/c/shim/*.c, i.e. what libnicshim.so holds),
# creates two network namespaces with one veth end each (unique names with this script's pid, IPv6 off so the
# kernel sends no ND/MLD frames), runs the test, then runs it again under valgrind memcheck
# (--error-exitcode=1 --leak-check=full; with a shorter sustained part, valgrind being ~50x slower), or with
# NICBRIDGE_C_SANITIZE=1 builds it with ASan + UBSan and runs that once, without valgrind (../sanitizers.sh). The
# namespaces and the veth pair are removed by a trap in every case.
# Skipped (exit 0, reason printed) where the machine forbids namespaces or raw sockets, the memcheck run where
# valgrind is missing; failures instead when NICBRIDGE_REQUIRE names net / valgrind (see ../require.sh).
# Usage: run-e2e-tests.sh GCC INCLUDE_DIR OUT_DIR
set -euo pipefail
gcc=${1:?usage: run-e2e-tests.sh GCC INCLUDE_DIR OUT_DIR}
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
"$gcc" "${flags[@]}" -I"$inc" -I"$shim_src" "$shim_src"/*.c "$here/test_e2e_dec21140.c" \
  -o "$out/test_e2e_dec21140"

if ! command -v ip >/dev/null 2>&1; then
  require_or_skip net "test_e2e_dec21140: the ip command (iproute2) is not installed"
  exit 0
fi
ns_a="nbA$$"
ns_b="nbB$$"
veth_a="nbvA$$"
veth_b="nbvB$$"
cleanup() {
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  ip link del "$veth_a" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
if ! reason=$(ip netns add "$ns_a" 2>&1); then
  require_or_skip net "test_e2e_dec21140: cannot create a network namespace, needs root / CAP_SYS_ADMIN (ip netns add: $reason)"
  exit 0
fi
ip netns add "$ns_b"
ip link add "$veth_a" type veth peer name "$veth_b"
ip link set "$veth_a" netns "$ns_a"
ip link set "$veth_b" netns "$ns_b"
for pair in "$ns_a:$veth_a" "$ns_b:$veth_b"; do
  ns=${pair%%:*}
  dev=${pair#*:}
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
  ip -n "$ns" link set "$dev" up
done
netns_dir=/run/netns
[ -e "$netns_dir/$ns_a" ] || netns_dir=/var/run/netns

rc=0
"$out/test_e2e_dec21140" "$netns_dir/$ns_a" "$veth_a" "$netns_dir/$ns_b" "$veth_b" || rc=$?
if [ $rc -eq 77 ]; then # SHIM_TEST_SKIPPED (shim_test.h): the shims could not open the interfaces
  require_or_skip net "test_e2e_dec21140: the shims could not open the veth ends (see its output above)"
  exit 0
elif [ $rc -ne 0 ]; then
  exit $rc
fi
if [ "$sanitizing" = 1 ]; then
  echo "test_e2e_dec21140: sanitizers clean"
elif command -v valgrind >/dev/null 2>&1; then
  valgrind -q --error-exitcode=1 --leak-check=full \
    "$out/test_e2e_dec21140" "$netns_dir/$ns_a" "$veth_a" "$netns_dir/$ns_b" "$veth_b" 10 >/dev/null
  echo "test_e2e_dec21140: valgrind memcheck clean"
else
  require_or_skip valgrind "test_e2e_dec21140: valgrind is not on the PATH, so its memcheck run"
fi
