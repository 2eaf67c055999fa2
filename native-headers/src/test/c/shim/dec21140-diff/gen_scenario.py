#!/usr/bin/env python3
"""Random scenario for the 21140 differential test (see run-diff.sh): one operation per line.

  W off value      register write          R off              register read (traced)
  D off w0 w1 w2 w3  descriptor (w1..w3 first, w0 last)   P off len seed   fill memory with (i*7+seed)
  Z off / H off    a perfect / hash setup frame at off     F dst len seed type  a frame from the wire (no FCS)
  END              final dump
Numbers are decimal; "@X" is the bus address of region offset X. Features where the shim differs from the model
on purpose (AC frames, frames under 14 bytes, MTU, a full kernel TX ring, timers) are not generated.
Usage: gen_scenario.py SEED [OPS]
"""
import random
import sys
seed = int(sys.argv[1]); n_ops = int(sys.argv[2]) if len(sys.argv) > 2 else 200
R = random.Random(seed)
MEM = 0x40000
RXR, TXR, SETUP, TXB, RXB = 0x0, 0x1000, 0x3000, 0x4000, 0x8000
dsl = R.choice([0, 0, 1, 2])
stride = 16 + 4 * dsl
ntx = R.randint(3, 8); nrx = R.randint(2, 8)
out = []
def op(*a): out.append(' '.join(str(x) for x in a))
def rnd_addr(base, span, align):
    r = R.random()
    if r < 0.005: return 0
    if r < 0.01: return '@%d' % (MEM - R.randint(1, 64))
    if r < 0.015: return '@%d' % (base + R.randrange(span) | 2)
    a = base + R.randrange(span)
    if align: a &= ~3
    return '@%d' % a
def tx_desc(i):
    c = 0
    r = R.random()
    if r < 0.06:  # setup frame
        c |= 1 << 27
        c |= R.choice([0, 1 << 22, 1 << 28, (1 << 28) | (1 << 22)])
        c |= 192 if R.random() < 0.8 else R.randint(0, 300)
        if R.random() < 0.5: c |= 1 << 31
        b1 = '@%d' % SETUP if R.random() < 0.95 else 0
        b2 = 0
    else:
        fs = R.random() < 0.8; ls = R.random() < 0.8
        if fs: c |= 1 << 29
        if ls: c |= 1 << 30
        if R.random() < 0.4: c |= 1 << 31
        s1 = R.choice([0, R.randint(1, 300), R.randint(1, 60), R.randint(1000, 2047)]) if R.random() < 0.97 else 0
        s2 = R.randint(1, 200) if R.random() < 0.3 else 0
        if R.random() < 0.02: s1, s2 = 2047, 2047
        c |= s1 | (s2 << 11)
        if s1 >= 14 and R.random() < 0.15:
            c |= 1 << 23  # DPD (only where the frame cannot be shorter than a header, which AF_PACKET needs)
        b1 = rnd_addr(TXB, 0x3000, False); b2 = rnd_addr(TXB, 0x3000, False)
    if i == ntx - 1: c |= 1 << 25
    if R.random() < 0.15:  # chained: word 3 points at the next descriptor (TBS2 then ignored)
        c |= 1 << 24
        b2 = '@%d' % (TXR + ((i + 1) % ntx) * stride)
    own = (1 << 31) if R.random() < 0.85 else 0
    op('D', TXR + i * stride, own, c, b1, b2)
def rx_desc(i):
    s1 = R.choice([R.randint(0, 500) & ~3, R.randint(0, 200), 1536, 64, 0]) if R.random() < 0.97 else 0
    s2 = (R.randint(0, 300) & ~3) if R.random() < 0.3 else 0
    c = s1 | (s2 << 11)
    if i == nrx - 1: c |= 1 << 25
    b2 = rnd_addr(RXB + 0x1000 * i + 0x800, 0x400, True)
    if R.random() < 0.15:  # chained
        c |= 1 << 24
        b2 = '@%d' % (RXR + ((i + 1) % nrx) * stride)
    own = (1 << 31) if R.random() < 0.85 else 0
    op('D', RXR + i * stride, own, c, rnd_addr(RXB + 0x1000 * i, 0x800, True), b2)
op('W', 0x00, 1)
op('W', 0x00, dsl << 2)
op('P', TXB, 0x3000, R.randint(0, 255))
op('Z' if R.random() < 0.6 else 'H', SETUP)
for i in range(ntx): tx_desc(i)
for i in range(nrx): rx_desc(i)
op('W', 0x18, '@%d' % RXR); op('W', 0x20, '@%d' % TXR)
op('W', 0x38, R.choice([0x1ebef, 0x1ffff, 0, R.getrandbits(17)]))
def csr6():
    v = (1 << 25) | (1 << 18) | (1 << 21)
    if R.random() < 0.9: v |= 2
    if R.random() < 0.9: v |= 1 << 13
    for b, p in ((6, 0.15), (7, 0.15), (30, 0.08), (3, 0.1), (0, 0.1), (2, 0.1), (4, 0.1)):
        if R.random() < p: v |= 1 << b
    if R.random() < 0.1: v |= R.choice([1, 2]) << 10
    return v
op('W', 0x30, csr6())
nxt = [ntx - 1, nrx - 1]
for _ in range(n_ops):
    r = R.random()
    if r < 0.20:
        dst = R.choice(['MAC', 'MAC', 'PEER', 'BCAST', 'MCAST', 'OTHER'])
        ln = R.choice([R.randint(60, 700), R.randint(60, 100), R.randint(1400, 1514)]) if R.random() < 0.97 else 2100
        op('F', dst, ln, R.randint(0, 255), R.choice([0x0800, 0x0040, 0x88b5]))
    elif r < 0.32:
        nxt[0] = (nxt[0] + 1) % ntx if R.random() < 0.85 else R.randrange(ntx)
        tx_desc(nxt[0]); op('W', 0x08, 0)
    elif r < 0.42:
        nxt[1] = (nxt[1] + 1) % nrx if R.random() < 0.85 else R.randrange(nrx)
        rx_desc(nxt[1])
    elif r < 0.50: op('W', 0x08, 0)
    elif r < 0.56: op('W', 0x10, 0)
    elif r < 0.64: op('W', 0x28, R.choice([0x1ffff, R.getrandbits(32), 0x0800f7ba]))
    elif r < 0.70: op('W', 0x30, csr6())
    elif r < 0.72: op('W', 0x38, R.getrandbits(17))
    elif r < 0.78: op('R', 0x40)
    elif r < 0.81: op('W', 0x18, '@%d' % RXR)
    elif r < 0.84: op('W', 0x20, '@%d' % TXR)
    elif r < 0.85: op('W', 0x00, R.choice([1, dsl << 2]))
    elif r < 0.87: op('W', 0x30, (1 << 25))
    else: op('R', 0x28)
op('END')
print('\n'.join(out))
