#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer harnesses (fuzz_card.c, fuzz_api.c) into corpus/<harness>/.

Each seed is a script in the harness's input format (see the comment at the top of each harness): the operations a
well-behaved driver performs to bring the card up and move frames, so the fuzzer starts from deep states (rings
running, filters loaded, endpoints and channels open) instead of having to discover the device contract byte by byte.
Deterministic: running it again rewrites the same files. Usage: gen-seeds.py [OUT_DIR] (default: ./corpus here).
"""
import os
import struct
import sys

# ---------------------------------------------------------------------------------------------- fuzz_card.c ops
REG_WRITE, REG_READ, WINDOW_POKE, DMA_POKE, DMA_FILL, RECEIVE, WORK, TIME, LINK, RUN, TX_ROOM, QUERY = range(12)


def reg_write(rng, off, val):
    return struct.pack("<BBII", REG_WRITE, rng, off, val)


def reg_read(rng, off):
    return struct.pack("<BBI", REG_READ, rng, off)


def window_poke(rng, off, val):
    return struct.pack("<BBII", WINDOW_POKE, rng, off, val)


def dma_poke(region, off, val):
    return struct.pack("<BBII", DMA_POKE, region, off, val)


def dma_fill(region, off, data):
    return struct.pack("<BBIH", DMA_FILL, region, off, len(data)) + data


def receive(frame):
    return struct.pack("<BH", RECEIVE, len(frame) - 1) + frame  # the harness takes len % max + 1


def work(kicks=7, budget=63):
    return struct.pack("<BBB", WORK, kicks, budget)


def time_us(delta):
    return struct.pack("<BI", TIME, delta)


def link(up):
    return struct.pack("<BB", LINK, up)


def run(start):
    return struct.pack("<BB", RUN, start)


def tx_room(frames):
    return struct.pack("<BB", TX_ROOM, frames)


def query():
    return bytes([QUERY])


OWN_MAC = bytes([0x02, 0, 0, 0, 0, 0x01])  # fake_platform.c's station address
PEER_MAC = bytes([0x02, 0, 0, 0, 0, 0x02])
BCAST = b"\xff" * 6
MCAST = bytes([0x01, 0x00, 0x5E, 0x00, 0x00, 0x01])


def eth(dst, ethertype, payload, src=PEER_MAC):
    return dst + src + struct.pack(">H", ethertype) + payload


# ---------------------------------------------------------------------------------------------- DEC 21140 (LE)
CSR = {n: n * 8 for n in range(16)}
CSR0_SWR = 1
CSR6_SR, CSR6_ST, CSR6_PR, CSR6_PM, CSR6_PB, CSR6_SF, CSR6_MBO = 1 << 1, 1 << 13, 1 << 6, 1 << 7, 1 << 3, 1 << 21, 1 << 25
CSR6_OM_INTERNAL = 1 << 10
OWN = 1 << 31
RDES1_RCH, RDES1_RER = 1 << 24, 1 << 25
TDES1_FT0, TDES1_DPD, TDES1_TCH, TDES1_TER, TDES1_AC, TDES1_SET, TDES1_FT1, TDES1_FS, TDES1_LS, TDES1_IC = (
    1 << 22, 1 << 23, 1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 30, 1 << 31)
D_BUS = 0x00100000  # region 0 of fuzz_card.c (DEC21140)
RX_RING, TX_RING, SETUP_BUF, TX_BUF, RX_BUF = 0x0000, 0x1000, 0x2000, 0x3000, 0x8000


def d_desc(off, w0, w1, w2, w3):
    """A descriptor as a driver hands it over: words 1..3, then word 0."""
    return dma_poke(0, off + 4, w1) + dma_poke(0, off + 8, w2) + dma_poke(0, off + 12, w3) + dma_poke(0, off, w0)


def d_bringup(rx_count=4, mode=0, chained=False, buf_size=1536):
    s = reg_write(0, CSR[0], CSR0_SWR) + reg_write(0, CSR[0], 0)
    for i in range(rx_count):
        off = RX_RING + 16 * i
        nxt = RX_RING + 16 * ((i + 1) % rx_count)
        w1 = buf_size | (RDES1_RCH if chained else (RDES1_RER if i == rx_count - 1 else 0))
        s += d_desc(off, OWN, w1, D_BUS + RX_BUF + 0x600 * i, D_BUS + nxt if chained else 0)
    s += reg_write(0, CSR[3], D_BUS + RX_RING) + reg_write(0, CSR[4], D_BUS + TX_RING)
    s += reg_write(0, CSR[7], 0x0001FFFF)
    s += reg_write(0, CSR[6], CSR6_MBO | CSR6_SF | CSR6_SR | CSR6_ST | mode)
    # the Linux tulip driver's first frame: a perfect-filter setup frame with the station and broadcast addresses
    return s + d_setup(0, [OWN_MAC, BCAST], 0) + work()


def d_send(slot, frame, extra=0, last=False):
    buf = TX_BUF + 0x600 * slot
    w1 = TDES1_FS | TDES1_LS | TDES1_IC | len(frame) | extra | (TDES1_TER if last else 0)
    return dma_fill(0, buf, frame) + d_desc(TX_RING + 16 * slot, OWN, w1, D_BUS + buf, 0) + reg_write(0, CSR[1], 1)


def d_srom_read(address):
    """Reads one SROM word the way tulip's read_eeprom bit-bangs it: start bit, opcode 10, 6 address bits, 16 data
    bits, each bit clocked in on SK's rising edge (CSR9: SR | RD | CS, DI, SK)."""
    base = 0x4800 | 1  # SR | RD | CS
    s = reg_write(0, CSR[9], 0x4800)
    for bit in [1, 1, 0] + [(address >> (5 - i)) & 1 for i in range(6)]:
        di = 4 if bit else 0
        s += reg_write(0, CSR[9], base | di) + reg_write(0, CSR[9], base | di | 2) + reg_write(0, CSR[9], base | di)
    for _ in range(16):
        s += reg_write(0, CSR[9], base | 2) + reg_read(0, CSR[9]) + reg_write(0, CSR[9], base)
    return s + reg_write(0, CSR[9], 0x4800)


