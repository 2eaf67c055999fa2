package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;

/**
 * {@code nicshim_info_t}: the Linux interface a shim serves.
 *
 * @param ifname   interface name
 * @param cardKind {@code NicShim.CARD_*}
 * @param ifindex  kernel interface index (in the interface's namespace)
 * @param mtu      payload MTU
 * @param flags    {@code NicShim.INFO_*}
 * @param mac      station address, 6 bytes
 */
public record ShimInterfaceInfo(String ifname, int cardKind, int ifindex, int mtu, int flags, byte[] mac) {
    public ShimInterfaceInfo {
        mac = mac.clone();
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    public boolean linkUp() {
        return (flags & NicShim.INFO_LINK_UP) != 0;
    }

    public boolean running() {
        return (flags & NicShim.INFO_RUNNING) != 0;
    }

    /** @return the MAC as {@code 02:00:00:00:00:01} */
    public String macText() {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < 6; i++) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x", mac[i] & 0xFF));
        }
        return sb.toString();
    }
}
