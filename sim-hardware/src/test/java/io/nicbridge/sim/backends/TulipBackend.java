package io.nicbridge.sim.backends;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.util.function.IntFunction;

/** The backends that serve the 21140 contract, as test parameters. */
enum TulipBackend {
    EMU_INLINE {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            return new EmulatedTulipPair(EngineMode.INLINE, configs);
        }
    },
    EMU_THREADED {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            return new EmulatedTulipPair(EngineMode.THREADED, configs);
        }
    },
    /** The native shim with a card thread per card, over a veth pair. */
    SHIM_THREADED {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            assumeShim();
            return new ShimTulipPair("threaded", configs);
        }
    },
    /** The native shim with the card work on the driver's threads: needs interrupt-driven drivers. */
    SHIM_INLINE {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            assumeShim();
            return new ShimTulipPair("inline", configs);
        }

        @Override
        boolean needsInterruptDriver() {
            return true;
        }
    },
    /** The native shim over AF_XDP (shim:afxdp), a card thread per card. */
    SHIM_AFXDP_THREADED {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            assumeXdp();
            return new ShimTulipPair(ShimBackendProvider.TARGET_AF_XDP, "threaded", configs);
        }
    },
    /** The native shim over AF_XDP with the card work on the driver's threads. */
    SHIM_AFXDP_INLINE {
        @Override
        TulipPair open(IntFunction<TulipConfig> configs) {
            assumeXdp();
            return new ShimTulipPair(ShimBackendProvider.TARGET_AF_XDP, "inline", configs);
        }

        @Override
        boolean needsInterruptDriver() {
            return true;
        }
    };

    abstract TulipPair open(IntFunction<TulipConfig> configs);

    /** Whether frames move only while a thread waits on the interrupt line (no polling drivers). */
    boolean needsInterruptDriver() {
        return false;
    }

    /** Skips the test, with the reason, where the shim cannot run: no library, no CAP_NET_RAW, no namespaces. */
    static void assumeShim() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
    }

    /** {@link #assumeShim()}, plus what AF_XDP needs (the map and the program: root). */
    static void assumeXdp() {
        assumeShim();
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
    }
}
