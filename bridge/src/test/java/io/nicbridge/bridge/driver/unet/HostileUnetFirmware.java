package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.WordAccess;

/**
 * The SBA-200's firmware as far as the kernel command queue goes, misbehaving as a script says: at every doorbell
 * and every step of the world (the driver's progress hook, the test's time) the script picks what it does with the
 * commands posted and not consumed - execute the oldest as the contract says, complete it DONE or ERROR (any code)
 * without doing it, do it and report any w1, write any w1 into any slot (a completion for a command never issued, or
 * a second one), nothing at all, restart the board (RAM wiped, COLD_START, booting again a few steps later with no
 * endpoint), or lie about a restart (the heartbeat goes back, or an endpoint page loses EP_ACTIVE). Once the script
 * is spent, or {@link #behave()} is called, it executes every command honestly.
 * <p>
 * What it does honestly is {@link ContractFirmware}'s: this class takes over its command doorbell and wraps its
 * per-command steps. The contract firmware keeps the card's honest state (endpoints with their bus addresses, channels
 * with their tags) for the test to compare with the host's; this class keeps, and for each command posted the first w1 other than PENDING its slot showed after one of
 * its actions (the driver reads the slot between them) until the next doorbell: what the driver was told. The record
 * closes at the next doorbell because the driver posts a command only once it has stopped waiting for the one before
 * (a call's command after the previous call's wait, the EP_DESTROY behind an unanswered EP_CREATE after the create's
 * timeout): a completion that comes later - the firmware acting on that very doorbell completes the old command -
 * was never read by the call, which had timed out. (The replay after a restart posts several commands at once; their
 * records are not used.)
 */
final class HostileUnetFirmware implements AutoCloseable {
    private final ContractFirmware card = new ContractFirmware();
    final WordAccess w = card.w;
    final DmaSpace dma = card.dma;
    private final FuzzedDataProvider script;
    private boolean honest;

    /**
     * Endpoints the driver was lied to about: an EP_CREATE or EP_DESTROY of theirs completed without being done, done
     * but answered otherwise, or done after something else had answered it. The host rightly believes otherwise.
     * Only an EP_CREATE of the endpoint executed ends it: not a restart, nor an executed EP_DESTROY (the replay's
     * destroy-before-create), since an endpoint the host was told it created with arguments the firmware refuses
     * (RQ_LEN 1) is still on the host, and its replay is refused for good.
     */
    final boolean[] liedAbout = new boolean[MAX_ENDPOINTS];
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
        card.onCommandDoorbell(this::doorbell);
    }

    UnetKernelDriver driver(long commandTimeoutNanos, Runnable progress) {
        return new UnetKernelDriver("hostile", card.ram, null, card.dma, card.line, progress, commandTimeoutNanos);
    }

    /** From now on every command is executed as the contract says, and the board boots if it was restarting. */
    void behave() {
        honest = true;
    }

    /** Whether endpoint {@code e} is active on the card (what the firmware did, whatever the page says). */
    boolean active(int e) {
        return card.endpointActive(e);
    }

    /** The bus address of endpoint {@code e}'s segment on the card. */
    long segBus(int e) {
        return card.segmentBus(e);
    }

    /** The bus address of endpoint {@code e}'s receive queue on the card. */
    long rqBus(int e) {
        return card.receiveQueueBus(e);
    }

    /** The transmit VCI of channel {@code ch} of endpoint {@code e} on the card, or -1. */
    int txVci(int e, int ch) {
        return card.transmitVci(e, ch);
    }

    /** The receive VCI of channel {@code ch} of endpoint {@code e} on the card, or -1. */
    int rxVci(int e, int ch) {
        return card.receiveVci(e, ch);
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

    /** The doorbell: cmd_prod, one command posted in the slot before it. */
    private void doorbell() {
        int value = w.getInt(UG_OFS + UG_CMD_PROD_OFS);
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
                heartbeat = 0;
                card.boot(); // liedAbout stays: the host still holds what it was told (see there)
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
                    w.putIntRelease(p, w.getInt(p) & ~EP_ACTIVE); // the page lies; the firmware keeps it active
                }
            }
            default -> { } // busy: nothing this time
        }
        note();
    }

    /** The board restarts: RAM wiped, COLD_START, running again (with no endpoint) after {@code bootSteps} steps. */
    void restart(int bootSteps) {
        restarts++;
        card.wipe();
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

    private void executeAll() {
        for (int n = 0; n < 4 * CMDQ_LEN && card.hasCommand(); n++) {
            int slot = card.commandSlot();
            if (swallowLeft > 0 && opcode(slot) == swallowOp && arg(slot, 0) == swallowEndpoint) {
                swallowLeft--;
                swallowed++;
                card.consumeCommand();
                continue;
            }
            boolean answered = (w.getInt(slot + CMD_STATUS_OFS) & CMD_STATUS_MASK) != CMD_STATUS_PENDING;
            int w1 = execute(slot);
            if (answered) {
                lie(slot); // a stray completion told the driver something before
            }
            card.completeCommand(slot, w1);
        }
    }

    /** Completes the oldest command with {@code w1}, having executed it first when {@code execute}. */
    private void complete(int w1, boolean execute) {
        if (!card.hasCommand()) {
            return;
        }
        int slot = card.commandSlot();
        if (!execute || w1 != execute(slot)) {
            lie(slot);
        }
        card.completeCommand(slot, w1);
    }

    /** Executes the command in {@code slot} honestly. @return the w1 the contract completes it with */
    private int execute(int slot) {
        int error = card.executeCommand(slot);
        int e = arg(slot, 0);
        if (error == 0 && opcode(slot) == OP_EP_CREATE) {
            liedAbout[e] = false;
        }
        return ContractFirmware.completion(error);
    }

    private void lie(int slot) {
        int op = opcode(slot);
        int e = arg(slot, 0);
        if ((op == OP_EP_CREATE || op == OP_EP_DESTROY) && e >= 0 && e < MAX_ENDPOINTS) {
            liedAbout[e] = true;
        }
    }

    private int opcode(int slot) {
        return w.getInt(slot + CMD_OP_OFS) & CMD_OPCODE_MASK;
    }

    private int arg(int slot, int k) {
        return w.getInt(slot + CMD_ARG_OFS + 4 * k);
    }

    @Override
    public void close() {
        card.close();
    }
}
