package io.nicbridge.sim.atm;

import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An N-port ATM cell switch in the style of the Fore ASX-200 of the U-Net cluster: every port has a TAXI fiber pair
 * to one station (an uplink the station transmits on, a downlink the switch transmits on), and every cell is
 * switched by its (input port, VPI, VCI) to (output port, VPI', VCI') with the header rewritten and its HEC
 * recomputed.
 *
 * <pre>
 *   station A --uplink A--&gt; [in FIFO A] --+                 +--&gt; downlink B --&gt; station B
 *                                        +-- route table --+
 *   station B --uplink B--&gt; [in FIFO B] --+  (port, VCI)    +--&gt; downlink A --&gt; station A
 * </pre>
 *
 * <p><b>Routes</b> are installed only by the {@link AtmNetworkService} (package-private {@link #route}), the
 * simulated operating-system service that sets up channels; stations cannot change them. A cell with a bad HEC is
 * discarded ({@link #hecDrops()}); one whose (port, VPI, VCI) has no route is discarded ({@link #unroutedDrops()});
 * one that finds its output downlink's queue full is discarded ({@link #overflowDrops()}). OAM and RM cells (PTI
 * 1xx) are switched like user cells.
 *
 * <p><b>Timing.</b> Store-and-forward per cell, no switching delay beyond the links: in virtual time a cell
 * crosses uplink (cell time + propagation) and then downlink (cell time + propagation).
 *
 * <p>The switch is a {@link DeviceModel}: uplinks deliver into per-port ingress FIFOs (safe from any thread) and
 * kick it; {@link #service()} forwards. Route entries are read with acquire and written with release, so a route
 * installed before a channel is used is seen by the switch's thread. Allocation-free after setup.
 */
public final class AtmSwitch implements DeviceModel {
    private static final Logger LOG = LoggerFactory.getLogger(AtmSwitch.class);
    /** VCIs 0..1023 are switchable (10 VCI bits, as on Fore's adapters). */
    public static final int VCI_SPACE = Sba200Unet.VCI_TABLE_ENTRIES;
    public static final int DEFAULT_INGRESS_CELLS = 4096;
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int ROUTE_VALID = 1 << 31;

    private final String name;
    private final TimeBase timeBase;
    private final int ports;
    private final long propagationNanos;
    private final int linkCapacity;
    private final FaultPlan[] downlinkFaults;
    private final FaultPlan[] uplinkFaults;
    private final FrameFifo[] ingress;
    private final CellLink[] downlinks;
    private final CellLink[] uplinks;
    /** [port * VCI_SPACE + vci] = VALID | outPort 30:24 | outVpi 23:16 | outVci 15:0 (outVci < 1024). */
    private final int[] routeOut;
    /** [port * VCI_SPACE + vci] = the VPI the route expects on input. */
    private final int[] routeInVpi;
    private final MemorySegment scratch = Arena.ofAuto().allocate(AtmCells.CELL_SIZE, 8);
    private WorkSignal signal;
    private int nextPort;
    private long switched;
    private long hecDrops;
    private long unroutedDrops;
    private long overflowDrops;

    private AtmSwitch(Builder b) {
        this.name = b.name;
        this.timeBase = b.timeBase;
        this.ports = b.ports;
        this.propagationNanos = b.propagationNanos;
        this.linkCapacity = b.linkCapacity;
        this.downlinkFaults = b.downlinkFaults;
        this.uplinkFaults = b.uplinkFaults;
        this.ingress = new FrameFifo[ports];
        this.downlinks = new CellLink[ports];
        this.uplinks = new CellLink[ports];
        this.routeOut = new int[ports * VCI_SPACE];
        this.routeInVpi = new int[ports * VCI_SPACE];
        for (int p = 0; p < ports; p++) {
            ingress[p] = new FrameFifo(b.ingressCells, AtmCells.CELL_SIZE);
        }
    }

    public static Builder builder(TimeBase timeBase) {
        return new Builder(timeBase);
    }

    /** Attaches the switch to its engine (setup, once). */
    public synchronized void attach(DeviceEngine engine) {
        if (signal != null) {
            throw new IllegalStateException("switch " + name + " is already attached to an engine");
        }
        if (engine.timeBase() != timeBase) {
            throw new IllegalArgumentException("switch " + name + " was built on another time base than engine "
                + engine.mode());
        }
        signal = engine.attach(this);
    }

    /**
     * Connects a station to the next free port: the switch transmits to {@code station} on a new downlink, and the
     * returned uplink is what the station transmits on.
     *
     * @throws IllegalStateException when every port is taken or the switch is not attached
     */
    public synchronized Port connect(CellSink station) {
        Objects.requireNonNull(station, "station");
        if (signal == null) {
            throw new IllegalStateException("attach switch " + name + " to an engine before connecting stations");
        }
        if (nextPort == ports) {
            throw new IllegalStateException("switch " + name + " has all " + ports + " ports connected");
        }
        int p = nextPort++;
        downlinks[p] = CellLink.builder(timeBase, station).name(name + ".down" + p)
            .propagationNanos(propagationNanos).capacity(linkCapacity).faults(downlinkFaults[p]).build();
        FrameFifo in = ingress[p];
        WorkSignal s = signal;
        CellSink intoSwitch = (cell, offset) -> {
            if (in.offer(cell, offset, AtmCells.CELL_SIZE) >= 0) {
                s.kick();
            }
        };
        uplinks[p] = CellLink.builder(timeBase, intoSwitch).name(name + ".up" + p)
            .propagationNanos(propagationNanos).capacity(linkCapacity).faults(uplinkFaults[p]).build();
        LOG.debug("switch {}: port {} connected", name, p);
        return new Port(p, uplinks[p], downlinks[p]);
    }

    /** A connected port: its number, the uplink the station transmits on and the downlink towards it. */
    public record Port(int number, CellLink uplink, CellLink downlink) {
    }

    /** Installs (port, vpi, vci) -&gt; (outPort, outVpi, outVci). Only the network service calls this. */
    void route(int inPort, int inVpi, int inVci, int outPort, int outVpi, int outVci) {
        checkPort(inPort);
        checkPort(outPort);
        checkVpiVci(inVpi, inVci);
        checkVpiVci(outVpi, outVci);
        int i = inPort * VCI_SPACE + inVci;
        INTS.setRelease(routeInVpi, i, inVpi);
        INTS.setRelease(routeOut, i, ROUTE_VALID | outPort << 24 | outVpi << 16 | outVci);
    }

    /** Removes the route of (port, vci). Only the network service calls this. */
    void unroute(int inPort, int inVci) {
        checkPort(inPort);
        checkVpiVci(0, inVci);
        INTS.setRelease(routeOut, inPort * VCI_SPACE + inVci, 0);
    }

    /**
     * @return the route of (inPort, vci) as {@code outPort << 24 | outVpi << 16 | outVci}, or -1 when none
     */
    public int routeOf(int inPort, int inVci) {
        checkPort(inPort);
        checkVpiVci(0, inVci);
        int r = (int) INTS.getAcquire(routeOut, inPort * VCI_SPACE + inVci);
        return (r & ROUTE_VALID) == 0 ? -1 : r & ~ROUTE_VALID;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int service() {
        int work = 0;
        for (int p = 0; p < ports; p++) {
            FrameFifo in = ingress[p];
            while (in.peekLength() >= 0) {
                forward(p, in.buffer(), in.peekOffset());
                in.release();
                work++;
            }
        }
        return work;
    }

    private void forward(int port, MemorySegment cell, long offset) {
        if (!AtmCells.hecOk(cell, offset)) {
            hecDrops++;
            return;
        }
        int header = AtmCells.readHeader(cell, offset);
        int vci = AtmCells.vci(header);
        if (vci >= VCI_SPACE) {
            unroutedDrops++;
            return;
        }
        int i = port * VCI_SPACE + vci;
        int r = (int) INTS.getAcquire(routeOut, i);
        if ((r & ROUTE_VALID) == 0 || (int) INTS.getAcquire(routeInVpi, i) != AtmCells.vpi(header)) {
            unroutedDrops++;
            return;
        }
        int outPort = (r >>> 24) & 0x7F;
        CellLink out = downlinks[outPort];
        if (out == null) {
            unroutedDrops++;
            return;
        }
        MemorySegment.copy(cell, offset, scratch, 0, AtmCells.CELL_SIZE);
        int rewritten = header & (Sba200Unet.HDR_GFC_MASK | Sba200Unet.HDR_PTI_MASK | Sba200Unet.HDR_CLP)
            | AtmCells.header((r >>> 16) & 0xFF, r & 0xFFFF, 0, 0);
        AtmCells.writeHeader(scratch, 0, rewritten);
        if (out.transmit(scratch, 0)) {
            switched++;
        } else {
            overflowDrops++;
        }
    }

    public int ports() {
        return ports;
    }

    /** @return the link the switch transmits on towards port {@code p} (null before a station connects) */
    public CellLink downlink(int p) {
        checkPort(p);
        return downlinks[p];
    }

    /** @return the link the station on port {@code p} transmits on (null before a station connects) */
    public CellLink uplink(int p) {
        checkPort(p);
        return uplinks[p];
    }

    /** Cells forwarded to an output link. */
    public long switched() {
        return switched;
    }

    public long hecDrops() {
        return hecDrops;
    }

    public long unroutedDrops() {
        return unroutedDrops;
    }

    public long overflowDrops() {
        return overflowDrops;
    }

    /** Cells lost because a port's ingress FIFO was full. */
    public long ingressOverflows() {
        long n = 0;
        for (FrameFifo f : ingress) {
            n += f.overflows();
        }
        return n;
    }

    private void checkPort(int p) {
        if (p < 0 || p >= ports) {
            throw new IllegalArgumentException("switch " + name + ": port must be 0.." + (ports - 1) + ", was " + p);
        }
    }

    private static void checkVpiVci(int vpi, int vci) {
        if (vpi < 0 || vpi > 0xFF) {
            throw new IllegalArgumentException("VPI must be 0..255, was " + vpi);
        }
        if (vci < 0 || vci >= VCI_SPACE) {
            throw new IllegalArgumentException("VCI must be 0.." + (VCI_SPACE - 1) + ", was " + vci);
        }
    }

    @Override
    public String toString() {
        return "AtmSwitch[" + name + ", " + ports + " ports]";
    }

    /** Setup of a switch. */
    public static final class Builder {
        private final TimeBase timeBase;
        private String name = "asx200";
        private int ports = 2;
        private long propagationNanos = CellLink.DEFAULT_PROPAGATION_NANOS;
        private int linkCapacity = CellLink.DEFAULT_CAPACITY;
        private int ingressCells = DEFAULT_INGRESS_CELLS;
        private FaultPlan[] downlinkFaults = faultsOf(2);
        private FaultPlan[] uplinkFaults = faultsOf(2);

        private Builder(TimeBase timeBase) {
            this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        }

        private static FaultPlan[] faultsOf(int n) {
            FaultPlan[] f = new FaultPlan[n];
            java.util.Arrays.fill(f, FaultPlan.NONE);
            return f;
        }

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Number of ports, 1..128 (resets per-port fault plans). */
        public Builder ports(int n) {
            if (n < 1 || n > 128) {
                throw new IllegalArgumentException("a switch has 1..128 ports, was " + n);
            }
            this.ports = n;
            this.downlinkFaults = faultsOf(n);
            this.uplinkFaults = faultsOf(n);
            return this;
        }

        /** One-way propagation of every fiber. */
        public Builder propagationNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("propagation must be >= 0 ns, was " + nanos);
            }
            this.propagationNanos = nanos;
            return this;
        }

        public Builder linkCapacity(int cells) {
            if (cells < 2 || Integer.bitCount(cells) != 1) {
                throw new IllegalArgumentException("link capacity must be a power of two >= 2, was " + cells);
            }
            this.linkCapacity = cells;
            return this;
        }

        public Builder ingressCells(int cells) {
            if (cells < 2 || Integer.bitCount(cells) != 1) {
                throw new IllegalArgumentException("ingress FIFO must be a power of two >= 2 cells, was " + cells);
            }
            this.ingressCells = cells;
            return this;
        }

        /** Cell faults on the fiber from the switch to port {@code p}. */
        public Builder downlinkFaults(int p, FaultPlan plan) {
            downlinkFaults[checked(p)] = Objects.requireNonNull(plan, "plan");
            return this;
        }

        /** Cell faults on the fiber from port {@code p}'s station to the switch. */
        public Builder uplinkFaults(int p, FaultPlan plan) {
            uplinkFaults[checked(p)] = Objects.requireNonNull(plan, "plan");
            return this;
        }

        private int checked(int p) {
            if (p < 0 || p >= ports) {
                throw new IllegalArgumentException("port must be 0.." + (ports - 1) + ", was " + p
                    + " (set ports() before per-port faults)");
            }
            return p;
        }

        public AtmSwitch build() {
            return new AtmSwitch(this);
        }
    }
}
