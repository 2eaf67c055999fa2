package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

/**
 * A kernel command ({@code EP_CREATE}, {@code CH_OPEN}, ...) that the U-Net firmware completed with
 * {@code CMD_STATUS_ERROR}: the error code from w1 bits 15:8 is kept and named in the message. Commands run at
 * setup, never on the data path, so an error there is misuse (a bad endpoint, channel, VCI, segment, ...) and is
 * reported by exception; data-path errors are statuses, never exceptions.
 */
public final class UnetCommandException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** {@link #errorCode()}: the card did not complete the command in time. */
    public static final int TIMEOUT = -1;
    /**
     * {@link #errorCode()}: the command was lost - its slot read FREE again (the firmware wiped its queue), or the
     * driver found a firmware restart while it waited. What it asked for may or may not have happened before.
     */
    public static final int LOST = -2;
    /**
     * {@link #errorCode()}: the card completed the command with a w1 the contract does not have (a status other than
     * DONE or ERROR, DONE with an error code, ERROR without one, bits above the error code set); counted in
     * {@link UnetKernelDriver#badCompletions()}. What it asked for may or may not have happened.
     */
    public static final int BAD_COMPLETION = -3;

    private final int opcode;
    private final int errorCode;

    public UnetCommandException(int opcode, int errorCode, String context) {
        super(opcodeName(opcode) + " failed: " + errorName(errorCode) + " (error code " + errorCode + ")"
                + (context.isEmpty() ? "" : ": " + context));
        this.opcode = opcode;
        this.errorCode = errorCode;
    }

    /** The command's opcode ({@code OP_EP_CREATE} ...). */
    public int opcode() {
        return opcode;
    }

    /**
     * The firmware's error code ({@code CMD_ERR_BAD_ENDPOINT} ..., any 1..255 the firmware sent), or the driver's own
     * verdict on a command the firmware did not complete as the contract says: {@link #TIMEOUT}, {@link #LOST},
     * {@link #BAD_COMPLETION}.
     */
    public int errorCode() {
        return errorCode;
    }

    public static String opcodeName(int opcode) {
        return switch (opcode) {
            case OP_EP_CREATE -> "EP_CREATE";
            case OP_EP_DESTROY -> "EP_DESTROY";
            case OP_CH_OPEN -> "CH_OPEN";
            case OP_CH_CLOSE -> "CH_CLOSE";
            case OP_EP_UPCALL -> "EP_UPCALL";
            case OP_GET_STATS -> "GET_STATS";
            case OP_NOP -> "NOP";
            default -> "opcode 0x" + Integer.toHexString(opcode);
        };
    }

    public static String errorName(int errorCode) {
        return switch (errorCode) {
            case TIMEOUT -> "no completion from the card (timeout)";
            case LOST -> "command lost (its slot read FREE again, or the firmware restarted)";
            case BAD_COMPLETION -> "completion the contract does not have";
            case CMD_ERR_NONE -> "no error";
            case CMD_ERR_BAD_OPCODE -> "unknown opcode";
            case CMD_ERR_BAD_ENDPOINT -> "endpoint number out of range";
            case CMD_ERR_EP_ACTIVE -> "endpoint already active";
            case CMD_ERR_EP_INACTIVE -> "endpoint not active";
            case CMD_ERR_BAD_CHANNEL -> "channel out of range or not open";
            case CMD_ERR_CHANNEL_OPEN -> "channel already open";
            case CMD_ERR_BAD_VCI -> "VCI reserved or out of range, or VPI > 255";
            case CMD_ERR_VCI_IN_USE -> "receive VCI already routed to a channel, or transmit VCI used by an open channel";
            case CMD_ERR_BAD_SEGMENT -> "segment empty, misaligned or not in a DMA region";
            case CMD_ERR_BAD_RQ -> "receive queue length or base invalid";
            case CMD_ERR_BAD_MODE -> "unknown upcall mode";
            case CMD_ERR_DMA -> "address not in a registered DMA region";
            default -> "unknown error";
        };
    }
}
