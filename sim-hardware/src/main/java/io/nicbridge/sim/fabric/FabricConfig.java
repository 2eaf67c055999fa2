package io.nicbridge.sim.fabric;

/**
 * Router, link and NI parameters of a {@link Network}. Immutable; change one field with the {@code with...}
 * methods, starting from {@link #defaults()}.
 *
 * <p>Virtual channels: every port has {@code 2 * vcsPerClass} VCs. VCs {@code [0, vcsPerClass)} carry the
 * request logical network, {@code [vcsPerClass, 2 * vcsPerClass)} the reply network: the two logical networks are
 * demand-multiplexed over the same physical links (as the NIFDY paper does on all its networks but the CM-5).
 * On tori each class is split again into two dateline halves, so tori need an even {@code vcsPerClass >= 2}.
 *
 * @param vcsPerClass        virtual channels per message class per port (1 to 32: at most 64 VCs per port)
 * @param bufferDepth        flits of buffer per VC at every router input and NI ejection port (>= 1)
 * @param linkLatency        cycles from a flit leaving a switch (or the NI) to its arrival in the next buffer;
 *                           also the credit return latency (>= 1)
 * @param routerDelay        pipeline depth: a flit is eligible for switch traversal {@code routerDelay} cycles
 *                           after it arrived in an input buffer (>= 0); zero-load latency per hop is
 *                           {@code linkLatency + routerDelay}
 * @param cyclesPerFlit      link serialization: a port sends one flit every {@code cyclesPerFlit} cycles
 *                           (flitBits / link bits per cycle; 2 for the CM-5's 4-bit links with byte flits)
 * @param flitBits           flit width in bits; only used to convert payload bytes to flits ({@link #flitsFor})
 * @param switching          wormhole, virtual cut-through or store-and-forward
 * @param discipline         buffered (lossless) or drop-when-blocked
 * @param dropTimeoutCycles  drop mode: cycles a head may stay blocked after becoming eligible (0 = drop on the
 *                           first cycle it cannot advance)
 * @param checksumFlit       drop mode: append one checksum flit to every packet
 * @param injectQueuePackets capacity of each node's NI send queue per class, in packets
 * @param processor          processor overheads used by {@link NodePort#send}
 * @param timeMultiplexedClasses the CM-5 way of sharing links between the two logical networks: requests may
 *                           cross a link only on even cycles and replies only on odd cycles, whatever the other
 *                           network's load, so a flit of either class takes {@code 2 * cyclesPerFlit} cycles
 *                           (the NIFDY paper's CM-5 fat tree). Off: demand-multiplexed VCs.
 * @param allocator          how routers allocate output VCs and the switch ({@link Allocator}); the default is
 *                           separable input-first with round-robin arbiters
 */
