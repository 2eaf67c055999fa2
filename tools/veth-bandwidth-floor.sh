#!/usr/bin/env bash
# veth-bandwidth-floor.sh [MESSAGES] [WAIT] [SIZES...]: builds a fresh veth pair between two namespaces (offloads off),
# runs veth-bandwidth-floor.c (AF_PACKET: Pupa's framing, one sendmmsg per message, a TPACKET_V2 ring; vs kernel TCP)
# per size, three times each, alternating, removes the pair. WAIT: block (default) or spin. Root. Prints one line per
# stack, size and run. See the README, "Pupa in real time against kernel TCP".
# Environment: CPUS=A,B pins the sender to CPU A and the receiver to CPU B (default: unpinned). STEER=rps (default none)
# sets receive packet steering on both ends alike, for both stacks: end B's rx-0 rps_cpus = CPU B (the receiver's), end A's
# = CPU A (the ACK path's), so a frame's receive processing (tpacket_rcv, tcp_v4_rcv) runs on the receiving thread's CPU
# instead of in the sender's veth transmit; it implies CPUS=0,1 unless CPUS is given.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=${1:-20000}; shift || true
wait=${1:-block}; shift || true
sizes=${*:-1024 4096}
# FLOOR_BIN: a binary built beforehand (gcc -std=gnu11 -O2 -pthread veth-bandwidth-floor.c), so a timed run compiles nothing.
if [ -n "${FLOOR_BIN:-}" ]; then bin=$(mktemp /tmp/veth-bandwidth-floor.XXXXXX); cp "$FLOOR_BIN" "$bin"; chmod +x "$bin"
else bin=$(mktemp /tmp/veth-bandwidth-floor.XXXXXX); gcc -std=gnu11 -O2 -Wall -pthread "$here/veth-bandwidth-floor.c" -o "$bin"; fi
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
steer=${STEER:-none}; cpus=${CPUS:-}
case "$steer" in
  none) ;;
  rps) cpus=${cpus:-0,1}
       for x in "$na:$ia:${cpus%%,*}" "$nb:$ib:${cpus##*,}"; do
         IFS=: read -r ns dev cpu <<<"$x"
         printf '%x' $((1 << cpu)) | ip netns exec "$ns" tee "/sys/class/net/$dev/queues/rx-0/rps_cpus" >/dev/null
         echo "rps: $ns/$dev rx-0 rps_cpus = $(ip netns exec "$ns" cat "/sys/class/net/$dev/queues/rx-0/rps_cpus")"
       done ;;
  *) echo "STEER must be none or rps, was '$steer'" >&2; exit 2 ;;
esac
ma=$(ip -n "$na" -br link show "$ia" | awk '{print $3}'); mb=$(ip -n "$nb" -br link show "$ib" | awk '{print $3}')
sleep 0.5
echo "veth-bandwidth-floor: $n messages per run, receivers $wait, threads ${cpus:+pinned }${cpus:-unpinned}, steering $steer, offloads off, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $sizes; do
  for run in 1 2 3; do
    "$bin" packet "$wait" "$s" "$n" "$ma" "$mb" "$na" "$ia" "$nb" "$ib" $cpus
    "$bin" tcp "$wait" "$s" "$n" "$ma" "$mb" "$na" "$ia" "$nb" "$ib" $cpus
  done
done
