package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.regs.WordAccess;
import io.nicbridge.bridge.spi.InterruptLine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The SBA-200's firmware as far as the kernel command queue goes, misbehaving as a script says: at every doorbell
 * and every step of the world (the driver's progress hook, the test's time) the script picks what it does with the
 * commands posted and not consumed - execute the oldest as the contract says, complete it DONE or ERROR (any code)
 * without doing it, do it and report any w1, write any w1 into any slot (a completion for a command never issued, or
 * a second one), nothing at all, restart the board (RAM wiped, COLD_START, booting again a few steps later with no
 * endpoint), or lie about a restart (the heartbeat goes back, or an endpoint page loses EP_ACTIVE). Once the script
 * is spent, or {@link #behave()} is called, it executes every command honestly.
 * <p>
 * It keeps the card's honest state (endpoints with their bus addresses, channels with their tags) for the test to
 * compare with the host's, and for each command posted the first w1 other than PENDING its slot showed after one of
 * its actions (the driver reads the slot between them) until the next doorbell: what the driver was told. The record
 * closes at the next doorbell because the driver posts a command only once it has stopped waiting for the one before
 * (a call's command after the previous call's wait, the EP_DESTROY behind an unanswered EP_CREATE after the create's
 * timeout): a completion that comes later - the firmware acting on that very doorbell completes the old command -
 * was never read by the call, which had timed out. (The replay after a restart posts several commands at once; their
 * records are not used.)
 */
final class HostileUnetFirmware implements RegisterSideEffects, AutoCloseable {
    final Arena arena = Arena.ofShared();
    final MemorySegment ramMemory = arena.allocate(RAM_SIZE, 4096);
    final Registers ram;
    final WordAccess w = new WordAccess(ramMemory, BYTE_ORDER);
    final DmaSpace dma = new DmaSpace("hostile sba200 dma");
    final InterruptLine line = new InterruptLine("hostile sba200 intr");
    private final FuzzedDataProvider script;
    private boolean honest;

    // the card's state (what it really did)
    final boolean[] active = new boolean[MAX_ENDPOINTS];
    /**
     * Endpoints the driver was lied to about: an EP_CREATE or EP_DESTROY of theirs completed without being done, done
     * but answered otherwise, or done after something else had answered it. The host rightly believes otherwise.
     * Only an EP_CREATE of the endpoint executed ends it: not a restart, nor an executed EP_DESTROY (the replay's
     * destroy-before-create), since an endpoint the host was told it created with arguments the firmware refuses
     * (RQ_LEN 1) is still on the host, and its replay is refused for good.
     */
    final boolean[] liedAbout = new boolean[MAX_ENDPOINTS];
    final long[] segBus = new long[MAX_ENDPOINTS];
    final long[] rqBus = new long[MAX_ENDPOINTS];
    final int[][] txVci = new int[MAX_ENDPOINTS][MAX_CHANNELS];
    final int[][] rxVci = new int[MAX_ENDPOINTS][MAX_CHANNELS];
    final int[] upcallMode = new int[MAX_ENDPOINTS];
    private int cmdCons;
    private int heartbeat;
    /** Steps until a restarted board runs again; 0 = running. */
    private int booting;
    long restarts;
    private int swallowOp;
    private int swallowEndpoint;
    private int swallowLeft;
    /** Commands taken and never completed ({@link #swallow}). */
    int swallowed;

    // what the driver was told, per doorbell (the last CMDQ_LEN): the slot rung for, its first completion while the
    // driver still waited for it (until the next doorbell)
    private int doorbells;
    private final int[] slotOf = new int[CMDQ_LEN];
    private final int[] told = new int[CMDQ_LEN];
    /** {@code told[k]} holds the completion the driver read for doorbell k. */
    private final boolean[] answered = new boolean[CMDQ_LEN];

    /** @param script what it does; {@code null}: it behaves from the start (a unit test then makes it misbehave) */
    HostileUnetFirmware(FuzzedDataProvider script) {
        this.script = script;
        ram = new Registers("hostile sba200 ram", ramMemory, BYTE_ORDER, this, UG_OFS + UG_CMD_PROD_OFS);
        boot();
    }

    UnetKernelDriver driver(long commandTimeoutNanos, Runnable progress) {
        return new UnetKernelDriver("hostile", ram, null, dma, line, progress, commandTimeoutNanos);
    }

    /** From now on every command is executed as the contract says, and the board boots if it was restarting. */
    void behave() {
        honest = true;
    }

    /** Doorbells rung so far: the number the next command posted gets. */
    int doorbells() {
        return doorbells;
    }

    /**
     * What the driver was told for the command of doorbell {@code n}: its w1, or null when its slot read PENDING until
     * the next doorbell (or still does).
     */
    Integer told(int n) {
        int k = n & (CMDQ_LEN - 1);
        return n < doorbells && doorbells - n <= CMDQ_LEN && answered[k] ? told[k] : null;
    }

    private void boot() {
        ramMemory.fill((byte) 0);
        Arrays.fill(active, false); // liedAbout stays: the host still holds what it was told (see there)
        for (int[] t : txVci) {
            Arrays.fill(t, -1);
        }
        for (int[] r : rxVci) {
            Arrays.fill(r, -1);
        }
        Arrays.fill(upcallMode, 0);
        w.putInt(UG_OFS + UG_MAGIC_OFS, UG_MAGIC);
        w.putInt(UG_OFS + UG_VERSION_OFS, UG_VERSION);
        w.putInt(UG_OFS + UG_MAX_ENDPOINTS_OFS, MAX_ENDPOINTS);
        w.putInt(UG_OFS + UG_EP_PAGE_BASE_OFS, EP_PAGE_BASE);
        w.putInt(UG_OFS + UG_EP_PAGE_SIZE_OFS, EP_PAGE_SIZE);
        w.putInt(UG_OFS + UG_CMDQ_BASE_OFS, CMDQ_OFS);
        w.putInt(UG_OFS + UG_CMDQ_LEN_OFS, CMDQ_LEN);
        w.putInt(UG_OFS + UG_LINK_STATUS_OFS, UG_LINK_CARRIER);
        cmdCons = 0;
        heartbeat = 0;
        w.putIntRelease(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_CP_RUNNING);
    }

    @Override
    public int onRead(int offset, int storedValue) {
        return storedValue;
    }

    @Override
    public void onWrite(int offset, int value) {
        ram.storeRaw(offset, value); // the doorbell: cmd_prod, one command posted in the slot before it
        int k = doorbells++ & (CMDQ_LEN - 1);
        slotOf[k] = CMDQ_OFS + ((value - 1) & (CMDQ_LEN - 1)) * CMD_SIZE;
        answered[k] = false; // and the earlier doorbells' records are closed: only the last one is noted
        act();
    }

    /** One step of the firmware's time: the i960 looks at its queue (or does what the script says instead). */
    void step() {
        if (booting > 0) {
            if (--booting == 0 || honest) {
                booting = 0;
                boot();
            }
        } else {
            w.putIntRelease(UG_OFS + UG_HEARTBEAT_OFS, ++heartbeat);
            act();
        }
        note();
    }

    private boolean scripted() {
        return !honest && script != null && script.remainingBytes() > 0;
    }

    private void act() {
        if (booting > 0) {
            return;
        }
        int what = scripted() ? script.consumeInt(0, 11) : 0;
        switch (what) {
            case 0, 1, 2 -> executeAll();
            case 3 -> complete(CMD_STATUS_DONE, false);
            case 4 -> complete(CMD_STATUS_ERROR | script.consumeInt(0, 255) << CMD_ERROR_SHIFT, false);
            case 5 -> complete(script.consumeInt(), true);
            case 6 -> complete(script.consumeInt(), false);
            case 7 -> w.putIntRelease(CMDQ_OFS + script.consumeInt(0, CMDQ_LEN - 1) * CMD_SIZE + CMD_STATUS_OFS,
                script.consumeInt());
            case 8 -> restart(1 + script.consumeInt(0, 3));
            case 9 -> {
                if (script.consumeBoolean()) {
                    heartbeatGoesBack(1 + script.consumeInt(0, 3));
                } else {
                    int e = script.consumeInt(0, MAX_ENDPOINTS - 1);
                    int p = EP_PAGE_BASE + e * EP_PAGE_SIZE + EPCB_EP_STATUS_OFS;
                    w.putIntRelease(p, w.getInt(p) & ~EP_ACTIVE);
                }
            }
            default -> { } // busy: nothing this time
        }
        note();
    }

    /** The board restarts: RAM wiped, COLD_START, running again (with no endpoint) after {@code bootSteps} steps. */
    void restart(int bootSteps) {
        restarts++;
        ramMemory.fill((byte) 0);
        Arrays.fill(active, false);
        w.putIntRelease(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_COLD_START);
        booting = bootSteps;
    }

    /** A restart's sign without a restart: the heartbeat goes back by {@code by}; endpoints and channels stay. */
    void heartbeatGoesBack(int by) {
        heartbeat -= by;
    }

    /**
     * The next {@code times} commands {@code opcode} of endpoint {@code endpoint} the firmware takes (cmd_cons passes
     * them) and neither executes nor completes: their w1 reads PENDING for good. Honest or not.
     */
    void swallow(int opcode, int endpoint, int times) {
        swallowOp = opcode;
        swallowEndpoint = endpoint;
        swallowLeft = times;
    }

    /**
     * After each action: the command of the last doorbell (the only one the driver may still wait for), if its slot
     * shows a completion, has been told it (first one wins; the driver reads the slot before the next action).
     */
    private void note() {
        if (doorbells == 0) {
            return;
        }
        int i = (doorbells - 1) & (CMDQ_LEN - 1);
        if (!answered[i]) {
            int w1 = w.getIntAcquire(slotOf[i] + CMD_STATUS_OFS);
            if ((w1 & CMD_STATUS_MASK) != CMD_STATUS_PENDING) {
                answered[i] = true;
                told[i] = w1;
            }
        }
    }

    private boolean hasCommand() {
        return cmdCons != w.getIntAcquire(UG_OFS + UG_CMD_PROD_OFS);
    }

    private void executeAll() {
        for (int n = 0; n < 4 * CMDQ_LEN && hasCommand(); n++) {
            int slot = slot();
            if (swallowLeft > 0 && (w.getInt(slot + CMD_OP_OFS) & CMD_OPCODE_MASK) == swallowOp
                    && arg(slot, 0) == swallowEndpoint) {
                swallowLeft--;
                swallowed++;
                cmdCons++;
                w.putIntRelease(UG_OFS + UG_CMD_CONS_OFS, cmdCons);
                continue;
            }
            boolean answered = (w.getInt(slot + CMD_STATUS_OFS) & CMD_STATUS_MASK) != CMD_STATUS_PENDING;
            int err = execute(slot);
            if (answered) {
                lie(slot); // a stray completion told the driver something before
            }
            finish(slot, err == 0 ? CMD_STATUS_DONE : CMD_STATUS_ERROR | err << CMD_ERROR_SHIFT);
        }
    }

    /** Completes the oldest command with {@code w1}, having executed it first when {@code execute}. */
    private void complete(int w1, boolean execute) {
        if (!hasCommand()) {
            return;
        }
        int slot = slot();
        int honestW1 = -1;
        if (execute) {
            int err = execute(slot);
            honestW1 = err == 0 ? CMD_STATUS_DONE : CMD_STATUS_ERROR | err << CMD_ERROR_SHIFT;
        }
        if (!execute || w1 != honestW1) {
            lie(slot);
        }
        finish(slot, w1);
    }

    private void lie(int slot) {
        int op = w.getInt(slot + CMD_OP_OFS) & CMD_OPCODE_MASK;
        int e = arg(slot, 0);
        if ((op == OP_EP_CREATE || op == OP_EP_DESTROY) && e >= 0 && e < MAX_ENDPOINTS) {
            liedAbout[e] = true;
        }
    }

    private int slot() {
        return CMDQ_OFS + (cmdCons & (CMDQ_LEN - 1)) * CMD_SIZE;
    }

    private void finish(int slot, int w1) {
        w.putIntRelease(slot + CMD_STATUS_OFS, w1);
        cmdCons++;
        w.putIntRelease(UG_OFS + UG_CMD_CONS_OFS, cmdCons);
    }

    private int page(int e) {
        return EP_PAGE_BASE + e * EP_PAGE_SIZE;
    }

    private int arg(int slot, int k) {
        return w.getInt(slot + CMD_ARG_OFS + 4 * k);
    }

    /** The contract's command semantics (sba200_unet.h), on the card's state. @return the error code, 0 = done */
    private int execute(int slot) {
        int op = w.getInt(slot + CMD_OP_OFS) & CMD_OPCODE_MASK;
        int e = arg(slot, 0);
        switch (op) {
            case OP_NOP:
                return 0;
            case OP_GET_STATS:
                return dma.translate(Integer.toUnsignedLong(e), STATS_SIZE) < 0 ? CMD_ERR_DMA : 0;
            case OP_EP_CREATE, OP_EP_DESTROY, OP_CH_OPEN, OP_CH_CLOSE, OP_EP_UPCALL:
                break;
            default:
                return CMD_ERR_BAD_OPCODE;
        }
        if (e < 0 || e >= MAX_ENDPOINTS) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (op == OP_EP_CREATE) {
            if (active[e]) {
                return CMD_ERR_EP_ACTIVE;
            }
            long sb = Integer.toUnsignedLong(arg(slot, 1));
            long sl = Integer.toUnsignedLong(arg(slot, 2));
            if (sl == 0 || (sb & (SEG_ALIGN - 1)) != 0 || dma.translate(sb, sl) < 0) {
                return CMD_ERR_BAD_SEGMENT;
            }
            long rb = Integer.toUnsignedLong(arg(slot, 3));
            int rl = arg(slot, 4);
            if (rl < RQ_LEN_MIN || rl > RQ_LEN_MAX || Integer.bitCount(rl) != 1 || (rb & (RQ_ALIGN - 1)) != 0
                    || dma.translate(rb, (long) rl * RQ_ENTRY_SIZE) < 0) {
                return CMD_ERR_BAD_RQ;
            }
            ramMemory.asSlice(page(e), EP_PAGE_SIZE).fill((byte) 0);
            active[e] = true;
            liedAbout[e] = false;
            segBus[e] = sb;
            rqBus[e] = rb;
            Arrays.fill(txVci[e], -1);
            Arrays.fill(rxVci[e], -1);
            upcallMode[e] = 0;
            w.putInt(page(e) + EPCB_RQ_LEN_OFS, rl);
            w.putInt(page(e) + EPCB_SEG_LEN_OFS, (int) sl);
            w.putIntRelease(page(e) + EPCB_EP_STATUS_OFS, EP_ACTIVE);
            return 0;
        }
        if (!active[e]) {
            return CMD_ERR_EP_INACTIVE;
        }
        int ch = arg(slot, 1);
        switch (op) {
            case OP_EP_DESTROY -> {
                active[e] = false; // liedAbout stays: only an executed EP_CREATE makes the host and the card agree
                w.putIntRelease(page(e) + EPCB_EP_STATUS_OFS, 0);
                return 0;
            }
            case OP_EP_UPCALL -> {
                if ((ch & ~UPCALL_BOTH) != 0) {
                    return CMD_ERR_BAD_MODE;
                }
                upcallMode[e] = ch;
                return 0;
            }
            case OP_CH_CLOSE -> {
                if (ch < 0 || ch >= MAX_CHANNELS || txVci[e][ch] < 0) {
                    return CMD_ERR_BAD_CHANNEL;
                }
                txVci[e][ch] = -1;
                rxVci[e][ch] = -1;
                return 0;
            }
            default -> { // CH_OPEN
                int vpi = arg(slot, 2);
                int tx = arg(slot, 3);
                int rx = arg(slot, 4);
                if (ch < 0 || ch >= MAX_CHANNELS) {
                    return CMD_ERR_BAD_CHANNEL;
                }
                if (txVci[e][ch] >= 0) {
                    return CMD_ERR_CHANNEL_OPEN;
                }
                if (vpi < 0 || vpi > 255 || tx < VCI_FIRST_USER || tx >= VCI_TABLE_ENTRIES || rx < VCI_FIRST_USER
                        || rx >= VCI_TABLE_ENTRIES) {
                    return CMD_ERR_BAD_VCI;
                }
                for (int f = 0; f < MAX_ENDPOINTS; f++) {
                    for (int c = 0; c < MAX_CHANNELS; c++) {
                        if (active[f] && (rxVci[f][c] == rx || txVci[f][c] == tx)) {
                            return CMD_ERR_VCI_IN_USE;
                        }
                    }
                }
                txVci[e][ch] = tx;
                rxVci[e][ch] = rx;
                return 0;
            }
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