def d_send_segments(first_slot, frame, seg):
    """One frame over several descriptors of `seg` bytes each (FS on the first, LS on the last); one poll demand."""
    s = b""
    parts = [frame[i:i + seg] for i in range(0, len(frame), seg)]
    for k, part in enumerate(parts):
        slot = first_slot + k
        buf = TX_BUF + 0x600 * slot
        w1 = len(part) | (TDES1_FS if k == 0 else 0) | (TDES1_LS | TDES1_IC if k == len(parts) - 1 else 0)
        s += dma_fill(0, buf, part) + d_desc(TX_RING + 16 * slot, OWN, w1, D_BUS + buf, 0)
    return s + reg_write(0, CSR[1], 1) + work()


def d_setup(slot, addresses, ft):
    frame = b""
    for a in (addresses + [OWN_MAC] * 16)[:16]:
        for k in range(3):
            frame += struct.pack("<I", a[2 * k] | a[2 * k + 1] << 8)
    return d_send(slot, frame, TDES1_SET | ft)


def dec21140_seeds():
    ip = eth(OWN_MAC, 0x0800, bytes(range(46)))
    seeds = {
        "rx-unicast-broadcast": d_bringup() + receive(ip) + receive(eth(BCAST, 0x0806, bytes(28))) + work()
        + receive(eth(OTHER, 0x0800, bytes(50))) + reg_read(0, CSR[5]) + reg_write(0, CSR[5], 0xFFFFFFFF)
        + reg_read(0, CSR[8]) + query(),
        "rx-ring-exhausted": d_bringup(rx_count=2) + b"".join(receive(ip) for _ in range(5)) + reg_read(0, CSR[8])
        + d_desc(RX_RING, OWN, 1536 | RDES1_RER, D_BUS + RX_BUF, 0) + reg_write(0, CSR[2], 1) + work(),
        "rx-chained-long-vlan": d_bringup(chained=True) + receive(eth(OWN_MAC, 0x8100, b"\x00\x05\x08\x00" + bytes(1500)))
        + receive(eth(OWN_MAC, 0x0800, bytes(2100))) + receive(OWN_MAC[:5]) + query(),
        "tx-and-backpressure": d_bringup() + d_send(1, eth(PEER_MAC, 0x0800, bytes(100))) + work()
        + tx_room(0) + d_send(2, eth(PEER_MAC, 0x0800, bytes(20)), TDES1_DPD) + work() + tx_room(8) + work()
        + d_send(3, eth(PEER_MAC, 0x0800, bytes(60)) + b"\x00\x00\x00\x00", TDES1_AC, last=True) + work(),
        "setup-perfect": d_bringup() + d_setup(1, [MCAST, BCAST], 0) + work() + receive(eth(MCAST, 0x0800, bytes(46)))
        + reg_read(0, CSR[6]),
        "setup-hash-inverse": d_bringup() + d_setup(1, [MCAST], TDES1_FT0) + work() + receive(eth(MCAST, 0x0800, bytes(46)))
        + d_setup(2, [PEER_MAC], TDES1_FT1) + work() + receive(eth(PEER_MAC, 0x0800, bytes(46)))
        + d_setup(3, [MCAST], TDES1_FT0 | TDES1_FT1) + work() + receive(eth(MCAST, 0x0800, bytes(46))),
        "promisc-allmulti": d_bringup(mode=CSR6_PR) + receive(eth(OTHER, 0x0800, bytes(46)))
        + reg_write(0, CSR[6], CSR6_MBO | CSR6_SR | CSR6_ST | CSR6_PM) + receive(eth(MCAST, 0x0800, bytes(46))),
        "loopback": d_bringup(mode=CSR6_OM_INTERNAL | CSR6_PB) + d_send(1, eth(OWN_MAC, 0x0800, bytes(10)), TDES1_DPD)
        + work() + receive(ip),
        "timer-srom-gpio": d_bringup() + reg_write(0, CSR[11], 0x10010) + time_us(5000) + reg_read(0, CSR[5])
        + b"".join(reg_write(0, CSR[9], v) for v in (0x4801, 0x4803, 0x4805, 0x4807, 0x4801)) + reg_read(0, CSR[9])
        + reg_write(0, CSR[12], 0x13F) + reg_write(0, CSR[12], 0x0F) + reg_read(0, CSR[12]) + link(0) + link(1)
        + reg_write(0, CSR[15], 0x1F),
        "srom-read": d_bringup() + d_srom_read(0) + d_srom_read(10) + d_srom_read(63),
        "tx-short-long-jabber": d_bringup() + d_send(1, eth(PEER_MAC, 0x0800, bytes(20))) + work()
        + d_send_segments(2, eth(PEER_MAC, 0x0800, bytes(1600)), 1000)
        + d_send_segments(4, eth(PEER_MAC, 0x0800, bytes(2200)), 1200)
        + d_send_segments(6, eth(PEER_MAC, 0x8100, b"\x00\x05\x08\x00" + bytes(1500)), 800) + reg_read(0, CSR[5]),
        "rx-small-buffers-truncated": d_bringup(rx_count=3, buf_size=64) + receive(eth(OWN_MAC, 0x0800, bytes(150)))
        + receive(eth(OWN_MAC, 0x0800, bytes(400))) + reg_read(0, CSR[5]),
        "bus-errors": d_bringup() + reg_write(0, CSR[6], 0) + reg_write(0, CSR[3], 0xFFFFFFF8)
        + reg_write(0, CSR[6], CSR6_MBO | CSR6_SR) + receive(ip) + reg_read(0, CSR[5]) + run(0) + run(1),
    }
    return seeds


