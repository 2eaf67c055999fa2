package io.nicbridge.protocols.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The Active Messages layer's parser (requests, replies, stores, gets, their acknowledgements) against any message a
 * peer may send: node 1 is a plain go-back-N channel whose messages are the fuzzer's bytes, so every one arrives
 * intact past go-back-N's CRC and reaches the AM dispatcher. Handlers 0 to 3 are registered (0 replies to a
 * request, the others only look at their token); the rest are unknown. Node 0 also makes its own requests. Whatever
 * arrives:
 * <ul>
 *   <li>no exception escapes {@code onFrame}, {@code poll} or {@code onTimer};</li>
 *   <li>a handler runs only with a token for a real peer, and at most once per message dispatched;</li>
 *   <li>the counters never go back.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/protocols/am/AmFuzzTestInputs/hostileMessages/}.
 */
class AmFuzzTest {
    private static final Method[] COUNTERS = Arrays.stream(AmCounters.class.getMethods())
            .filter(m -> m.getReturnType() == long.class && m.getParameterCount() == 0)
            .sorted((a, b) -> a.getName().compareTo(b.getName())).toArray(Method[]::new);

    @FuzzTest(maxDuration = "30s")
    void hostileMessages(FuzzedDataProvider script) throws Exception {
        AmConfig config = AmConfig.paper(64 * 1024);
        long[] now = {1};
        LoopbackLink[] pair = LoopbackLink.pair(config.linkMtu());
        AmCore am = new AmCore(pair[0], () -> now[0], config, HostCpu.uncharged("am"));
        GoBackNCore peer = new GoBackNCore(pair[1], () -> now[0], new GoBackNConfig(config.window(),
                config.maxMessage(), config.rtoNanos(), config.ackDelayNanos()), HostCpu.uncharged("peer"));
        long[] handled = {0};
        AmHandler check = (token, a0, a1, a2, a3) -> {
            handled[0]++;
            assertEquals(1, token.source(), "token source");
        };
        am.register(0, (token, a0, a1, a2, a3) -> {
            check.handle(token, a0, a1, a2, a3);
            if (token.isRequest()) {
                am.reply(token, 1, a0, a1, a2, a3);
            }
        });
        for (int h = 1; h < 4; h++) {
            am.register(h, check);
        }
        MemorySegment message = MemorySegment.ofArray(new byte[config.maxMessage()]);
        long[] last = counters(am.counters());
        for (int step = 0; step < 100 && script.remainingBytes() > 0; step++) {
            switch (script.consumeInt(0, 4)) {
                case 0 -> {
                    byte[] bytes = script.consumeBytes(script.consumeInt(0, config.maxMessage()));
                    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, message, 0, bytes.length);
                    int r = peer.offer(0, message, 0, bytes.length);
                    assertTrue(r == MessageChannel.OK || r == MessageChannel.BACK_PRESSURE, "offer " + r);
                }
                case 1 -> pair[0].poll(am, 64);
                case 2 -> {
                    long before = handled[0];
                    int n = am.poll(script.consumeInt(1, 8));
                    assertTrue(handled[0] - before <= n, (handled[0] - before) + " handlers ran for " + n + " messages");
                }
                case 3 -> {
                    pair[1].poll(peer, 64);
                    peer.deliver((p, d, o, l) -> { }, 64);
                }
                default -> {
                    now[0] += script.consumeLong(0, 2 * config.rtoNanos());
                    if (am.nextDeadline() <= now[0]) {
                        am.onTimer();
                    }
                    if (peer.nextDeadline() <= now[0]) {
                        peer.onTimer();
                    }
                    if (script.consumeBoolean()) {
                        am.request(1, script.consumeInt(0, 3), 1, 2, 3, 4);
                    }
                }
            }
            long[] current = counters(am.counters());
            for (int i = 0; i < current.length; i++) {
                assertTrue(current[i] >= last[i], COUNTERS[i].getName() + " went from " + last[i] + " to " + current[i]);
            }
            last = current;
        }
    }

    private static long[] counters(AmCounters c) throws Exception {
        long[] v = new long[COUNTERS.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (long) COUNTERS[i].invoke(c);
        }
        return v;
    }
}
