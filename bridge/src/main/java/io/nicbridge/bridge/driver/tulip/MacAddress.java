package io.nicbridge.bridge.driver.tulip;

import io.nicbridge.contract.Dec21140;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A 48-bit IEEE 802 address, held as a {@code long} whose most significant used byte is the first byte on the
 * wire (the one that carries the individual/group bit).
 *
 * <pre>
 *   02:00:5e:10:00:01   ->   value() = 0x0000_0200_5e10_0001
 *   byteAt(0) = 0x02 (bit 0 of byte 0 = group bit, bit 1 = locally administered)
 * </pre>
 */
public final class MacAddress {
    /** ff:ff:ff:ff:ff:ff. */
    public static final MacAddress BROADCAST = new MacAddress(0xFFFF_FFFF_FFFFL);
    private static final int LENGTH = Dec21140.ETH_ADDR_LEN;
    private static final long MASK = 0xFFFF_FFFF_FFFFL;

    private final long value;

    private MacAddress(long value) {
        this.value = value;
    }

    /** @throws IllegalArgumentException when {@code value} has bits above bit 47 */
    public static MacAddress of(long value) {
        if ((value & ~MASK) != 0) {
            throw new IllegalArgumentException("a MAC address has 48 bits; 0x" + Long.toHexString(value) + " has more");
        }
        return new MacAddress(value);
    }

    /** @param bytes exactly 6 bytes, first on the wire first */
    public static MacAddress of(byte... bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("a MAC address has " + LENGTH + " bytes, got "
                + (bytes == null ? "null" : bytes.length));
        }
        long v = 0;
        for (byte b : bytes) {
            v = v << 8 | (b & 0xFF);
        }
        return new MacAddress(v);
    }

    /**
     * Parses {@code aa:bb:cc:dd:ee:ff} (or with '-').
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static MacAddress parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("MAC address must not be null");
        }
        String[] parts = text.strip().split("[:-]", -1);
        if (parts.length != LENGTH) {
            throw new IllegalArgumentException("MAC address '" + text + "' must be 6 hex bytes separated by ':'");
        }
        long v = 0;
        for (String p : parts) {
            if (p.length() != 2 || Character.digit(p.charAt(0), 16) < 0 || Character.digit(p.charAt(1), 16) < 0) {
                throw new IllegalArgumentException("MAC address '" + text + "': '" + p + "' is not a hex byte");
            }
            v = v << 8 | Integer.parseInt(p, 16);
        }
        return new MacAddress(v);
    }

    /** Reads 6 bytes at {@code offset} (e.g. a frame's destination address); allocation-free variant. */
    public static long read(MemorySegment segment, long offset) {
        long v = 0;
        for (int i = 0; i < LENGTH; i++) {
            v = v << 8 | (segment.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF);
        }
        return v;
    }

    /** Writes the 6 bytes of {@code value} at {@code offset}, first on the wire first; allocation-free. */
    public static void write(long value, MemorySegment segment, long offset) {
        for (int i = 0; i < LENGTH; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (value >>> (8 * (LENGTH - 1 - i))));
        }
    }

    public long value() {
        return value;
    }

    /** @return byte {@code i} (0 = first on the wire), 0..255 */
    public int byteAt(int i) {
        if (i < 0 || i >= LENGTH) {
            throw new IndexOutOfBoundsException("MAC byte index must be 0..5, was " + i);
        }
        return (int) (value >>> (8 * (LENGTH - 1 - i))) & 0xFF;
    }

    public byte[] toBytes() {
        byte[] b = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            b[i] = (byte) byteAt(i);
        }
        return b;
    }

    /** Group bit (bit 0 of the first byte): multicast or broadcast. */
    public boolean isMulticast() {
        return (byteAt(0) & 1) != 0;
    }

    public boolean isBroadcast() {
        return value == MASK;
    }

    /** A usable station address: not a group address and not all zeros. */
    public boolean isValidStation() {
        return value != 0 && !isMulticast();
    }

    public void writeTo(MemorySegment segment, long offset) {
        write(value, segment, offset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MacAddress m && m.value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < LENGTH; i++) {
            if (i > 0) {
                sb.append(':');
            }
            int b = byteAt(i);
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 15, 16));
        }
        return sb.toString();
    }
}