OTHER = bytes([0x02, 0, 0, 0, 0, 0x77])

# ---------------------------------------------------------------------------------------------- SBA-200 (BE)
RANGE_BCR, RANGE_RAM = 0, 1
UG, CMDQ, EP_PAGE_BASE = 0x1000, 0x1100, 0x20000
UG_CMD_PROD = 0x28
OP_EP_CREATE, OP_EP_DESTROY, OP_CH_OPEN, OP_CH_CLOSE, OP_EP_UPCALL, OP_GET_STATS, OP_NOP = range(1, 8)
SEG0, SEG1, RQ, STATS = 0x00100000, 0x00104000, 0x00200000, 0x00400000
SQ_OFS, FQ_OFS = 0x400, 0xC00
RQ0_OFS = 0x1000 - 16 * 64  # endpoint 0's 16-entry receive queue: the last 1 KiB of the 4 KiB RQ region
TX_VALID, TX_INLINE = 1 << 31, 1 << 29
UNET_TYPE = 0x88B5


def s_poke(off, val):
    return window_poke(RANGE_RAM, off, val)


class Unet:
    def __init__(self):
        self.cmd = 0
        self.sq = {0: 0, 1: 0}
        self.fq = {0: 0, 1: 0}

    def command(self, op, *args):
        slot = CMDQ + 32 * (self.cmd % 16)
        s = b"".join(s_poke(slot + 8 + 4 * i, a) for i, a in enumerate(args))
        s += s_poke(slot, op) + s_poke(slot + 4, 1)
        self.cmd += 1
        return s + reg_write(RANGE_RAM, UG + UG_CMD_PROD, self.cmd) + work(4, 63)

    def send_inline(self, ep, chan, data):
        page = EP_PAGE_BASE + 0x1000 * ep
        d = page + SQ_OFS + 64 * (self.sq[ep] % 32)
        s = window_poke_bytes(d + 8, data) + s_poke(d + 4, 0) + s_poke(d, TX_VALID | TX_INLINE | chan << 16 | len(data))
        self.sq[ep] += 1
        return s + s_poke(page, self.sq[ep]) + work(1, 63)

    def send_buffers(self, ep, chan, bufs):
        page = EP_PAGE_BASE + 0x1000 * ep
        d = page + SQ_OFS + 64 * (self.sq[ep] % 32)
        s = b""
        for i, (off, ln) in enumerate(bufs):
            s += s_poke(d + 8 + 8 * i, off) + s_poke(d + 12 + 8 * i, ln)
        total = sum(ln for _, ln in bufs)
        s += s_poke(d + 4, 0) + s_poke(d, TX_VALID | len(bufs) << 24 | chan << 16 | total)
        self.sq[ep] += 1
        return s + s_poke(page, self.sq[ep]) + work(1, 63)

    def free_buffer(self, ep, off, ln):
        page = EP_PAGE_BASE + 0x1000 * ep
        slot = page + FQ_OFS + 8 * (self.fq[ep] % 128)
        self.fq[ep] += 1
        return s_poke(slot, off) + s_poke(slot + 4, ln) + s_poke(page + 8, self.fq[ep]) + work(2, 63)


