package io.nicbridge.bench.pupa.real;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.verdict.ExitCodes;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic pupa real-bandwidth}: {@link RealBandwidth}. */
@Command(name = "real-bandwidth", mixinStandardHelpOptions = true,
        description = "The paper's Figure 4 in real time: a one-way stream of messages per size, Pupa with per-message"
            + " and with sender-controlled ACKs on native-shim 21140s, beside kernel TCP (TCP_NODELAY) on the same veth"
            + " pair in the same run, with the pair's TSO/GSO/GRO off and on (ethtool); the target 'sender-controlled"
            + " >= 1.4x TCP at 4 KB with offloads off' and the paper's shape per size. Needs root and ethtool.")
public final class RealBandwidthCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST", description = "Message bytes, 8..16384 (default:"
        + " 64,128,256,512,1024,2048,4096,8192; --quick: 64,1024,4096).")
    int[] sizes;

    @Option(names = "--count", description = "Messages per stream (default: 100000, the paper's; --quick: 5000).")
    Long count;

    @Option(names = "--trials", description = "Trials per size and offload setting (default: 3; --quick: 3).")
    Integer trials;

    @Option(names = "--quick", description = "A short run (fewer sizes and messages).")
    boolean quick;

    @Option(names = "--transport", defaultValue = "afpacket", description = "How the shim cards move frames:"
        + " afpacket (PACKET_MMAP receive ring, send/sendmmsg) or afxdp (XSK rings; copy mode on a veth) (default:"
        + " ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--waits", defaultValue = "block", description = "How both stacks wait: block (Pupa in epoll"
        + " inside its cards, TCP in recv: the paper's way) or spin (Pupa polls its cards, TCP spins on"
        + " recv(MSG_DONTWAIT) with SO_BUSY_POLL) (default: ${DEFAULT-VALUE}).")
    String waits;

    @Option(names = "--offloads", defaultValue = "off,on", description = "The pair's TSO/GSO/GRO settings to run:"
        + " off, on or off,on (default: ${DEFAULT-VALUE}); the target is judged with them off.")
    String offloads;

    @Option(names = "--rx-steering", defaultValue = "none", description = "Where each end of the veth pair does its"
        + " receive processing, for all three stacks alike: none (the kernel's default: in the sender's transmit call, on"
        + " the sender's CPU; threads unpinned), rps (receive packet steering: end B's input on CPU 1 with the"
        + " receivers pinned there, end A's on CPU 0 with the senders) or none,rps (default: ${DEFAULT-VALUE}).")
    String rxSteering;

    @Option(names = "--accept-inconclusive", description = "Exit 0 instead of 3 when the target is INCONCLUSIVE.")
    boolean acceptInconclusive;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String missing = io.nicbridge.bench.real.RealLinks.missing();
        if (missing != null) {
            out.println("pupa real-bandwidth: cannot run here: " + missing);
            out.flush();
            return ExitCodes.USAGE;
        }
        return new RealBandwidth(out, sizes != null ? sizes : quick ? RealBandwidth.QUICK_SIZES
            : RealBandwidth.DEFAULT_SIZES, count != null ? count : quick ? 5_000 : 100_000,
            trials != null ? trials : 3, acceptInconclusive, RealLatencyCommand.transport(transport),
            RealBandwidth.offloadSettings(offloads), InterleavedTrials.spins(waits),
            RealBandwidth.RxSteering.parse(rxSteering)).run();
    }
}
