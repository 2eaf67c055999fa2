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
  tools/rtt-breakdown.py --self-test     # the step arithmetic on a synthetic two-trip trace
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


def pingpong_pair(events, sends):
    """The ping-pong's two threads: they wake each other once per trip. Among the threads that send, the pair with
    the most wake-ups of one by the other (another process's sender on the machine wakes nobody of the pair)."""
    senders = {tid for tid, _ in sends.most_common(16)}
    wakes = Counter()
    for _, tid, _, event, trace in events:
        if event == "sched:sched_wakeup" and tid in senders:
            target = wakeup_target(trace)
            if target in senders and target != tid:
                wakes[frozenset((tid, target))] += 1
    return sorted(wakes.most_common(1)[0][0]) if wakes else []


def main():
    events = parse(sys.stdin)
    sends = Counter(tid for _, tid, _, event, _ in events if event == "syscalls:sys_enter_sendto")
    top = pingpong_pair(events, sends)
    if len(top) < 2:
        print("rtt-breakdown: no two sending threads woke each other: no ping-pong to split", file=sys.stderr)
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


# Two trips of a synthetic trace, times in us from 100 s: A (tid 1) sends at 0, its frame leaves at 3, B (tid 2) is woken
# at 10, runs at 14, its wait returns at 16 and it echoes at 18; the echo runs the same steps back. A third thread (3)
# sends more often than either but wakes nobody of them, so it is not taken for one of the pair.
SELF_TEST = """\
    a 1 [000] 100.000000000: syscalls:sys_enter_sendto: fd: 0x10
    a 1 [000] 100.000003000: net:net_dev_start_xmit: dev=vA len=64
    a 1 [000] 100.000010000: sched:sched_wakeup: comm=b pid=2 prio=120 target_cpu=001
    x 9 [001] 100.000014000: sched:sched_switch: prev_comm=x prev_pid=9 prev_state=S ==> next_comm=b next_pid=2
    b 2 [001] 100.000016000: syscalls:sys_exit_recvfrom: 0x2c
    b 2 [001] 100.000018000: syscalls:sys_enter_sendto: fd: 0x11
    b 2 [001] 100.000021000: net:net_dev_start_xmit: dev=vB len=64
    b 2 [001] 100.000028000: sched:sched_wakeup: comm=a pid=1 prio=120 target_cpu=000
    y 8 [000] 100.000032000: sched:sched_switch: prev_comm=y prev_pid=8 prev_state=S ==> next_comm=a next_pid=1
    a 1 [000] 100.000034000: syscalls:sys_exit_recvfrom: 0x2c
    a 1 [000] 100.000036000: syscalls:sys_enter_sendto: fd: 0x10
""" + "".join("    c 3 [000] 101.%09d: syscalls:sys_enter_sendto: fd: 0x12\n" % i for i in range(5))


def self_test():
    events = parse(SELF_TEST.splitlines())
    trips = one_way_trips(events, 1, 2)
    sends = Counter(tid for _, tid, _, event, _ in events if event == "syscalls:sys_enter_sendto")
    assert pingpong_pair(events, sends) == [1, 2], pingpong_pair(events, sends)
    assert len(trips) == 1, trips
    got = {k: round(v, 3) for k, v in steps(trips[0]).items()}
    want = {"send path": 3.0, "receive": 7.0, "kernel": 10.0, "wake-up": 4.0, "return": 2.0, "user level": 2.0,
            "one way": 18.0}
    assert got == want, got
    print("rtt-breakdown self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