def window_poke_bytes(off, data):
    data = data + bytes(-len(data) % 4)
    return b"".join(s_poke(off + i, struct.unpack(">I", data[i:i + 4])[0]) for i in range(0, len(data), 4))


def unet_frame(vpi, vci, pdu, dst=BCAST, pdu_len=None, pad_to=60):
    header = vpi << 20 | vci << 4 | 1 << 1
    tag = struct.pack(">IHH", header, len(pdu) if pdu_len is None else pdu_len, 0)
    f = eth(dst, UNET_TYPE, tag + pdu)
    return f + b"\xee" * max(0, pad_to - len(f))


def s_bringup(u):
    s = reg_write(RANGE_BCR, 0, 1) + reg_write(RANGE_BCR, 0, 0) + work()
    # the receive queue ends where its DMA region ends, so a slot written past the queue is outside the region
    # (AddressSanitizer sees it: the fake platform's regions are malloc'd blocks of exactly their length)
    s += u.command(OP_EP_CREATE, 0, SEG0, 0x4000, RQ + RQ0_OFS, 16)
    s += u.command(OP_CH_OPEN, 0, 3, 0, 100, 200)
    return s


def sba200_seeds():
    seeds = {}
    u = Unet()
    seeds["send-inline-and-buffers"] = (s_bringup(u) + u.send_inline(0, 3, b"hello, u-net")
                                        + dma_fill(0, 0x100, bytes(range(200)))
                                        + u.send_buffers(0, 3, [(0x100, 100), (0x180, 60)])
                                        + u.send_buffers(0, 3, [(0x3FF0, 0x40)]) + u.send_inline(0, 9, b"x"))
    u = Unet()
    seeds["receive-inline-and-buffered"] = (s_bringup(u) + u.free_buffer(0, 0x1000, 0x400) + u.free_buffer(0, 0x1400, 0x400)
                                            + receive(unet_frame(0, 200, b"small"))
                                            + receive(unet_frame(0, 200, bytes(900)))
                                            + receive(unet_frame(0, 201, bytes(10)))
                                            + receive(unet_frame(0, 200, bytes(10), pdu_len=400))
                                            + receive(unet_frame(0, 200, b"", pad_to=0)[:20]) + query())
    u = Unet()
    seeds["rq-overrun-and-release"] = (s_bringup(u) + b"".join(receive(unet_frame(0, 200, bytes([i]) * 8)) for i in range(20))
                                       + dma_poke(2, RQ0_OFS, 0) + s_poke(EP_PAGE_BASE + 0x10, 1) + work(2, 63)
                                       + receive(unet_frame(0, 200, b"again")))
    u = Unet()
    seeds["commands-everything"] = (s_bringup(u) + u.command(OP_EP_CREATE, 1, SEG1, 0x4000, RQ + 0x400, 32)
                                    + u.command(OP_CH_OPEN, 1, 0, 0, 300, 300) + u.command(OP_EP_UPCALL, 0, 3)
                                    + u.command(OP_GET_STATS, STATS) + u.command(OP_NOP)
                                    + u.command(OP_CH_CLOSE, 0, 3) + u.command(OP_EP_DESTROY, 1)
                                    + u.command(OP_EP_CREATE, 40, SEG0, 0, RQ, 3) + u.command(0x99)
                                    + reg_read(RANGE_BCR, 0) + reg_write(RANGE_BCR, 0, 4) + link(0) + link(1))
    u = Unet()
    seeds["reset-while-busy"] = (s_bringup(u) + u.send_inline(0, 3, b"before reset") + reg_write(RANGE_BCR, 0, 1)
                                 + receive(unet_frame(0, 200, b"during")) + reg_write(RANGE_BCR, 0, 0) + work()
                                 + run(0) + run(1) + tx_room(0) + u.send_inline(0, 3, b"blocked") + tx_room(64) + work())
    return seeds


