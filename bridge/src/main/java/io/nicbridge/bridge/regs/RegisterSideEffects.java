package io.nicbridge.bridge.regs;

/**
 * What a backend does when the host touches a register that has side effects. The backend names those
 * offsets when it builds its {@link Registers}; every other offset is plain memory.
 *
 * <p>For a hooked offset the {@link Registers} object calls exactly one hook per host access, in the
 * host's thread, and never stores on its own: the hook owns the register's contents and updates them
 * with the device-side accessors ({@link Registers#storeRaw}, {@link Registers#getAndBitwiseAndRaw}, ...),
 * which bypass the hooks. Typical hooks:
 * <ul>
 *   <li>doorbell (21140 CSR1 transmit poll demand): {@code onWrite} kicks the transmit process;</li>
 *   <li>write-1-to-clear (21140 CSR5): {@code onWrite} does {@code getAndBitwiseAndRaw(offset, ~value)};</li>
 *   <li>read-to-clear (a statistics counter): {@code onRead} does {@code getAndSetRaw(offset, 0)} and returns it.</li>
 * </ul>
 * Hooks run on the hot path: they must not allocate, and they may be called from several host threads
 * at once if the host shares the card.
 */
public interface RegisterSideEffects {
    /**
     * The host reads a hooked register.
     *
     * @param offset      byte offset in the window, 4-byte aligned
     * @param storedValue the register's contents, loaded with the host's access mode just before the call
     * @return the value the host sees
     */
    int onRead(int offset, int storedValue);

    /**
     * The host writes a hooked register. Nothing has been stored; the hook decides what the register holds.
     *
     * @param offset byte offset in the window, 4-byte aligned
     * @param value  the value the host wrote
     */
    void onWrite(int offset, int value);
}
