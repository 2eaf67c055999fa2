package io.nicbridge.testing;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Something of the machine's that some tests need and that a build may lack: each test that needs one skips without
 * it, unless {@link Requirements#VARIABLE} names it (then the test fails). The {@link #word()}s are what that
 * variable lists; the C test runners know the same words (native-headers/src/test/c/require.sh, checked by
 * RequirementsTest).
 */
public enum Capability {
    /** Network namespaces, veth pairs and raw packet sockets: root (CAP_SYS_ADMIN, CAP_NET_RAW) and iproute2. */
    NET("net", "network namespaces, veth pairs and raw packet sockets (root or CAP_SYS_ADMIN + CAP_NET_RAW, iproute2)"),
    /** The native driver shim, libnicshim.so, built by gcc for Linux x86-64 and loadable here. */
    SHIM("shim", "the native driver shim libnicshim.so (built by gcc for Linux x86-64)"),
    /** Wireshark's command-line decoder, which the capture tests run over the files they write. */
    TSHARK("tshark", "Wireshark's tshark on the PATH, to decode the capture files"),
    /** valgrind memcheck, which the C test runners put every C test under. */
    VALGRIND("valgrind", "valgrind on the PATH, to run the C tests under memcheck"),
    /** libclang 14, with which the binding generator re-reads the headers. */
    LIBCLANG("libclang", "libclang 14, to regenerate the Java bindings from the headers"),
    /** util-linux setpriv and prlimit on Linux, able to drop capabilities and limits for a child process. */
    SETPRIV("setpriv", "util-linux setpriv and prlimit on Linux, able to drop a child process's capabilities"),
    /** Headless Chromium, in which the reproduce report's test renders the page as a reader's browser would. */
    CHROMIUM("chromium", "Chromium (Debian package chromium) on the PATH, to render the reproduce report headless"),
    /** clang with libFuzzer ({@code -fsanitize=fuzzer}), with which the C test runners build the shim's fuzz harnesses. */
    CLANG_FUZZER("clang-fuzzer",
        "clang with libFuzzer (Debian package clang-14), to build and run the native shim's fuzz harnesses");

    private final String word;
    private final String description;

    Capability(String word, String description) {
        this.word = word;
        this.description = description;
    }

    /** @return the name {@link Requirements#VARIABLE} uses, e.g. {@code tshark} */
    public String word() {
        return word;
    }

    /** @return what the capability is, in a few words */
    public String description() {
        return description;
    }

    /**
     * @return the capability named {@code word} (case-insensitive)
     * @throws IllegalArgumentException for any other word, naming it and every known one
     */
    public static Capability of(String word) {
        String w = word.trim().toLowerCase(Locale.ROOT);
        for (Capability c : values()) {
            if (c.word.equals(w)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown capability '" + word + "'; known: " + words() + ", all");
    }

    /** @return every word, comma-separated, in declaration order */
    public static String words() {
        return Arrays.stream(values()).map(Capability::word).collect(Collectors.joining(", "));
    }
}