# ---------------------------------------------------------------------------------------------- fuzz_api.c ops
A_OPEN, A_CLOSE, A_INFO, A_ATTACH, A_ADD_REGION, A_REMOVE_REGION, A_REG_WRITE, A_REG_READ, A_START, A_STOP, A_KICK, \
    A_POLL, A_STATS, A_STRERROR, A_POKE = range(15)


def a_open(kind, ifname=0, options=None):
    if options is None:
        return struct.pack("<BBIB", A_OPEN, ifname, kind, 0)
    return struct.pack("<BBIB", A_OPEN, ifname, kind, 1) + options


def a_options(size=40, flags=0, rx=8, tx=8, frame=0, budget=0, ethertype=0):
    return struct.pack("<IIIIIIHH6s6s", size, flags, rx, tx, frame, budget, ethertype, 0, b"\0" * 6, b"\0" * 6)


def a_attach(rng, offset, length):
    return struct.pack("<BIBQ", A_ATTACH, rng, offset, length)


def a_add(bus, where, offset, length):
    return struct.pack("<BQBIQ", A_ADD_REGION, bus, where, offset, length)


def a_remove(rid):
    return struct.pack("<Bi", A_REMOVE_REGION, rid)


def a_reg_write(rng, off, val):
    return struct.pack("<BIII", A_REG_WRITE, rng, off, val)


