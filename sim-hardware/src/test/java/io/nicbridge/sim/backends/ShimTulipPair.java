package io.nicbridge.sim.backends;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntFunction;

/**
 * Two 21140s served by the native shim on the two ends of a fresh veth pair in two network namespaces (MTU 1600, so
 * a third station can put a frame longer than one 1536-byte receive buffer on the wire). {@link #inject} sends from a
 * plain Linux raw socket on the other end of the pair. Public for other modules' tests (sim-hardware's test-jar):
 * protocols runs its cores across this pair.
 */
public final class ShimTulipPair implements TulipPair {
    static final int MTU = 1600;

    private final VethPair veth;
    private final ShimCard[] cards = new ShimCard[2];
    private final TulipDriver[] drivers = new TulipDriver[2];
    private final RawPacketSocket[] injectors = new RawPacketSocket[2];
    private final Arena arena = Arena.ofShared();
    private final MemorySegment frame = arena.allocate(4096, 8);
    private final ShimStatistics stats = new ShimStatistics();
    private final String mode;

    /**
     * Skips the calling test, with the reason, where the shim cannot run (no library, no CAP_NET_RAW, no
     * namespaces); fails it instead under {@code NICBRIDGE_REQUIRE=net} (or {@code shim}).
     */
    public static void assumeAvailable() {
        TulipBackend.assumeShim();
    }

    /**
     * @param mode    the shim card mode, {@code "threaded"} or {@code "inline"}
     * @param configs driver configuration of card 0 and 1
     */
    public ShimTulipPair(String mode, IntFunction<TulipConfig> configs) {
        this(ShimBackendProvider.TARGET, mode, configs);
    }

    /**
     * @param target  the shim target, {@code "afpacket"} or {@code "afxdp"}
     * @param mode    the shim card mode, {@code "threaded"} or {@code "inline"}
     * @param configs driver configuration of card 0 and 1
     */
    public ShimTulipPair(String target, String mode, IntFunction<TulipConfig> configs) {
        this.mode = target + "/" + mode;
        try {
            this.veth = VethPair.builder().mtu(MTU).ipv4(false).create();
        } catch (java.io.IOException e) {
            arena.close();
            throw new IllegalStateException("cannot create a veth pair: " + e.getMessage(), e);
        }
        try {
            String[] ifs = {veth.interfaceA(), veth.interfaceB()};
            String[] nss = {veth.namespaceA().name(), veth.namespaceB().name()};
            for (int i = 0; i < 2; i++) {
                cards[i] = (ShimCard) Backends.open("shim:" + target + "?if=" + ifs[i] + "&card=dec21140&netns="
                    + nss[i] + "&mode=" + mode);
            }
            for (int i = 0; i < 2; i++) {
                drivers[i] = TulipDriver.open(cards[i], configs.apply(i));
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public TulipDriver driver(int i) {
        return drivers[i];
    }

    @Override
    public Card card(int i) {
        return cards[i];
    }

    ShimCard shimCard(int i) {
        return cards[i];
    }

    @Override
    public void plug(int i, boolean plugged) {
        try {
            veth.setUp(i != 0, plugged);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    VethPair veth() {
        return veth;
    }

    @Override
    public MacAddress mac(int i) {
        return i == 0 ? veth.macA() : veth.macB();
    }

    @Override
    public synchronized void inject(int i, byte[] bytes) {
        int from = 1 - i; // the other end of the pair: what it sends arrives at card i
        try {
            if (injectors[from] == null) {
                injectors[from] = RawPacketSocket.open(from == 0 ? veth.namespaceA() : veth.namespaceB(),
                    from == 0 ? veth.interfaceA() : veth.interfaceB());
            }
            MemorySegment.copy(bytes, 0, frame, ValueLayout.JAVA_BYTE, 0, bytes.length);
            if (injectors[from].send(frame, bytes.length) != bytes.length) {
                throw new AssertionError("the raw socket did not take the frame");
            }
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void idle() {
        if (cards[0].mode() == ShimCard.Mode.INLINE) {
            cards[0].progress().run();
            cards[1].progress().run();
        }
        Thread.yield();
    }

    @Override
    public long framesSeen(int i) {
        cards[i].shim().statistics(stats);
        return stats.rxFrames() + stats.rxMissed() + stats.rxDropFilter() + stats.rxDropTooLong();
    }

    @Override
    public long framesFiltered(int i) {
        return cards[i].shim().statistics(stats).rxDropFilter();
    }

    @Override
    public long busErrors(int i) {
        return cards[i].shim().statistics(stats).busErrors();
    }

    @Override
    public void close() {
        for (int i = 0; i < 2; i++) {
            if (drivers[i] != null) {
                drivers[i].close();
            }
            if (injectors[i] != null) {
                injectors[i].close();
            }
            if (cards[i] != null) {
                cards[i].close();
            }
        }
        veth.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "shim " + mode + " on " + veth;
    }
}
