package io.nicbridge.protocols.traditional;

import io.nicbridge.bridge.cost.HostCpu;

/**
 * The traditional protocol's extra operations, those the careful protocol omits (TR 94-14 Appendix A, "Traditional
 * Protocol (1418 cycles)"), each a {@link HostCpu.Operation} named {@code traditional.<the paper's name>} and
 * priced by the node's cost table ({@code op.traditional.<name>.ps-per-call}). Resolved once per core at setup; the
 * core charges each where it performs it, in a package method of its own that {@link TraditionalAppendixA} exposes
 * to the benchmarks which price it ({@code maintain-buffer-counter} has no code of its own: priced 0).
 */
final class TraditionalOperations {
    static final String PREFIX = "traditional.";
    /** The paper's operations in its order: send (7), then interrupt (9). */
    static final String[] NAMES = {
        "decide-ack-flag", "fill-fragment-descriptor", "set-ack-mask", "get-tx-event-slot",
        "push-fragment-descriptor", "collect-tx-buffers", "check-bitset",
        "maintain-buffer-counter", "fragment-priority", "check-copy-out", "implicit-ack", "check-fragment-number",
        "check-explicit-ack", "check-retransmission", "check-all-to-all", "check-complete"};

    final HostCpu.Operation decideAckFlag;
    final HostCpu.Operation fillFragmentDescriptor;
    final HostCpu.Operation setAckMask;
    final HostCpu.Operation getTxEventSlot;
    final HostCpu.Operation pushFragmentDescriptor;
    final HostCpu.Operation collectTxBuffers;
    final HostCpu.Operation checkBitset;
    final HostCpu.Operation maintainBufferCounter;
    final HostCpu.Operation fragmentPriority;
    final HostCpu.Operation checkCopyOut;
    final HostCpu.Operation implicitAck;
    final HostCpu.Operation checkFragmentNumber;
    final HostCpu.Operation checkExplicitAck;
    final HostCpu.Operation checkRetransmission;
    final HostCpu.Operation checkAllToAll;
    final HostCpu.Operation checkComplete;

    TraditionalOperations(HostCpu cpu) {
        decideAckFlag = cpu.operation(PREFIX + NAMES[0]);
        fillFragmentDescriptor = cpu.operation(PREFIX + NAMES[1]);
        setAckMask = cpu.operation(PREFIX + NAMES[2]);
        getTxEventSlot = cpu.operation(PREFIX + NAMES[3]);
        pushFragmentDescriptor = cpu.operation(PREFIX + NAMES[4]);
        collectTxBuffers = cpu.operation(PREFIX + NAMES[5]);
        checkBitset = cpu.operation(PREFIX + NAMES[6]);
        maintainBufferCounter = cpu.operation(PREFIX + NAMES[7]);
        fragmentPriority = cpu.operation(PREFIX + NAMES[8]);
        checkCopyOut = cpu.operation(PREFIX + NAMES[9]);
        implicitAck = cpu.operation(PREFIX + NAMES[10]);
        checkFragmentNumber = cpu.operation(PREFIX + NAMES[11]);
        checkExplicitAck = cpu.operation(PREFIX + NAMES[12]);
        checkRetransmission = cpu.operation(PREFIX + NAMES[13]);
        checkAllToAll = cpu.operation(PREFIX + NAMES[14]);
        checkComplete = cpu.operation(PREFIX + NAMES[15]);
    }

    /** @return the full operation names, {@code traditional.decide-ack-flag} ..., in the paper's order */
    static String[] fullNames() {
        String[] full = new String[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            full[i] = PREFIX + NAMES[i];
        }
        return full;
    }
}
