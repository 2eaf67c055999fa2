#!/bin/bash
# veth-threaded-napi.sh PID WATCH_PID: a measurement helper (issue 15, fourth pass; root). While process WATCH_PID runs,
# turns threaded NAPI on (/sys/class/net/<dev>/threaded = 1) for every nbv* veth end in the namespaces nbA<PID>-*/nbB<PID>-*
# that VethPair creates for JVM PID, and pins each NAPI kthread as it appears (veth creates them when an XDP program is
# attached, i.e. when an AF_XDP shim card opens): end B's (which receives A's frames) to CPU 1, end A's to CPU 0 - so the
# XDP receive and the AF_XDP copy run on the receiving thread's CPU instead of in the sender's veth transmit. Prints what it
# did. E.g.: java ... pupa real-bandwidth --transport afxdp --rx-steering rps & veth-threaded-napi.sh $! $!
pid=$1; seen=""
while kill -0 "$2" 2>/dev/null; do
  for ns in $(ip netns list | awk '{print $1}' | grep -E "^nb[AB]$pid-"); do
    for dev in $(ip -n "$ns" -br link | awk '{print $1}' | grep '^nbv' | cut -d@ -f1); do
      key="$ns/$dev"
      case " $seen " in *" $key "*) ;; *) ip netns exec "$ns" sh -c "echo 1 > /sys/class/net/$dev/threaded" 2>/dev/null && seen="$seen $key" && echo "threaded on $key: $(ip netns exec $ns cat /sys/class/net/$dev/threaded)" ;; esac
    done
  done
  for t in $(ps -eo pid=,comm= | awk '$2 ~ /^napi\/nbv/ {print $1}'); do
    name=$(cat /proc/$t/comm 2>/dev/null)
    case "$name" in napi/nbvB*) cpu=1 ;; *) cpu=0 ;; esac
    cur=$(taskset -pc $t 2>/dev/null | awk '{print $NF}')
    if [ "$cur" != "$cpu" ]; then taskset -pc $cpu $t >/dev/null 2>&1 && echo "pinned $name ($t) to CPU $cpu"; fi
  done
  sleep 0.05
done
