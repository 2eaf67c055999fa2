package io.nicbridge.sim.atm;

import java.util.BitSet;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated operating-system service that manages the ATM network's tags (U-Net paper section 3.2: route
 * discovery, switch-path setup, authorisation): the only code that programs the {@link AtmSwitch}. It allocates
 * VCIs per port (never the reserved 0..31) so that no two channels share a tag on a fiber, installs both
 * directions' translations, and tears them down. Channel registration with the cards (CH_OPEN) is done by the
 * kernel drivers that asked for the path ({@link io.nicbridge.bridge.driver.unet.UnetKernelDriver#connect}, through
 * {@link io.nicbridge.sim.sba200.Sba200Network}, the network's {@link io.nicbridge.bridge.driver.unet.UnetSignalling}).
 * Setup-time; thread-safe.
 */
public final class AtmNetworkService {
    private static final Logger LOG = LoggerFactory.getLogger(AtmNetworkService.class);
    public static final int FIRST_VCI = io.nicbridge.contract.Sba200Unet.VCI_FIRST_USER;

    private final AtmSwitch sw;
    /** Per port: VCIs in use on that port's fibers (either direction). */
    private final BitSet[] used;
    /** The paths set up and not yet disconnected. */
    private final Set<AtmPath> live = new HashSet<>();

    public AtmNetworkService(AtmSwitch sw) {
        this.sw = Objects.requireNonNull(sw, "switch");
        this.used = new BitSet[sw.ports()];
        for (int p = 0; p < used.length; p++) {
            used[p] = new BitSet(AtmSwitch.VCI_SPACE);
            used[p].set(0, FIRST_VCI);
        }
    }

    public AtmSwitch atmSwitch() {
        return sw;
    }

    /**
     * Sets up a duplex path between the stations on {@code portA} and {@code portB} (equal ports give a loop
     * through the switch) on VPI 0.
     *
     * @throws IllegalStateException when a port has no free VCI left (then nothing was taken)
     */
    public synchronized AtmPath connect(int portA, int portB) {
        checkPort(portA);
        checkPort(portB);
        // All four VCIs or none: a refusal half way must not leave VCIs that no path owns.
        int aTx = allocate(portA);
        int bRx = allocate(portB, aTx);
        int bTx = allocate(portB, aTx, bRx);
        int aRx = allocate(portA, aTx, bRx, bTx);
        AtmPath path = new AtmPath(0, portA, aTx, aRx, portB, bTx, bRx);
        markUsed(path, true);
        sw.route(portA, 0, aTx, portB, 0, bRx);
        sw.route(portB, 0, bTx, portA, 0, aRx);
        live.add(path);
        LOG.debug("{}: path {}", sw.name(), path);
        return path;
    }

    /**
     * Removes both directions of {@code path} and frees its VCIs.
     *
     * @throws IllegalArgumentException when {@code path} is not connected (never was, or was disconnected already:
     *                                  its VCIs may belong to another path by now, whose routes must stay)
     */
    public synchronized void disconnect(AtmPath path) {
        Objects.requireNonNull(path, "path");
        if (!live.remove(path)) {
            throw new IllegalArgumentException("switch " + sw.name() + ": path " + path + " is not connected");
        }
        sw.unroute(path.portA(), path.aTxVci());
        sw.unroute(path.portB(), path.bTxVci());
        markUsed(path, false);
    }

    private void markUsed(AtmPath path, boolean inUse) {
        used[path.portA()].set(path.aTxVci(), inUse);
        used[path.portA()].set(path.aRxVci(), inUse);
        used[path.portB()].set(path.bTxVci(), inUse);
        used[path.portB()].set(path.bRxVci(), inUse);
    }

    /**
     * The lowest free VCI of {@code port} other than {@code taken} (VCIs this set-up already chose, not yet marked:
     * with equal ports they are on the same fibers).
     */
    private int allocate(int port, int... taken) {
        int v = used[port].nextClearBit(FIRST_VCI);
        while (contains(taken, v)) {
            v = used[port].nextClearBit(v + 1);
        }
        if (v >= AtmSwitch.VCI_SPACE) {
            throw new IllegalStateException("switch " + sw.name() + ": port " + port + " has no free VCI");
        }
        return v;
    }

    private static boolean contains(int[] values, int v) {
        for (int x : values) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    private void checkPort(int p) {
        if (p < 0 || p >= sw.ports()) {
            throw new IllegalArgumentException("port must be 0.." + (sw.ports() - 1) + ", was " + p);
        }
    }
}