def a_reg_read(rng, off, out=1):
    return struct.pack("<BIIB", A_REG_READ, rng, off, out)


def a_poll(timeout):
    return struct.pack("<Bq", A_POLL, timeout)


def a_poke(where, off, val):
    return struct.pack("<BBII", A_POKE, where, off, val)


def api_seeds():
    dec = (a_open(1) + a_attach(0, 0, 128) + a_add(D_BUS, 0, 0, 0x10000) + a_start()
           + a_reg_write(0, CSR[0], 1) + a_reg_write(0, CSR[3], D_BUS + RX_RING) + a_reg_write(0, CSR[4], D_BUS + TX_RING))
    for i in range(4):
        dec += a_poke(1, RX_RING + 16 * i + 4, 1536 | (RDES1_RER if i == 3 else 0))
        dec += a_poke(1, RX_RING + 16 * i + 8, D_BUS + RX_BUF + 0x600 * i) + a_poke(1, RX_RING + 16 * i, OWN)
    dec += a_poke(1, TX_RING + 4, TDES1_FS | TDES1_LS | TDES1_TER | 64) + a_poke(1, TX_RING + 8, D_BUS + TX_BUF)
    dec += a_poke(1, TX_RING, OWN) + a_reg_write(0, CSR[6], CSR6_MBO | CSR6_SR | CSR6_ST) + a_kick(3) + a_poll(0)
    dec += a_poll(0) + a_stats() + a_info() + a_remove(0) + a_stop() + a_remove(0) + a_close()
    sba = (a_open(2, options=a_options(ethertype=0x88B6)) + a_attach(0, 0, 4) + a_attach(1, 0, 0x40000)
           + a_add(SEG0, 0, 0, 0x4000) + a_add(RQ, 0, 0x4000, 0x1000) + a_start()
           + a_reg_write(0, 0, 0) + a_kick(7) + a_poll(0) + a_reg_read(1, 0x1000) + a_stop() + a_close())
    hostile = (a_open(1, ifname=2) + a_open(3) + a_open(1, options=a_options(size=39)) + a_open(1, options=a_options(rx=3))
               + a_open(1, options=a_options(flags=8)) + a_open(1) + a_attach(0, 1, 128) + a_attach(0, 0, 127)
               + a_attach(5, 0, 128) + a_start() + a_add(0xFFFFFFFFFFFFF000, 0, 0, 0x2000) + a_add(0, 2, 0, 1)
               + a_add(0x1000, 0, 0, 0x100) + a_add(0x1080, 0, 0x200, 0x100) + a_add(0x5000, 0, 0x80, 0x100)
               + a_remove(-1) + a_remove(64) + a_reg_write(0, 2, 0) + a_reg_write(0, 128, 0) + a_reg_write(1, 0, 0)
               + a_reg_read(0, 0x28, 0) + a_kick(8) + a_poll(-1) + a_poll(1000000001) + a_strerror(-15)
               + a_strerror(-16) + a_strerror(1 << 31) + a_close() + a_info() + a_stats())
    return {"dec21140-bringup": dec, "sba200-bringup": sba, "hostile-arguments": hostile}


def a_start():
    return bytes([A_START])


def a_stop():
    return bytes([A_STOP])


def a_close():
    return bytes([A_CLOSE])


def a_info():
    return struct.pack("<BB", A_INFO, 1)


def a_stats():
    return struct.pack("<BB", A_STATS, 1)


def a_kick(what):
    return struct.pack("<BI", A_KICK, what)


def a_strerror(code):
    return struct.pack("<Bi" if code < 1 << 31 and code >= -(1 << 31) else "<BI", A_STRERROR,
                       code if code < 1 << 31 else code & 0xFFFFFFFF)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for harness, seeds in (("dec21140_card", dec21140_seeds()), ("sba200_card", sba200_seeds()), ("api", api_seeds())):
        d = os.path.join(out, harness)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"gen-seeds: {len(seeds)} seeds in {d}")


if __name__ == "__main__":
    main()
