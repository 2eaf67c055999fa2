#!/usr/bin/env bash
# veth-latency-floor.sh [ROUND_TRIPS] [SIZES...]: builds a fresh veth pair between two namespaces (offloads off), runs
# veth-latency-floor.c per size and stack, both threads pinned, removes the pair. Root. Prints one line per stack and
# size. FLOOR_STACKS picks the stacks (default "packet tcp": AF_PACKET send + ring spin vs kernel TCP with busy
# polling, see the README, "Pupa in real time against kernel TCP"); issue 18's floor is
# FLOOR_STACKS="xdp-spin udp-spin xdp-block xdp-poll udp-block" with size 50 (the 64-byte frame), see the README,
# "Direct-access U-Net on the AF_XDP rings". FLOOR_ROUNDS=R repeats the stacks R times in turn (interleaved).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=${1:-20000}; shift || true
sizes=${*:-4 64 256}
bin=$(mktemp /tmp/veth-latency-floor.XXXXXX)
gcc -std=gnu11 -O2 -Wall -pthread "$here/veth-latency-floor.c" -o "$bin"
na=nbfa$$; nb=nbfb$$; ia=nbfa$$x; ib=nbfb$$x
cleanup() { ip netns del "$na" 2>/dev/null || true; ip netns del "$nb" 2>/dev/null || true; rm -f "$bin"; }
trap cleanup EXIT
ip netns add "$na"; ip netns add "$nb"
ip link add "$ia" type veth peer name "$ib"
ip link set "$ia" netns "$na"; ip link set "$ib" netns "$nb"
ip -n "$na" addr add 10.99.0.1/30 dev "$ia"; ip -n "$nb" addr add 10.99.0.2/30 dev "$ib"
for x in "$na:$ia" "$nb:$ib"; do
  ip -n "${x%%:*}" link set "${x##*:}" up; ip -n "${x%%:*}" link set lo up
  ip netns exec "${x%%:*}" ethtool -K "${x##*:}" tso off gso off gro off >/dev/null 2>&1 || true
done
ma=$(ip -n "$na" -br link show "$ia" | awk '{print $3}'); mb=$(ip -n "$nb" -br link show "$ib" | awk '{print $3}')
sleep 0.5
echo "veth-latency-floor: $n round trips per stack and size, threads pinned to CPU 0 and 1, load: $(cut -d' ' -f1-3 /proc/loadavg)"
stacks=${FLOOR_STACKS:-packet tcp}
for _ in $(seq "${FLOOR_ROUNDS:-1}"); do
  for s in $sizes; do
    for stack in $stacks; do
      "$bin" "$stack" "$s" "$n" "$ma" "$mb" "$na" "$ia" "$nb" "$ib"
    done
  done
done
