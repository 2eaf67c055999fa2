package io.nicbridge.sim.atm;

import java.util.BitSet;
import java.util.Objects;
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
     * @throws IllegalStateException when a port has no free VCI left
     */
    public synchronized AtmPath connect(int portA, int portB) {
        checkPort(portA);
        checkPort(portB);
        int aTx = allocate(portA);
        int bRx = allocate(portB);
        int bTx = allocate(portB);
        int aRx = allocate(portA);
        sw.route(portA, 0, aTx, portB, 0, bRx);
        sw.route(portB, 0, bTx, portA, 0, aRx);
        AtmPath path = new AtmPath(0, portA, aTx, aRx, portB, bTx, bRx);
        LOG.debug("{}: path {}", sw.name(), path);
        return path;
    }

    /** Removes both directions of {@code path} and frees its VCIs. */
    public synchronized void disconnect(AtmPath path) {
        Objects.requireNonNull(path, "path");
        sw.unroute(path.portA(), path.aTxVci());
        sw.unroute(path.portB(), path.bTxVci());
        used[path.portA()].clear(path.aTxVci());
        used[path.portA()].clear(path.aRxVci());
        used[path.portB()].clear(path.bTxVci());
        used[path.portB()].clear(path.bRxVci());
    }

    private int allocate(int port) {
        int v = used[port].nextClearBit(FIRST_VCI);
        if (v >= AtmSwitch.VCI_SPACE) {
            throw new IllegalStateException("switch " + sw.name() + ": port " + port + " has no free VCI");
        }
        used[port].set(v);
        return v;
    }

    private void checkPort(int p) {
        if (p < 0 || p >= sw.ports()) {
            throw new IllegalArgumentException("port must be 0.." + (sw.ports() - 1) + ", was " + p);
        }
    }
}
