package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The separable allocators keep a running leader per requested output (the router's fast path: one request per
 * output needs no pointer read, a replaced choice re-elects). Here they must grant exactly what a textbook separable
 * allocator grants: collect the round's final requests, then let each output's round-robin arbiter pick the
 * requester nearest its pointer, and move the pointers past used grants. Random rounds on two routers (so the
 * router-local state must be cleared between rounds and offset by the router's base), many rounds each, so wrong
 * pointer moves show up as wrong grants later.
 */
class SeparableAllocatorsTest {

    private static int distance(int x, int ptr, int width) {
        return Math.floorMod(x - ptr, width);
    }

    @Property(tries = 200)
    void switchAllocatorGrantsWhatAFreshArbitrationOfTheFinalRequestsGrants(
            @ForAll @IntRange(min = 1, max = 9) int ports, @ForAll @IntRange(min = 1, max = 8) int vcs,
            @ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int routers = 2;
        SeparableSwitchAllocator sa = new SeparableSwitchAllocator(routers * ports, routers * ports, ports, vcs);
        int[] inPtr = new int[routers * ports];
        int[] outPtr = new int[routers * ports];
        for (int round = 0; round < 60; round++) {
            int base = rnd.nextInt(routers) * ports;
            sa.begin(base);
            int[] vc = new int[ports];
            int[] out = new int[ports];
            java.util.Arrays.fill(vc, -1);
            List<Integer> order = new ArrayList<>();
            // the scan: some ports request their first ready VC, in port order
            for (int p = 0; p < ports; p++) {
                assertEquals(inPtr[base + p], sa.firstVc(base + p), "input pointer of port " + p);
                if (rnd.nextInt(3) > 0) {
                    vc[p] = rnd.nextInt(vcs);
                    out[p] = rnd.nextInt(ports);
                    order.add(p);
                    sa.request(p, vc[p], base + out[p]);
                }
            }
            // VA winners offer themselves afterwards
            for (int k = rnd.nextInt(ports + 1); k > 0; k--) {
                int p = rnd.nextInt(ports);
                int v = rnd.nextInt(vcs);
                int o = rnd.nextInt(ports);
                sa.offer(p, v, base + o);
                if (vc[p] < 0) {
                    vc[p] = v;
                    out[p] = o;
                    order.add(p);
                } else if (distance(v, inPtr[base + p], vcs) < distance(vc[p], inPtr[base + p], vcs)) {
                    vc[p] = v;
                    out[p] = o;
                }
            }
            // reference output stage over the final requests
            int[] winner = new int[ports];
            java.util.Arrays.fill(winner, -1);
            for (int p : order) {
                int o = out[p];
                int w = winner[o];
                if (w < 0 || distance(p, outPtr[base + o], ports) < distance(w, outPtr[base + o], ports)) {
                    winner[o] = p;
                }
            }
            assertEquals(order.size(), sa.requests());
            for (int i = 0; i < order.size(); i++) {
                int p = order.get(i);
                assertEquals(base + p, sa.input(i));
                assertEquals(vc[p], sa.vc(i));
                boolean expected = winner[out[p]] == p;
                assertEquals(expected, sa.grant(i), "round " + round + " request " + i + " (port " + p + ")");
                if (expected) {
                    outPtr[base + out[p]] = (p + 1) % ports;
                    inPtr[base + p] = (vc[p] + 1) % vcs;
                }
            }
        }
    }

    @Property(tries = 200)
    void vcAllocatorGrantsTheRequesterNearestEachOutputVcsPointer(
            @ForAll @IntRange(min = 1, max = 40) int localVcs, @ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int routers = 3;
        SeparableVcAllocator va = new SeparableVcAllocator(routers * localVcs, localVcs);
        int[] ptr = new int[routers * localVcs];
        for (int round = 0; round < 60; round++) {
            int base = rnd.nextInt(routers) * localVcs;
            va.begin(base);
            List<int[]> requests = new ArrayList<>();
            for (int ivc = 0; ivc < localVcs; ivc++) {
                if (rnd.nextInt(4) == 0) {
                    // few output VCs, so several requesters often meet
                    int ovc = base + rnd.nextInt(Math.min(localVcs, 3));
                    requests.add(new int[] {ivc, ovc});
                    va.request(ivc, ovc);
                }
            }
            assertEquals(requests.size(), va.requests());
            boolean[] nearestOf = new boolean[requests.size()]; // decided on the pointers before this round's grants
            for (int i = 0; i < requests.size(); i++) {
                int ivc = requests.get(i)[0];
                int ovc = requests.get(i)[1];
                nearestOf[i] = true;
                for (int[] other : requests) {
                    if (other[1] == ovc && distance(other[0], ptr[ovc], localVcs) < distance(ivc, ptr[ovc], localVcs)) {
                        nearestOf[i] = false;
                    }
                }
            }
            for (int i = 0; i < requests.size(); i++) {
                int ivc = requests.get(i)[0];
                int ovc = requests.get(i)[1];
                boolean nearest = nearestOf[i];
                assertEquals(ivc, va.requester(i));
                assertEquals(ovc, va.outputVc(i));
                assertEquals(nearest, va.grant(i), "round " + round + " request " + i);
                if (nearest) {
                    ptr[ovc] = (ivc + 1) % localVcs;
                }
            }
        }
    }
}