public record FabricConfig(int vcsPerClass, int bufferDepth, int linkLatency, int routerDelay, int cyclesPerFlit,
                           int flitBits, Switching switching, Discipline discipline, int dropTimeoutCycles,
                           boolean checksumFlit, int injectQueuePackets, ProcessorModel processor,
                           boolean timeMultiplexedClasses, Allocator allocator) {

    /** Separable input-first allocation with round-robin arbiters. */
    public FabricConfig(int vcsPerClass, int bufferDepth, int linkLatency, int routerDelay, int cyclesPerFlit,
                        int flitBits, Switching switching, Discipline discipline, int dropTimeoutCycles,
                        boolean checksumFlit, int injectQueuePackets, ProcessorModel processor,
                        boolean timeMultiplexedClasses) {
        this(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits, switching, discipline,
            dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses,
            Allocator.SEPARABLE_INPUT_FIRST);
    }

    /** Demand-multiplexed request/reply networks (the common case). */
    public FabricConfig(int vcsPerClass, int bufferDepth, int linkLatency, int routerDelay, int cyclesPerFlit,
                        int flitBits, Switching switching, Discipline discipline, int dropTimeoutCycles,
                        boolean checksumFlit, int injectQueuePackets, ProcessorModel processor) {
        this(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits, switching, discipline,
            dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, false);
    }

    public FabricConfig {
        // at most 64 VCs per port: the router keeps a port's occupied VCs in one 64-bit word
        require(vcsPerClass >= 1 && vcsPerClass <= 32, "vcsPerClass must be in [1, 32]", vcsPerClass);
        require(bufferDepth >= 1 && bufferDepth <= 1 << 16, "bufferDepth must be in [1, 65536]", bufferDepth);
        require(linkLatency >= 1 && linkLatency <= 1 << 16, "linkLatency must be in [1, 65536]", linkLatency);
        require(routerDelay >= 0 && routerDelay <= 1 << 16, "routerDelay must be in [0, 65536]", routerDelay);
        require(cyclesPerFlit >= 1 && cyclesPerFlit <= 1 << 10, "cyclesPerFlit must be in [1, 1024]", cyclesPerFlit);
        require(flitBits >= 1, "flitBits must be >= 1", flitBits);
        require(dropTimeoutCycles >= 0, "dropTimeoutCycles must be >= 0", dropTimeoutCycles);
        require(injectQueuePackets >= 1, "injectQueuePackets must be >= 1", injectQueuePackets);
        if (switching == null || discipline == null || processor == null || allocator == null) {
            throw new IllegalArgumentException("switching, discipline, processor and allocator must not be null");
        }
    }

    private static void require(boolean ok, String what, long value) {
        if (!ok) {
            throw new IllegalArgumentException(what + ", got " + value);
        }
    }

    /**
     * Wormhole, buffered, 1 VC per class, 4-flit buffers, 1-cycle links, 1-cycle routers, 32-bit flits,
     * 16-packet NI queues, free processor.
     */
    public static FabricConfig defaults() {
        return new FabricConfig(1, 4, 1, 1, 1, 32, Switching.WORMHOLE, Discipline.BUFFERED, 0, true, 16,
            ProcessorModel.FREE);
    }

    /** Number of VCs per port: two message classes (request, reply). */
    public int vcsPerPort() {
        return 2 * vcsPerClass;
    }

    /** Flits needed to carry {@code bytes} of payload at this flit width (at least one). */
    public int flitsFor(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        return Math.max(1, (int) (((long) bytes * 8 + flitBits - 1) / flitBits));
    }

    /** Flits a packet occupies in the network: payload flits plus the checksum flit in drop mode. */
    public int networkFlits(int payloadFlits) {
        return payloadFlits + (discipline == Discipline.DROP_WHEN_BLOCKED && checksumFlit ? 1 : 0);
    }

    public FabricConfig withVcsPerClass(int v) {
        return new FabricConfig(v, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withBufferDepth(int v) {
        return new FabricConfig(vcsPerClass, v, linkLatency, routerDelay, cyclesPerFlit, flitBits, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withLinkLatency(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, v, routerDelay, cyclesPerFlit, flitBits, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withRouterDelay(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, v, cyclesPerFlit, flitBits, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withCyclesPerFlit(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, v, flitBits, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withFlitBits(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, v, switching,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withSwitching(Switching v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits, v,
            discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withDiscipline(Discipline v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, v, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withDropTimeoutCycles(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, v, checksumFlit, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withChecksumFlit(boolean v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, dropTimeoutCycles, v, injectQueuePackets, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withInjectQueuePackets(int v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, dropTimeoutCycles, checksumFlit, v, processor, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withProcessor(ProcessorModel v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, v, timeMultiplexedClasses, allocator);
    }

    public FabricConfig withTimeMultiplexedClasses(boolean v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor, v, allocator);
    }

    public FabricConfig withAllocator(Allocator v) {
        return new FabricConfig(vcsPerClass, bufferDepth, linkLatency, routerDelay, cyclesPerFlit, flitBits,
            switching, discipline, dropTimeoutCycles, checksumFlit, injectQueuePackets, processor,
            timeMultiplexedClasses, v);
    }
}
