package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code nic tcp interop}'s input: sizes, and bad values refused with exit code 2 and a message naming them before
 * anything is set up. The exchange itself is {@code TcpKernelInterop}, run by protocols' {@code TcpKernelInteropTest}
 * at 4 MB each way; its 100 MB result is in the README.
 */
class TcpInteropCommandTest {
    private static String run(int expectedExit, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = NicCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        int exit = cl.execute(args);
        assertEquals(expectedExit, exit, out.toString());
        return out.toString();
    }

    @ParameterizedTest
    @CsvSource({"100M, 100000000", "2m, 2000000", "10K, 10000", "1G, 1000000000", "12345, 12345"})
    void sizesAreBytesWithDecimalUnits(String text, long bytes) {
        assertEquals(bytes, TcpCommands.Interop.parseSize(text));
    }

    @Test
    void badSizesAreRefused() {
        for (String bad : new String[] {"0", "-1M", "ten", "5G", "1.5M"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TcpCommands.Interop.parseSize(bad));
            assertTrue(e.getMessage().contains("--size"), e.getMessage());
        }
        assertTrue(run(ExitCodes.USAGE, "tcp", "interop", "--size", "ten").contains("--size"));
    }

    @Test
    void badFaultProbabilitiesAreRefusedNamingThem() {
        String out = run(ExitCodes.USAGE, "tcp", "interop", "--size", "1M", "--drop", "0.7", "--dup", "0.6");
        assertTrue(out.contains("add up"), out);
        out = run(ExitCodes.USAGE, "tcp", "interop", "--size", "1M", "--faults", "sideways");
        assertTrue(out.contains("faults must be both, rx or tx"), out);
        out = run(ExitCodes.USAGE, "tcp", "interop", "--size", "1M", "--backend", "emu:dec21140");
        assertTrue(out.contains("native shim"), out);
    }
}
