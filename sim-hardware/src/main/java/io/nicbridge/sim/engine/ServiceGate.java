package io.nicbridge.sim.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A work-combining gate in front of one {@link DeviceModel}: whichever thread kicks first services the
 * model; a thread that kicks while another is inside {@link DeviceModel#service()} only leaves a note, and the
 * servicing thread runs {@code service()} once more before it leaves. So {@code service()} never runs on two
 * threads at once, and no kick is lost: every kick is followed by a {@code service()} that starts after it.
 *
 * <pre>
 *          kick (CAS)                 kick while busy (CAS)
 *   IDLE -------------&gt; BUSY -------------------------------&gt; BUSY_PENDING
 *     ^                  |  ^                                     |
 *     |  exit (CAS)      |  |  holder takes the note: plain set   |
 *     +------------------+  +-------------------------------------+   (then services again)
 * </pre>
 *
 * <p>Only the holder moves the state out of BUSY or BUSY_PENDING, which is why it may take the note with a
 * plain volatile store. A kick made from inside {@code service()} (the model kicking itself) finds BUSY and
 * leaves a note, so it is handled by the loop rather than by recursion. No locks, no allocation.
 *
 * <p><b>Handoff.</b> Every transition is a volatile CAS or store, so whatever a kicking thread wrote before
 * its kick (a frame in a FIFO, a register) is visible to the {@code service()} that the kick causes.
 */
final class ServiceGate {
    static final int IDLE = 0;
    static final int BUSY = 1;
    static final int BUSY_PENDING = 2;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ServiceGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    /**
     * Tries to enter. On success the caller is the holder and must call {@link #tryExit()} until it returns
     * true (servicing again each time it returns false), or {@link #abandon()} if its work failed.
     *
     * @return true when the caller entered; false when another holder was told to loop once more instead
     */
    boolean enterOrNote() {
        while (true) {
            int s = (int) STATE.getVolatile(this);
            if (s == IDLE) {
                if (STATE.compareAndSet(this, IDLE, BUSY)) {
                    return true;
                }
            } else if (s == BUSY) {
                if (STATE.compareAndSet(this, BUSY, BUSY_PENDING)) {
                    return false;
                }
            } else {
                return false; // a note is already there; one more pass covers this kick too
            }
        }
    }

    /**
     * Enters only if nobody is inside, leaving no note otherwise: for callers that will come back by
     * themselves (threaded engine loops), so a busy holder is not kept looping on their behalf.
     */
    boolean tryEnter() {
        return STATE.compareAndSet(this, IDLE, BUSY);
    }

    /**
     * Leaves the gate if nobody kicked since the last pass.
     *
     * @return true when the caller left; false when a note was taken and the caller must service again
     */
    boolean tryExit() {
        if (STATE.compareAndSet(this, BUSY, IDLE)) {
            return true;
        }
        // Only the holder leaves BUSY_PENDING, so a plain volatile store cannot overwrite anyone's note.
        STATE.setVolatile(this, BUSY);
        return false;
    }

    /** Leaves unconditionally after the holder's work threw; pending notes are dropped with the failure. */
    void abandon() {
        STATE.setVolatile(this, IDLE);
    }

    boolean isBusy() {
        return (int) STATE.getVolatile(this) != IDLE;
    }
}
