#!/usr/bin/env bash
# veth-bandwidth-floor.sh [MESSAGES] [WAIT] [SIZES...]: builds a fresh veth pair between two namespaces (offloads off),
# runs veth-bandwidth-floor.c (AF_PACKET: Pupa's framing, one sendmmsg per message, a TPACKET_V2 ring; vs kernel TCP)
# per size, three times each, alternating, removes the pair. WAIT: block (default) or spin. Root. Prints one line per
# stack, size and run. See the README, "Pupa in real time against kernel TCP".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=${1:-20000}; shift || true
wait=${1:-block}; shift || true
sizes=${*:-1024 4096}
bin=$(mktemp /tmp/veth-bandwidth-floor.XXXXXX)
gcc -std=gnu11 -O2 -Wall -pthread "$here/veth-bandwidth-floor.c" -o "$bin"
na=nbwa$$; nb=nbwb$$; ia=nbwa$$x; ib=nbwb$$x
cleanup() { ip netns del "$na" 2>/dev/null || true; ip netns del "$nb" 2>/dev/null || true; rm -f "$bin"; }
trap cleanup EXIT
ip netns add "$na"; ip netns add "$nb"
ip link add "$ia" type veth peer name "$ib"
ip link set "$ia" netns "$na"; ip link set "$ib" netns "$nb"
ip -n "$na" addr add 10.99.1.1/30 dev "$ia"; ip -n "$nb" addr add 10.99.1.2/30 dev "$ib"
for x in "$na:$ia" "$nb:$ib"; do
  ip -n "${x%%:*}" link set "${x##*:}" up; ip -n "${x%%:*}" link set lo up
  ip netns exec "${x%%:*}" ethtool -K "${x##*:}" tso off gso off gro off >/dev/null
done
ma=$(ip -n "$na" -br link show "$ia" | awk '{print $3}'); mb=$(ip -n "$nb" -br link show "$ib" | awk '{print $3}')
sleep 0.5
echo "veth-bandwidth-floor: $n messages per run, receivers $wait, threads unpinned, offloads off, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $sizes; do
  for run in 1 2 3; do
    "$bin" packet "$wait" "$s" "$n" "$ma" "$mb" "$na" "$ia" "$nb" "$ib"
    "$bin" tcp "$wait" "$s" "$n" "$ma" "$mb" "$na" "$ia" "$nb" "$ib"
  done
done
