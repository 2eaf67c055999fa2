package io.nicbridge.protocols.ip;

import java.net.Inet4Address;

/** IPv4 addresses as {@code int}s (network order: the first octet in the top byte), so nothing allocates. */
public final class Ipv4Address {
    public static final int BROADCAST = 0xFFFF_FFFF;

    private Ipv4Address() {
    }

    public static int of(Inet4Address address) {
        byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /**
     * @param dotted "a.b.c.d"
     * @throws IllegalArgumentException naming the text when it is not a dotted quad
     */
    public static int parse(String dotted) {
        String[] p = dotted.split("\\.", -1);
        if (p.length != 4) {
            throw new IllegalArgumentException("not a dotted-quad IPv4 address: '" + dotted + "'");
        }
        int a = 0;
        for (String s : p) {
            int v;
            try {
                v = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a dotted-quad IPv4 address: '" + dotted + "'", e);
            }
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("not a dotted-quad IPv4 address: '" + dotted + "'");
            }
            a = a << 8 | v;
        }
        return a;
    }

    public static String toString(int address) {
        return (address >>> 24) + "." + (address >>> 16 & 0xFF) + "." + (address >>> 8 & 0xFF) + "." + (address & 0xFF);
    }
}
