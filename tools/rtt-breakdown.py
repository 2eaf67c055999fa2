#!/usr/bin/env python3
"""Where a blocking round trip's time goes on a veth pair: kernel UDP beside the direct AF_XDP endpoint.

Reads `perf script --ns -F comm,tid,cpu,time,event,trace` output of a `nic unet real-pingpong` run recorded with
kernel tracepoints (function tracing is not needed, and is refused on some kernels), picks the two ping-pong threads
(the two senders that wake each other most often) and splits each one-way trip into the steps the tracepoints bound:

  sender      sys_enter_sendto ........... the send (UDP: the socket write; direct: the TX kick)
    send path   -> net_dev_start_xmit        UDP: the sender's UDP/IP output, up to the veth
                -> xdp_redirect              direct: the XSK's skb built (frame copied from the UMEM), the veth, the
                                             receiving veth's NAPI (skb copied into a page for XDP), the program run
    receive     -> sched_wakeup(receiver)    UDP: the receiving veth's softirq (on the sender's CPU): backlog, IP, UDP,
                                             socket queue; direct: the redirect, the copy into the peer's UMEM
    kernel      (send path + receive)
    wake-up     -> sched_switch to receiver  the scheduler: IPI to the receiver's CPU, idle exit, context switch
    return      -> sys_exit of its wait      the rest of the receiver's wait syscall (UDP: recvfrom's copy out)
  receiver    -> sys_enter_sendto ......... user level: the application reads the message and composes the echo

Each step's median and the median of the whole one-way trip (sendto entry to the peer's next sendto entry) are
printed per thread direction. Steps missing in a trip (a wake-up that was not needed because the receiver was
already running) leave that trip out of that step's figures only.

  perf record -o rtt.data -a -e 'syscalls:sys_enter_sendto' -e 'syscalls:sys_exit_sendto' \\
      -e 'syscalls:sys_exit_ppoll' -e 'syscalls:sys_exit_recvfrom' -e 'syscalls:sys_exit_poll' \\
      -e 'net:net_dev_start_xmit' -e 'xdp:xdp_redirect' -e 'sched:sched_wakeup' -e 'sched:sched_switch' \\
      -- ./nic unet real-pingpong --backends direct --wait block --pin yes --sizes 42 --trials 1 ...
  perf script -i rtt.data --ns -F comm,tid,cpu,time,event,trace | tools/rtt-breakdown.py
"""
import re
import statistics
import sys
from collections import Counter, defaultdict

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>\d+\.\d+):\s+"
                  r"(?P<event>[\w:]+):\s*(?P<trace>.*)$")
WAIT_EXITS = ("syscalls:sys_exit_ppoll", "syscalls:sys_exit_poll", "syscalls:sys_exit_recvfrom")
STEPS = ("send path", "receive", "kernel", "wake-up", "return", "user level")
BOUNDS = {"send path": ("start", "xmit"), "receive": ("xmit", "wakeup"), "kernel": ("start", "wakeup"),
          "wake-up": ("wakeup", "running"), "return": ("running", "returned"), "user level": ("returned", "reply")}


def parse(lines):
    events = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        events.append((float(m["time"]), int(m["tid"]),
                       int(m["cpu"]), m["event"], m["trace"]))
    events.sort(key=lambda e: e[0])
    return events


def wakeup_target(trace):
    m = re.search(r"\bpid=(\d+)", trace)
    return int(m.group(1)) if m else -1


def switch_next(trace):
    m = re.search(r"next_pid=(\d+)", trace)
    return int(m.group(1)) if m else -1


def one_way_trips(events, sender, receiver):
    """Per trip from `sender` to `receiver`: the time of each step boundary (None where not seen)."""
    trips = []
    current = None
    for t, tid, cpu, event, trace in events:
        if event == "syscalls:sys_enter_sendto" and tid == sender:
            current = {"start": t}
            trips.append(current)
            continue
        if current is None:
            continue
        if event in ("net:net_dev_start_xmit", "xdp:xdp_redirect") and tid == sender and "xmit" not in current:
            current["xmit"] = t
        elif event == "sched:sched_wakeup" and wakeup_target(trace) == receiver and "wakeup" not in current:
            current["wakeup"] = t
        elif event == "sched:sched_switch" and switch_next(trace) == receiver and "running" not in current \
                and "wakeup" in current:
            current["running"] = t
        elif event in WAIT_EXITS and tid == receiver and "wakeup" in current and "returned" not in current:
            current["returned"] = t
        elif event == "syscalls:sys_enter_sendto" and tid == receiver and "returned" in current:
            current["reply"] = t
            current = None
    return [trip for trip in trips if "reply" in trip]


def steps(trip):
    out = {}
    for name in STEPS:
        a, b = (trip.get(k) for k in BOUNDS[name])
        if a is not None and b is not None:
            out[name] = (b - a) * 1e6
    out["one way"] = (trip["reply"] - trip["start"]) * 1e6
    return out


def main():
    events = parse(sys.stdin)
    sends = Counter(tid for _, tid, _, event, _ in events if event == "syscalls:sys_enter_sendto")
    # The ping-pong's two threads wake each other once per trip: among the threads that send, the pair with the most
    # wake-ups of one by the other (another process's sender on the machine wakes nobody of the pair).
    senders = {tid for tid, _ in sends.most_common(16)}
    wakes = Counter()
    for _, tid, _, event, trace in events:
        if event == "sched:sched_wakeup" and tid in senders:
            target = wakeup_target(trace)
            if target in senders and target != tid:
                wakes[frozenset((tid, target))] += 1
    top = sorted(wakes.most_common(1)[0][0]) if wakes else []
    if len(top) < 2:
        print("rtt-breakdown: fewer than two threads made sendto calls: nothing to split", file=sys.stderr)
        return 2
    print("threads: %d (%d sendto) and %d (%d sendto)" % (top[0], sends[top[0]], top[1], sends[top[1]]))
    status = 0
    for sender, receiver in ((top[0], top[1]), (top[1], top[0])):
        trips = one_way_trips(events, sender, receiver)
        if not trips:
            print("%d -> %d: no complete trip" % (sender, receiver))
            status = 2
            continue
        per_step = defaultdict(list)
        for trip in trips:
            for name, us in steps(trip).items():
                per_step[name].append(us)
        print("%d -> %d: %d trips; median us per step (trips with the step):" % (sender, receiver, len(trips)))
        for name in STEPS + ("one way",):
            values = per_step.get(name, [])
            if values:
                print("  %-11s %8.2f us  (%d)" % (name, statistics.median(values), len(values)))
            else:
                print("  %-11s        -" % name)
    return status


if __name__ == "__main__":
    sys.exit(main())
