package io.nicbridge.sim.testbed;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.unet.EmulatedEndpoint;
import io.nicbridge.bridge.driver.unet.EmulatedEndpointMux;
import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, kernel-emulated endpoints "just like regular ones" (U-Net paper 3.5): one UDP-style request/response
 * program, written against {@link Endpoint} only, runs unchanged on two regular endpoints and on two kernel-emulated
 * ones (each host's kernel multiplexing them over its one real endpoint) on emulated SBA-200s in virtual time; the
 * inline capacity is the same; the kernel's crossings are charged to the hosts' CPUs by the cost rules and show in
 * virtual time; and an emulated endpoint reaches only the channels the kernel opened for it.
 * (Before: an emulated endpoint had its own API - send to a tag, int handles, no segment, no channels, no send
 * completions - so this program could not run on it.)
 */
class EmulatedEndpointTest {
    static final int CHANNELS = 3;
    /** Inline on both kinds (<= 40), one wire cell only on a regular endpoint (37..40 take two when emulated), buffers. */
    static final int[] SIZES = {1, 36, 37, 40, 41, 200, 1000};
    static final int TX = 0;
    static final int RX = 8 * 1024;
    static final int BUF = 256;
    static final long SEGMENT = 64 * 1024;
    /** The real endpoints' segments: the kernel's staging buffers, then its receive buffers. */
    static final long REAL_SEGMENT = 256 * 1024;
    static final int REAL_RX = 128 * 1024;

    /**
     * The program: for each size and each channel, the client sends a request, the server waits for it, checks it,
     * and answers on the channel it came in on with the bytes reversed; the client waits for the answer and checks
     * it. Small messages go with sendInline, the rest from the segment; every completion must be SENT.
     *
     * @return round trips completed
     */
    static int requestResponse(Endpoint client, Endpoint server) throws InterruptedException {
        assertEquals(INLINE_MAX, client.inlineMax());
        assertEquals(client.inlineMax(), server.inlineMax(), "inline capacity equal on both ends");
        assertEquals(16, client.postReceiveBuffers(RX, 16, BUF));
        assertEquals(16, server.postReceiveBuffers(RX, 16, BUF));
        int trips = 0;
        for (int size : SIZES) {
            for (int c = 0; c < CHANNELS; c++) {
                assertTrue(client.isChannelOpen(c) && server.isChannelOpen(c), "channel " + c);
                int seed = size * 31 + c;
                fill(client.segment(), TX, size, seed);
                assertTrue(send(client, c, size));
                long d = server.await(1, TimeUnit.SECONDS);
                assertTrue(d >= 0, "request of " + size + " B on channel " + c + " arrived");
                assertEquals(c, server.channel(d));
                assertEquals(size, server.length(d));
                assertFalse(server.isError(d));
                assertEquals(size <= server.inlineMax(), server.isInline(d), size + " B inline?");
                assertEquals(size <= server.inlineMax() ? 0 : (size + BUF - 1) / BUF, server.bufferCount(d));
                byte[] request = new byte[size];
                assertEquals(size, server.copyTo(d, MemorySegment.ofArray(request), 0));
                assertArrayEquals(expected(size, seed), request);
                for (int i = 0; i < size; i++) {
                    server.segment().set(ValueLayout.JAVA_BYTE, TX + i, request[size - 1 - i]);
                }
                server.release(d);
                assertTrue(send(server, c, size));
                d = client.await(1, TimeUnit.SECONDS);
                assertTrue(d >= 0, "answer of " + size + " B on channel " + c + " arrived");
                assertEquals(c, client.channel(d));
                byte[] answer = new byte[size];
                assertEquals(size, client.copyTo(d, MemorySegment.ofArray(answer), 0));
                for (int i = 0; i < size; i++) {
                    assertEquals(request[size - 1 - i], answer[i]);
                }
                client.release(d);
                assertEquals(TX_STATUS_SENT, client.pollSendCompletion());
                assertEquals(TX_STATUS_SENT, server.pollSendCompletion());
                trips++;
            }
        }
        assertEquals(QueueCode.EMPTY, client.poll());
        assertEquals(QueueCode.EMPTY, server.poll());
        assertEquals(trips, client.received());
        assertEquals(trips, server.received());
        return trips;
    }

    private static boolean send(Endpoint ep, int channel, int size) {
        return size <= ep.inlineMax() ? ep.sendInline(channel, ep.segment(), TX, size) : ep.send(channel, TX, size);
    }

    @Test
    void theSameProgramRunsOnRegularAndOnEmulatedEndpoints() throws InterruptedException {
        int messages = SIZES.length * CHANNELS;
        long regular;
        try (UnetApiTestbed t = bed()) {
            openMoreChannels(t);
            long t0 = t.virtualEngine().timeBase().nanoTime();
            assertEquals(messages, requestResponse(t.a(), t.b()));
            regular = t.virtualEngine().timeBase().nanoTime() - t0;
        }
        long emulated;
        HostCpu cpuA;
        HostCpu cpuB;
        try (UnetApiTestbed t = bed()) {
            openMoreChannels(t);
            VirtualTimeEngine v = t.virtualEngine();
            CostTable table = CostTable.measured();
            cpuA = HostCpu.on(v.timeBase(), table, "host-a");
            cpuB = HostCpu.on(v.timeBase(), table, "host-b");
            t.a().postReceiveBuffers(REAL_RX, 64, 1088);
            t.b().postReceiveBuffers(REAL_RX, 64, 1088);
            try (EmulatedEndpointMux kernelA = new EmulatedEndpointMux(t.a(), 1024, 0);
                 EmulatedEndpointMux kernelB = new EmulatedEndpointMux(t.b(), 1024, 0)) {
                kernelA.hostCpu(cpuA);
                kernelB.hostCpu(cpuB);
                EmulatedEndpoint client = kernelA.create(10, SEGMENT, 16);
                EmulatedEndpoint server = kernelB.create(20, SEGMENT, 16);
                for (int c = 0; c < CHANNELS; c++) {
                    kernelA.openChannel(client, c, c, 20);
                    kernelB.openChannel(server, c, c, 10);
                }
                long t0 = v.timeBase().nanoTime();
                assertEquals(messages, requestResponse(client, server));
                emulated = v.timeBase().nanoTime() - t0;
                assertEquals(messages, kernelA.systemCalls());
                assertEquals(messages, kernelB.systemCalls());
                assertEquals(0, kernelA.unknownChannelDrops() + kernelB.unknownChannelDrops()
                    + kernelA.unknownTagDrops() + kernelB.unknownTagDrops());
            }
        }
        // The cost rules of EmulatedEndpointMux, per host: a trap per send, the kernel's copies, lookups, posts.
        long payload = 0;
        for (int size : SIZES) {
            payload += (long) size * CHANNELS;
        }
        for (HostCpu cpu : new HostCpu[] {cpuA, cpuB}) {
            assertEquals(messages, cpu.units(CostItem.INTERRUPT), cpu.name() + ": one trap per send");
            assertEquals(2L * messages, cpu.units(CostItem.TABLE_LOOKUP), cpu.name() + ": channel + demux lookups");
            assertEquals(2L * messages, cpu.units(CostItem.DESCRIPTOR_POST), cpu.name() + ": real send + emulated entry");
            assertEquals(2 * payload + (long) EmulatedEndpointMux.TAG_SIZE * messages, cpu.units(CostItem.COPY),
                cpu.name() + ": tag + payload copied out, payload copied in");
        }
        // In virtual time each round trip carries at least the two sends' traps (the kernel's send reaches the card
        // when the CPU gets there), on top of the regular endpoints' time.
        long trapNs = CostTable.measured().picos(CostItem.INTERRUPT) / 1000;
        assertTrue(emulated - regular >= 2L * messages * trapNs, "emulated " + emulated + " ns vs regular " + regular
            + " ns for " + messages + " round trips: at least 2 traps of " + trapNs + " ns more each");
        System.out.printf("request/response, %d round trips over %d channels, %s: regular endpoints %.1f us, "
                + "kernel-emulated %.1f us (+%.2f us per round trip; host CPU charged %.1f + %.1f us)%n", messages,
            CHANNELS, java.util.Arrays.toString(SIZES), regular / 1e3, emulated / 1e3,
            (emulated - regular) / 1e3 / messages, cpuA.totalPicos() / 1e6, cpuB.totalPicos() / 1e6);
    }

    /** A hostile process holding one emulated endpoint tries every way around its channels. */
    @Test
    void anEmulatedEndpointReachesOnlyTheChannelsTheKernelOpenedForIt() throws InterruptedException {
        try (UnetApiTestbed t = bed()) {
            VirtualTimeEngine v = t.virtualEngine();
            t.a().postReceiveBuffers(REAL_RX, 64, 1088);
            t.b().postReceiveBuffers(REAL_RX, 64, 1088);
            try (EmulatedEndpointMux kernelA = new EmulatedEndpointMux(t.a(), 1024, 0);
                 EmulatedEndpointMux kernelB = new EmulatedEndpointMux(t.b(), 1024, 0)) {
                EmulatedEndpoint mallory = kernelA.create(66, SEGMENT, 16);
                EmulatedEndpoint alice = kernelA.create(1, SEGMENT, 16);
                EmulatedEndpoint bob = kernelB.create(2, SEGMENT, 16);
                EmulatedEndpoint carol = kernelB.create(3, SEGMENT, 16);
                kernelA.openChannel(alice, 0, 0, 2);
                kernelB.openChannel(bob, 0, 0, 1);
                kernelA.openChannel(mallory, 1, 0, 3); // mallory may talk to carol only
                kernelB.openChannel(carol, 4, 0, 66);
                bob.postReceiveBuffers(RX, 16, BUF);
                carol.postReceiveBuffers(RX, 16, BUF);
                fill(mallory.segment(), TX, 100, 9);

                assertFalse(mallory.isChannelOpen(0), "alice's channel number is not mallory's channel");
                assertTrue(mallory.send(0, TX, 20));      // channel 0 is alice's, to bob
                assertTrue(mallory.send(2, TX, 20));      // never opened
                assertTrue(mallory.send(1, TX + 65000, 1000)); // out of its segment
                assertTrue(mallory.send(1, TX, 1025));    // longer than the kernel carries
                assertEquals(TX_STATUS_BAD_CHANNEL, mallory.pollSendCompletion());
                assertEquals(TX_STATUS_BAD_CHANNEL, mallory.pollSendCompletion());
                assertEquals(TX_STATUS_SEG_BOUNDS, mallory.pollSendCompletion());
                assertEquals(TX_STATUS_TOO_LONG, mallory.pollSendCompletion());
                assertThrows(IllegalArgumentException.class, () -> mallory.send(64, TX, 10), "no channel 64");
                v.runFor(TimeUnit.MILLISECONDS.toNanos(1));
                assertEquals(0, t.a().sendCompletions(TX_STATUS_SENT) + t.a().sendsInFlight(),
                    "nothing refused reached the card");
                assertEquals(QueueCode.EMPTY, bob.poll(), "bob got nothing from mallory");

                // A forged arrival: a message on the real channel from a tag bob has no channel to is dropped.
                MemorySegment forged = MemorySegment.ofArray(new byte[12]);
                forged.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0, 2 << 16 | 66);
                assertTrue(t.a().sendInline(UnetApiTestbed.CHANNEL, forged, 0, 12));
                v.runFor(TimeUnit.MILLISECONDS.toNanos(1));
                assertEquals(QueueCode.EMPTY, bob.poll());
                assertEquals(1, kernelB.unknownChannelDrops());
                t.a().reapSends();

                // The one channel mallory has works, to carol only, arriving on carol's channel 4.
                assertTrue(mallory.send(1, TX, 100));
                long d = carol.await(1, TimeUnit.SECONDS);
                assertTrue(d >= 0);
                assertEquals(4, carol.channel(d));
                assertEquals(100, carol.length(d));
                carol.release(d);
                assertEquals(QueueCode.EMPTY, bob.poll());
                assertEquals(TX_STATUS_SENT, mallory.pollSendCompletion());

                // Closed by the kernel: refused from then on; destroyed: every call throws.
                kernelA.closeChannel(mallory, 1);
                assertTrue(mallory.send(1, TX, 10));
                assertEquals(TX_STATUS_BAD_CHANNEL, mallory.pollSendCompletion());
                kernelA.destroy(mallory);
                assertThrows(IllegalStateException.class, () -> mallory.send(1, TX, 10));
                assertThrows(IllegalStateException.class, mallory::poll);
                assertThrows(IllegalArgumentException.class, () -> kernelA.openChannel(mallory, 1, 0, 3),
                    "a destroyed endpoint gets no channel");
            }
        }
    }

    private static UnetApiTestbed bed() {
        return UnetApiTestbed.builder(EngineMode.VIRTUAL).timing(Sba200Timing.I960_25MHZ).segmentBytes(REAL_SEGMENT)
            .build();
    }

    /** Real channels 1 and 2 between the two real endpoints (0 is the testbed's). */
    private static void openMoreChannels(UnetApiTestbed t) {
        for (int c = 1; c < CHANNELS; c++) {
            UnetKernelDriver.Connection conn = t.network().connect(t.cardA(), t.a(), t.cardB(), t.b());
            assertEquals(c, conn.channelA());
            assertEquals(c, conn.channelB());
        }
    }

    private static void fill(MemorySegment s, long at, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seed + i * 7));
        }
    }

    private static byte[] expected(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }
}
