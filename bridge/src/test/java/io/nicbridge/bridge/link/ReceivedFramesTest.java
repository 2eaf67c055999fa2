package io.nicbridge.bridge.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ReceivedFramesTest {
    private static MemorySegment[] slots(int n) {
        MemorySegment all = MemorySegment.ofArray(new byte[n * 16]);
        MemorySegment[] s = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            s[i] = all.asSlice(i * 16L, 16);
        }
        return s;
    }

    @Test
    void aCardsHandleIsHeldFromHoldToReleaseAndRefusedOutsideThat() {
        ReceivedFrames rx = ReceivedFrames.ofHandles("card", 4);
        MemorySegment b = MemorySegment.ofArray(new byte[8]);
        rx.hold(2, 5, 7, b);
        assertEquals(5, rx.peer(2));
        assertEquals(7, rx.length(2));
        assertSame(b, rx.buffer(2));
        assertEquals(1, rx.heldCount());
        assertTrue(rx.isHeld(2));
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> rx.hold(2, 1, 1, b));
        assertTrue(twice.getMessage().contains("held already"), twice.getMessage());
        rx.release(2);
        assertFalse(rx.isHeld(2));
        assertEquals(0, rx.heldCount());
        for (int h : new int[] {2, -1, 4, 0}) { // released (stale), out of range, never handed up
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> rx.peer(h));
            assertTrue(e.getMessage().startsWith("card: receive handle " + h + " is not a frame the caller holds"),
                    e.getMessage());
            assertThrows(IllegalStateException.class, () -> rx.release(h));
        }
        assertThrows(IllegalStateException.class, () -> rx.hold(4, 0, 1, b));
        assertThrows(IllegalStateException.class, rx::allocate, "a card's handles have no slots");
    }

    @Test
    void slotsArriveInOrderAreHeldAndGoBackToTheFreeStack() {
        ReceivedFrames rx = ReceivedFrames.ofSlots("medium", slots(3));
        int a = rx.allocate();
        int b = rx.allocate();
        int c = rx.allocate();
        assertEquals(ReceivedFrames.NONE, rx.allocate(), "all three taken");
        assertEquals(0, rx.free());
        assertThrows(IllegalStateException.class, () -> rx.peer(a), "allocated is not held");
        rx.arrived(b, 1, 10, 0);
        rx.arrived(a, 2, 11, 1);
        rx.arrived(c, 3, 12, 0);
        assertEquals(3, rx.queued());
        assertThrows(IllegalStateException.class, () -> rx.arrived(a, 0, 1, 0), "queued already");
        assertEquals(b, rx.next(), "first arrived, first handed up");
        assertEquals(a, rx.next());
        assertEquals(2, rx.peer(a));
        assertEquals(11, rx.length(a));
        assertEquals(1, rx.tag(a));
        assertSame(rx.slot(a), rx.buffer(a));
        rx.release(a);
        assertEquals(1, rx.free());
        assertThrows(IllegalStateException.class, () -> rx.length(a), "released");
        assertEquals(a, rx.allocate(), "the released slot is the next one out");
        assertEquals(c, rx.next());
        assertEquals(ReceivedFrames.NONE, rx.next());
        assertEquals(2, rx.heldCount());
        assertThrows(IllegalStateException.class, () -> rx.hold(0, 0, 1, rx.slot(0)), "slots come by arrived()");
    }

    @Test
    void theQueueWrapsAroundWithoutAllocating() {
        ReceivedFrames rx = ReceivedFrames.ofSlots("wrap", slots(2));
        for (int i = 0; i < 10; i++) {
            int s = rx.allocate();
            rx.arrived(s, i, i + 1, 0);
            int h = rx.next();
            assertEquals(s, h);
            assertEquals(i, rx.peer(h));
            rx.release(h);
        }
        assertEquals(2, rx.free());
        assertThrows(IllegalArgumentException.class, () -> ReceivedFrames.ofHandles("none", 0));
    }
}
