package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;

/**
 * What an AF_XDP shim obtained from the kernel ({@code nicshim_xdp_info_t}): how its program is attached, how its
 * socket is bound, and the socket's {@code XDP_STATISTICS}.
 *
 * @param attachMode   {@code NicShim.XDP_ATTACHED_*} (0 while stopped)
 * @param bindMode     {@code NicShim.XDP_BOUND_*} (0 while stopped)
 * @param queue        the queue id bound
 * @param programId    the XDP program's kernel id ({@code ip link} shows it)
 * @param chunkSize    UMEM chunk bytes
 * @param flags        {@code NicShim.XDP_INFO_*}
 * @param umemBase     host address of the UMEM
 * @param umemLength   UMEM bytes
 * @param rxDropped    frames the kernel dropped for want of a FILL chunk or a bad length
 * @param rxRingFull   frames dropped because RX was full
 * @param txInvalid    TX descriptors the kernel rejected
 */
public record XdpInfo(int attachMode, int bindMode, int queue, int programId, int chunkSize, int flags, long umemBase,
                      long umemLength, long rxDropped, long rxRingFull, long txInvalid) {

    public boolean running() {
        return (flags & NicShim.XDP_INFO_RUNNING) != 0;
    }

    /**
     * Whether the program was taken off the interface while the socket is open (someone detached its BPF link, or
     * deleted the interface): the interface's frames then go to the kernel's stack and the socket receives nothing.
     */
    public boolean detached() {
        return (flags & NicShim.XDP_INFO_DETACHED) != 0;
    }

    /** {@code native} (driver XDP) or {@code generic} (SKB mode), {@code -} while stopped. */
    public String attachText() {
        return switch (attachMode) {
            case NicShim.XDP_ATTACHED_NATIVE -> "native";
            case NicShim.XDP_ATTACHED_GENERIC -> "generic";
            default -> "-";
        };
    }

    /** {@code copy} or {@code zero-copy}, {@code -} while stopped. */
    public String bindText() {
        return switch (bindMode) {
            case NicShim.XDP_BOUND_COPY -> "copy";
            case NicShim.XDP_BOUND_ZEROCOPY -> "zero-copy";
            default -> "-";
        };
    }

    /** One line for run headers: {@code AF_XDP queue 0: native XDP (prog 42), copy mode, 2048 B chunks, busy poll}. */
    public String describe() {
        return "AF_XDP queue " + queue + ": " + attachText() + " XDP (prog " + programId + "), " + bindText()
            + " mode, UMEM " + umemLength / 1024 + " KiB in " + chunkSize + " B chunks"
            + ((flags & NicShim.XDP_INFO_BUSY_POLL) != 0 ? ", SO_BUSY_POLL on" : "")
            + (detached() ? ", PROGRAM DETACHED (the socket receives nothing)" : "");
    }
}
