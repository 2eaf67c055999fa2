package io.nicbridge.sim.misuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.unet.UnetFramePort;
import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.BusErrorException;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.ShimException;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.contract.Dec21140;
import io.nicbridge.contract.Medusa;
import io.nicbridge.contract.NicShim;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import io.nicbridge.sim.testbed.TulipTestbed;
import io.nicbridge.sim.testbed.UnetApiTestbed;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Misuse fuzzing over the public API: the {@link FramePort} of every driver (loopback, Tulip, Medusa, U-Net, Tulip
 * on the native shim), the Tulip- and Medusa-specific calls, {@link DmaSpace} and {@link ShimCard}: random sequences of
 * valid and invalid calls (out-of-range handles and lengths, double release, commit without claim), calls after close
 * and a close from another thread in the middle of traffic. Asserted: only the documented exceptions, counters that
 * match the accepted operations, valid traffic still flowing after every rejected call, and no JVM crash.
 *
 * <p>The default run is short ({@value #DEFAULT_STEPS} calls per port, a few seconds); {@code
 * -Dnicbridge.misuse.steps=N} sets the calls per port and {@code -Dnicbridge.misuse.seed=S} replays one seed, e.g.
 * {@code ./mvnw -B -pl sim-hardware -am verify -Dtest=MisuseFuzzTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dnicbridge.jvm.args="--enable-native-access=ALL-UNNAMED -Dnicbridge.misuse.steps=200000"}. Failures name the seed.
 */
class MisuseFuzzTest {
    static final int DEFAULT_STEPS = 3_000;
    static final int STEPS = Integer.getInteger("nicbridge.misuse.steps", DEFAULT_STEPS);
    static final long SEED = Long.getLong("nicbridge.misuse.seed", System.nanoTime());
    static final byte[] BROADCAST = {-1, -1, -1, -1, -1, -1};

    /** Ethernet: broadcast destination, a locally administered source, the sequence number after the EtherType. */
    static final FramePortFuzzer.Framing ETHERNET = new FramePortFuzzer.Framing() {
        @Override
        public void header(MemorySegment b) {
            MemorySegment.copy(BROADCAST, 0, b, ValueLayout.JAVA_BYTE, 0, 6);
            for (int i = 6; i < 12; i++) {
                b.set(ValueLayout.JAVA_BYTE, i, (byte) 2);
            }
            b.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, (short) 0x88B6);
        }

        @Override
        public int seqOffset() {
            return 14;
        }

        @Override
        public int minLength() {
            return 60;
        }
    };

    /** No header: loopback and U-Net ports carry the bytes as they are. */
    static final FramePortFuzzer.Framing RAW = new FramePortFuzzer.Framing() {
        @Override
        public void header(MemorySegment b) {
        }

        @Override
        public int seqOffset() {
            return 0;
        }

        @Override
        public int minLength() {
            return 4;
        }
    };

    /** FDDI: FC (LLC), DA = broadcast, SA, then the sequence number. */
    static final FramePortFuzzer.Framing FDDI = new FramePortFuzzer.Framing() {
        @Override
        public void header(MemorySegment b) {
            b.set(ValueLayout.JAVA_BYTE, 0, (byte) Medusa.FC_LLC_ASYNC_DEFAULT);
            MemorySegment.copy(BROADCAST, 0, b, ValueLayout.JAVA_BYTE, 1, 6);
            for (int i = 7; i < 13; i++) {
                b.set(ValueLayout.JAVA_BYTE, i, (byte) 2);
            }
        }

        @Override
        public int seqOffset() {
            return 13;
        }

        @Override
        public int minLength() {
            return 17;
        }
    };

    private static String seedText(long seed) {
        return " [replay with -Dnicbridge.misuse.seed=" + seed + "]";
    }

    private static void fuzz(String name, FramePort tx, FramePort rx, FramePortFuzzer.Framing framing, long seed)
            throws InterruptedException {
        try {
            FramePortFuzzer f = new FramePortFuzzer(name, tx, rx, framing, new Random(seed));
            f.run(STEPS);
            assertTrue(f.rejected() > STEPS / 10, name + ": the fuzz rejected too few calls to mean anything");
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(name + seedText(seed) + ": " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ FramePort of every driver

    @Test
    void loopbackPort() throws Exception {
        try (CommSegment comm = CommSegment.allocate("fuzz loopback", LoopbackFramePort.requiredBytes(16, 256))) {
            LoopbackFramePort.Pair pair = LoopbackFramePort.pair("fuzz", comm, 16, 256);
            fuzz("loopback", pair.a(), pair.b(), RAW, SEED);
            fuzz("loopback back", pair.b(), pair.a(), RAW, SEED + 1);
            pair.close();
            FramePortFuzzer.checkClosed("loopback", pair.a(), 20);
        }
    }

    @Test
    void tulipPortOnThreadedEmulatedCards() throws Exception {
        for (TulipConfig.InterruptMode mode : TulipConfig.InterruptMode.values()) {
            try (TulipTestbed bed = tulipBed(mode)) {
                fuzz("tulip " + mode, bed.driver(0), bed.driver(1), ETHERNET, SEED);
                tulipSpecificMisuse(bed.driver(0));
                bed.driver(0).close();
                FramePortFuzzer.checkClosed("tulip", bed.driver(0), 40);
            }
        }
    }

    @Test
    void medusaPortOnThreadedEmulatedCards() throws Exception {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.THREADED, 1)) {
            MedusaCard ca = bed.medusa("fuzz-a", bed.fddiRing("ring"), "02:00:00:00:00:0a");
            MedusaCard cb = bed.medusa("fuzz-b", bed.fddiRing("ring"), "02:00:00:00:00:0b");
            try (MedusaDriver a = MedusaDriver.open(ca, medusa(0x02_00_00_00_00_0AL));
                 MedusaDriver b = MedusaDriver.open(cb, medusa(0x02_00_00_00_00_0BL))) {
                awaitRing(a, b);
                fuzz("medusa", a, b, FDDI, SEED);
                medusaSpecificMisuse(a, b);
                a.close();
                FramePortFuzzer.checkClosed("medusa", a, 130);
            }
        }
    }

    @Test
    void unetFramePortOnThreadedEmulatedSba200s() throws Exception {
        try (UnetApiTestbed bed = UnetApiTestbed.builder(EngineMode.THREADED).build()) {
            UnetFramePort a = new UnetFramePort("fuzz-a", bed.kernelA(), bed.a(), UnetApiTestbed.CHANNEL, 0, 1024, 8,
                16, 8);
            UnetFramePort b = new UnetFramePort("fuzz-b", bed.kernelB(), bed.b(), UnetApiTestbed.CHANNEL, 0, 1024, 8,
                16, 8);
            fuzz("u-net", a, b, RAW, SEED);
            a.close();
            FramePortFuzzer.checkClosed("u-net", a, 20);
            b.close();
        }
    }

    @Test
    void tulipPortOnTheNativeShimOverVeth() throws Exception {
        assumeShimAndVeth();
        try (VethPair veth = VethPair.builder().ipv4(false).create()) {
            ShimCard ca = shimCard(veth, true);
            ShimCard cb = shimCard(veth, false);
            try (TulipDriver a = TulipDriver.open(ca, TulipConfig.defaults());
                 TulipDriver b = TulipDriver.open(cb, TulipConfig.defaults())) {
                assertTrue(a.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(5), null));
                assertTrue(b.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(5), null));
                fuzz("tulip on shim", a, b, ETHERNET, SEED);
                tulipSpecificMisuse(a);
                shimCardMisuse(ca, new Random(SEED));
                closeUnderTraffic("tulip on shim", a, b, b, ETHERNET, new Random(SEED));
            } finally {
                ca.close();
                cb.close();
            }
        }
    }

    // ------------------------------------------------------------------ a close from another thread

    @Test
    void closeFromAnotherThreadInTheMiddleOfTraffic() throws Exception {
        Random random = new Random(SEED);
        int rounds = Math.max(4, STEPS / 1000);
        for (int round = 0; round < rounds; round++) {
            try (TulipTestbed bed = tulipBed(round % 2 == 0 ? TulipConfig.InterruptMode.INTERRUPT
                    : TulipConfig.InterruptMode.POLLING)) {
                TulipDriver a = bed.driver(0);
                TulipDriver b = bed.driver(1);
                closeUnderTraffic("tulip round " + round, a, b, random.nextBoolean() ? a : b, ETHERNET, random);
            }
            try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.THREADED, round)) {
                MedusaCard ca = bed.medusa("fuzz-a", bed.fddiRing("ring"), "02:00:00:00:00:0a");
                MedusaCard cb = bed.medusa("fuzz-b", bed.fddiRing("ring"), "02:00:00:00:00:0b");
                try (MedusaDriver a = MedusaDriver.open(ca, medusa(0x02_00_00_00_00_0AL));
                     MedusaDriver b = MedusaDriver.open(cb, medusa(0x02_00_00_00_00_0BL))) {
                    awaitRing(a, b);
                    closeUnderTraffic("medusa round " + round, a, b, random.nextBoolean() ? a : b, FDDI, random);
                }
            }
            try (CommSegment comm = CommSegment.allocate("fuzz loopback", LoopbackFramePort.requiredBytes(16, 256))) {
                LoopbackFramePort.Pair pair = LoopbackFramePort.pair("fuzz", comm, 16, 256);
                closeUnderTraffic("loopback round " + round, pair.a(), pair.b(),
                    random.nextBoolean() ? pair.a() : pair.b(), RAW, random);
            }
        }
    }

    /**
     * A sender and a receiver run valid traffic while a third thread closes {@code victim}: every call returns
     * normally or throws IllegalStateException, both threads end, and afterwards the victim refuses everything.
     */
    private static void closeUnderTraffic(String name, FramePort tx, FramePort rx, FramePort victim,
                                          FramePortFuzzer.Framing framing, Random random) throws Exception {
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicLong sent = new AtomicLong();
        Thread sender = Thread.ofPlatform().name("sender").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    int h = tx.claim();
                    if (h == FramePort.NONE) {
                        LockSupport.parkNanos(20_000);
                        continue;
                    }
                    MemorySegment buffer = tx.txBuffer(h);
                    framing.header(buffer);
                    tx.commit(h, Math.min(tx.maxFrameLength(), framing.minLength() + (int) (sent.get() % 1000)));
                    sent.incrementAndGet();
                }
            } catch (IllegalStateException closed) {
                // documented
            } catch (Throwable t) {
                unexpected.add(t);
            }
        });
        Thread receiver = Thread.ofPlatform().name("receiver").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    int h = rx.await(5, TimeUnit.MILLISECONDS);
                    if (h != FramePort.NONE) {
                        rx.rxBuffer(h).get(ValueLayout.JAVA_BYTE, rx.rxLength(h) - 1);
                        rx.release(h);
                    }
                }
            } catch (IllegalStateException | InterruptedException closed) {
                // documented
            } catch (Throwable t) {
                unexpected.add(t);
            }
        });
        long started = System.nanoTime();
        while (sent.get() == 0 && unexpected.isEmpty() && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5)) {
            Thread.sleep(1); // a loaded machine may take a while to schedule the sender: close under traffic
        }
        Thread.sleep(random.nextInt(30));
        Thread closer = Thread.ofPlatform().name("closer").start(victim::close);
        closer.join(10_000);
        assertFalse(closer.isAlive(), name + ": close returned");
        sender.interrupt();
        receiver.interrupt();
        sender.join(10_000);
        receiver.join(10_000);
        assertFalse(sender.isAlive() || receiver.isAlive(), name + ": both threads ended");
        if (!unexpected.isEmpty()) {
            AssertionError e = new AssertionError(name + seedText(SEED) + ": undocumented exceptions");
            unexpected.forEach(e::addSuppressed);
            throw e;
        }
        assertTrue(sent.get() > 0, name + ": traffic ran before the close");
        FramePortFuzzer.checkClosed(name, victim, 40);
    }

    // ------------------------------------------------------------------ driver-specific calls

    private static void tulipSpecificMisuse(TulipDriver d) throws InterruptedException {
        assertThrows(NullPointerException.class, () -> d.setReceiveFilter(null, false, false));
        assertThrows(IllegalStateException.class, () -> d.rxDescriptorStatus(-1));
        assertThrows(IllegalStateException.class, () -> d.rxDescriptorStatus(1 << 20));
        assertTrue(d.awaitFilterLoaded(-1, null) || !d.isFilterLoaded(), "a negative timeout looks once");
        assertEquals(FramePort.NONE, d.await(-5, TimeUnit.SECONDS), "a negative timeout looks once");
        if (d.config().interruptMode() == TulipConfig.InterruptMode.POLLING) {
            assertThrows(IllegalStateException.class, () -> d.onInterrupt((driver, csr5) -> { }));
        }
        // a frame still goes out after all of it
        int h = d.claim();
        ETHERNET.header(d.txBuffer(h));
        d.commit(h, 64);
    }

    private static void medusaSpecificMisuse(MedusaDriver a, MedusaDriver b) throws InterruptedException {
        MemorySegment small = MemorySegment.ofArray(new byte[16]);
        long tx0 = a.counters().txFrames();
        assertThrows(IllegalArgumentException.class, () -> a.send(1L << 48, 0x50, small, 0, 4, small, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> a.send(MedusaDriver.BROADCAST, 0x150, small, 0, 4, small,
            0, 4));
        assertThrows(IllegalArgumentException.class, () -> a.send(MedusaDriver.BROADCAST, 0x50, small, 8, 16, small,
            0, 4));
        assertThrows(IllegalArgumentException.class, () -> a.send(MedusaDriver.BROADCAST, 0x50, small, 0, 4, small,
            -1, 4));
        assertThrows(IllegalArgumentException.class, () -> a.send(MedusaDriver.BROADCAST, 0x50, small, 0, -4, small,
            0, 4));
        assertEquals(tx0, a.counters().txFrames(), "rejected sends send nothing");
        for (int h : new int[] {-1, 128, 1 << 20, 40}) {
            assertThrows(IllegalStateException.class, () -> b.forward(h, MedusaDriver.BROADCAST));
            assertThrows(IllegalStateException.class, () -> b.copyOut(h, 0, small, 0, 4));
            assertThrows(IllegalStateException.class, () -> b.rxSource(h));
            assertThrows(IllegalStateException.class, () -> b.rxChecksum(h));
        }
        int sum = a.send(MedusaDriver.BROADCAST, Medusa.FC_LLC_ASYNC_DEFAULT, small, 0, 4, small, 0, 4);
        assertTrue(sum >= 0, "a valid send still works");
        int r = b.await(5, TimeUnit.SECONDS);
        assertTrue(r != FramePort.NONE, "and arrives");
        assertThrows(IllegalArgumentException.class, () -> b.copyOut(r, 0, small, 0, 10_000));
        assertThrows(IllegalArgumentException.class, () -> b.copyOut(r, -1, small, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> b.copyOut(r, 0, small, 14, 4));
        assertThrows(IllegalArgumentException.class, () -> b.forward(r, -1L));
        assertEquals(4, b.copyOut(r, 0, small, 0, 4) >= 0 ? 4 : -1);
        b.release(r);
        assertThrows(IllegalStateException.class, () -> b.release(r), "double release");
    }

    // ------------------------------------------------------------------ DmaSpace

    @Test
    void dmaSpaceUnderRandomMisuse() {
        Random random = new Random(SEED);
        DmaSpace dma = new DmaSpace("fuzz", io.nicbridge.bridge.memory.BusWidth.BITS_32, 8);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment local = arena.allocate(512);
            long expectedErrors = 0;
            for (int i = 0; i < STEPS * 4; i++) {
                DmaSpace.Regions table = dma.regions();
                long bus = switch (random.nextInt(4)) {
                    case 0 -> table.size() == 0 ? 0 : table.base(random.nextInt(table.size())) + random.nextInt(5000) - 8;
                    case 1 -> random.nextLong();
                    case 2 -> random.nextInt(1 << 20);
                    default -> 0xFFFF_FFF0L + random.nextInt(32);
                };
                long len = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(600) - 50;
                int hostOffset = random.nextInt(700) - 100;
                long before = dma.busErrors();
                try {
                    switch (random.nextInt(10)) {
                        case 0 -> dma.register("r" + i, arena.allocate(64 + random.nextInt(4096), 64));
                        case 1 -> dma.unregister(table.size() > 0 && random.nextBoolean()
                            ? table.base(random.nextInt(table.size())) : bus);
                        case 2 -> {
                            int r = dma.translate(bus, len);
                            if (r < 0) {
                                expectedErrors++;
                                assertTrue(r >= BusError.REGION_CLOSED, "a known code");
                            } else {
                                assertTrue(dma.regions().segment(r).byteSize() - dma.regions().offset(r, bus) >= len);
                            }
                        }
                        case 3 -> {
                            int code = -1 - random.nextInt(6);
                            assertThrows(IndexOutOfBoundsException.class, () -> dma.region(code));
                            assertThrows(IndexOutOfBoundsException.class, () -> dma.offset(code, bus));
                            int past = table.size() + random.nextInt(100);
                            assertThrows(IndexOutOfBoundsException.class, () -> table.segment(past));
                        }
                        case 4 -> expectedErrors += dma.readInt(bus, ByteOrder.BIG_ENDIAN) < 0 ? 1 : 0;
                        case 5 -> expectedErrors += dma.writeIntRelease(bus, i, ByteOrder.LITTLE_ENDIAN) < 0 ? 1 : 0;
                        case 6 -> expectedErrors += dma.copyFromBus(bus, local, hostOffset, len) < 0 ? 1 : 0;
                        case 7 -> expectedErrors += dma.copyToBus(local, hostOffset, bus, len) < 0 ? 1 : 0;
                        case 8 -> dma.slice(bus, len);
                        default -> dma.registerAt("at" + i, arena.allocate(128, 64), bus);
                    }
                } catch (BusErrorException e) {
                    expectedErrors++; // slice translates first: its bus error is counted, then reported
                    assertTrue(e.getMessage().contains("'fuzz'"), e.getMessage());
                } catch (IndexOutOfBoundsException | IllegalArgumentException | IllegalStateException e) {
                    // documented: a host range outside its segment, a misplaced or overlapping registerAt, an unknown
                    // unregister, a full table
                    assertTrue(e.getMessage() != null && e.getMessage().contains("'fuzz'"),
                        "the message names the space: " + e.getMessage());
                    assertEquals(before, dma.busErrors(), "a rejected call counts nothing" + seedText(SEED));
                }
                assertEquals(expectedErrors, dma.busErrors(), "bus errors = failed translations" + seedText(SEED));
            }
        }
    }

    // ------------------------------------------------------------------ ShimCard

    private static void shimCardMisuse(ShimCard card, Random random) {
        for (int i = 0; i < 200; i++) {
            int offset = random.nextBoolean() ? random.nextInt() : random.nextInt(256) - 64;
            boolean valid = offset >= 0 && offset <= card.registers().size() - 4 && (offset & 3) == 0;
            if (!valid) {
                assertThrows(IllegalArgumentException.class, () -> card.registers().read(offset));
                assertThrows(IllegalArgumentException.class, () -> card.registers().write(offset, 0));
            }
        }
        ShimException e = assertThrows(ShimException.class, () -> card.shim().poll(-1));
        assertEquals(NicShim.ERR_INVALID, e.code());
        e = assertThrows(ShimException.class, () -> card.shim().poll(NicShim.POLL_MAX_TIMEOUT_NS + 1L));
        assertEquals(NicShim.ERR_INVALID, e.code());
        e = assertThrows(ShimException.class, () -> card.shim().kick(1 << 20));
        assertEquals(NicShim.ERR_INVALID, e.code());
        e = assertThrows(ShimException.class, () -> card.shim().regWrite(7, 0, 0));
        assertThrows(ShimException.class, () -> card.shim().removeDmaRegion(12345));
        assertThrows(IllegalStateException.class, card::bcr, "a 21140 has no BCR");
        assertThrows(IndexOutOfBoundsException.class, () -> card.dma().region(BusError.NO_REGION));
        card.registers().read(Dec21140.CSR5); // still works
        card.statistics();
    }

    // ------------------------------------------------------------------ setup

    private static TulipTestbed tulipBed(TulipConfig.InterruptMode mode) {
        TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.THREADED).nodes(2)
            .config(i -> TulipConfig.builder().interruptMode(mode).build()).build();
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        return bed;
    }

    private static MedusaConfig medusa(long mac) {
        return MedusaConfig.builder().stationAddress(mac).receiveBuffers(32).build();
    }

    /** Both stations in the ring: a broadcast from a reaches b. */
    private static void awaitRing(MedusaDriver a, MedusaDriver b) throws InterruptedException {
        MemorySegment tiny = MemorySegment.ofArray(new byte[4]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            a.send(MedusaDriver.BROADCAST, Medusa.FC_LLC_ASYNC_DEFAULT, tiny, 0, 4, tiny, 0, 4);
            int r = b.await(20, TimeUnit.MILLISECONDS);
            if (r != FramePort.NONE) {
                b.release(r);
                // the probes sent before this one may still arrive: drain them so the fuzz sees only its own frames
                while ((r = b.await(100, TimeUnit.MILLISECONDS)) != FramePort.NONE) {
                    b.release(r);
                }
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the ring did not come up");
        }
    }

    private static void assumeShimAndVeth() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), () -> "native shim unavailable: " + shim.reason());
        Availability pair = VethPair.availability();
        Requirements.assume(Capability.NET, pair.available(), () -> "veth pairs in namespaces unavailable: " + pair.reason());
    }

    private static ShimCard shimCard(VethPair veth, boolean a) {
        String ifname = a ? veth.interfaceA() : veth.interfaceB();
        String ns = (a ? veth.namespaceA() : veth.namespaceB()).name();
        return (ShimCard) Backends.open("shim:afpacket?if=" + ifname + "&card=dec21140&netns=" + ns);
    }
}
