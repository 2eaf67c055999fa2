package io.nicbridge.bench.pupa;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.pupa.PupaOperations;
import java.util.List;

/**
 * A node's host work so far, in picoseconds, split into the paper's Table 2 components (Chiueh and Verma section
 * 3.1), read off its {@link HostCpu}: the Pupa operations by {@link PupaOperations#PROTOCOL} and
 * {@link PupaOperations#BUFFER_AND_HEADER}; {@link CostItem#COPY} as data copy; the runner's dispatch and timers and
 * the framing's descriptors and lookups as OS and driver overhead (a software checksum, off in the paper's setup,
 * as protocol processing); the interrupt apart, because the paper counts "the time taken by the Ethernet card at the
 * receiver to interrupt the CPU, the context switch overhead and the time to invoke the interrupt handler" as
 * transmission and DMA. The difference of two snapshots is the work between them.
 */
final class HostWork {
    static final int PROTOCOL = 0;
    static final int DRIVER = 1;
    static final int COPY = 2;
    static final int BUFFER_AND_HEADER = 3;
    static final int INTERRUPT = 4;
    static final int PARTS = 5;
    /** The host components' names, in Table 2's order (transmission and DMA comes from the clock, not a CPU). */
    static final List<String> HOST_NAMES = List.of("protocol processing", "OS and driver overhead", "data copy",
            "buffer and header management");

    private final HostCpu cpu;
    private final HostCpu.Operation[] protocol;
    private final HostCpu.Operation[] bufferAndHeader;

    /** @throws IllegalArgumentException when the CPU's table does not price a Pupa operation */
    HostWork(HostCpu cpu) {
        this.cpu = cpu;
        protocol = operations(cpu, PupaOperations.PROTOCOL);
        bufferAndHeader = operations(cpu, PupaOperations.BUFFER_AND_HEADER);
    }

    private static HostCpu.Operation[] operations(HostCpu cpu, List<String> names) {
        HostCpu.Operation[] ops = new HostCpu.Operation[names.size()];
        for (int i = 0; i < ops.length; i++) {
            ops[i] = cpu.operation(names.get(i));
        }
        return ops;
    }

    /** Writes the work so far, per component, into {@code into[PARTS]}. */
    void snapshot(long[] into) {
        into[PROTOCOL] = sum(protocol) + cpu.picos(CostItem.CHECKSUM);
        into[DRIVER] = cpu.picos(CostItem.HANDLER_DISPATCH) + cpu.picos(CostItem.TIMER_ARM)
                + cpu.picos(CostItem.TIMER_CANCEL) + cpu.picos(CostItem.TABLE_LOOKUP)
                + cpu.picos(CostItem.DESCRIPTOR_POST) + cpu.picos(CostItem.DESCRIPTOR_RECLAIM)
                + cpu.picos(CostItem.PIO_WORD);
        into[COPY] = cpu.picos(CostItem.COPY);
        into[BUFFER_AND_HEADER] = sum(bufferAndHeader);
        into[INTERRUPT] = cpu.picos(CostItem.INTERRUPT);
    }

    private static long sum(HostCpu.Operation[] ops) {
        long s = 0;
        for (HostCpu.Operation op : ops) {
            s += op.calls() * op.picosPerCall();
        }
        return s;
    }

    /** @return every part of {@code a} (all of the CPU's work, as every item and operation is in one part) */
    static long total(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }
}
