package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrimaryFifoAndPoolTest {
    private static PrimaryFifo fifo() {
        return new PrimaryFifo(Arena.ofAuto().allocate(PrimaryFifo.BYTES, 64));
    }

    @Test
    void theFifoIsThepaperS4KiBWith63EntriesAndTheFullFlagTellsFullFromEmpty() {
        assertEquals(63, PrimaryFifo.ENTRIES);
        assertEquals(4064, PrimaryFifo.BYTES - PrimaryFifo.STATE, "4064 bytes of messages after 32 of state");
        PrimaryFifo f = fifo();
        assertEquals(0, f.size());
        assertEquals(63, f.free());
        f.publishHigh(PrimaryFifo.advance(0, 63)); // wraps to low: full
        assertTrue(f.full());
        assertEquals(63, f.size());
        assertEquals(0, f.free());
        f.publishLow(PrimaryFifo.advance(0, 63), 63); // all taken: empty again at the same position
        assertFalse(f.full());
        assertEquals(0, f.size());
        // wrap-around of both pointers
        f.publishHigh(PrimaryFifo.advance(0, 60));
        f.publishLow(PrimaryFifo.advance(0, 58), 58);
        f.publishHigh(PrimaryFifo.advance(60, 10));
        assertEquals(7, f.high());
        assertEquals(12, f.size());
        assertEquals(PrimaryFifo.STATE + 5L * 64, PrimaryFifo.entry(5));
    }

    @Test
    void aFifoWantsItsOwnAligned4KiB() {
        assertThrows(IllegalArgumentException.class, () -> new PrimaryFifo(MemorySegment.ofArray(new byte[100])));
    }

    @Test
    void thePoolKeepsOneBufferFreeAndChainsReturnWhole() {
        BufferPool p = new BufferPool(Arena.ofAuto().allocate(BufferPool.bytes(4, 128), 64), 4, 128);
        assertEquals(4, p.free());
        assertEquals(3, p.available());
        int a = p.take();
        int b = p.take();
        int c = p.take();
        assertEquals(Set.of(0, 1, 2), new HashSet<>(java.util.List.of(a, b, c)));
        assertEquals(0, p.available());
        assertThrows(IllegalStateException.class, p::take, "the last free buffer is never taken");
        p.link(a, b);
        p.link(b, c);
        p.giveChain(a);
        assertEquals(4, p.free());
        for (int i = 0; i < 100; i++) { // the free list wraps
            int x = p.take();
            assertEquals(BufferPool.END, p.next(x), "a taken buffer starts a chain of one");
            p.give(x);
        }
        assertEquals(4, p.free());
        assertEquals(BufferPool.bytes(4, 128) - 4 * 128, p.offset(0));
    }

    @Test
    void fragmentsFollowThePaperS1436ByteLimit() {
        assertEquals(1, PupaWire.fragments(0, 1436));
        assertEquals(1, PupaWire.fragments(1436, 1436));
        assertEquals(2, PupaWire.fragments(2048, 1436), "the paper's 2 KB message: 1436 + 612");
        assertEquals(3, PupaWire.fragments(4096, 1436));
        assertEquals(28, PupaWire.MESSAGE_HEADER);
    }
}
