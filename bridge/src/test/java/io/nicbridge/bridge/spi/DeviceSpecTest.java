package io.nicbridge.bridge.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeviceSpecTest {
    @Test
    void emulatorSpec() {
        DeviceSpec s = DeviceSpec.parse("emu:dec21140");
        assertEquals("emu", s.scheme());
        assertEquals("dec21140", s.target());
        assertEquals("dec21140", s.card());
        assertEquals(Map.of(), s.params());
        assertEquals("emu:dec21140", s.toString());
    }

    @Test
    void shimSpecKeepsParameterOrder() {
        DeviceSpec s = DeviceSpec.parse(" shim:afpacket?if=veth0&card=dec21140&ring.size=256 ");
        assertEquals("shim", s.scheme());
        assertEquals("afpacket", s.target());
        assertEquals("dec21140", s.card(), "card parameter wins over the target");
        assertEquals(List.of("if", "card", "ring.size"), List.copyOf(s.params().keySet()));
        assertEquals("veth0", s.requireParam("if"));
        assertEquals(Optional.empty(), s.param("mtu"));
        assertEquals("1500", s.param("mtu", "1500"));
        assertEquals("shim:afpacket?if=veth0&card=dec21140&ring.size=256", s.toString());
        assertEquals(s, DeviceSpec.parse(s.toString()));
        assertEquals(s.hashCode(), DeviceSpec.parse(s.toString()).hashCode());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.requireParam("mtu"));
        assertTrue(e.getMessage().contains("needs parameter 'mtu'"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> s.params().put("x", "y"));
    }

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', value = {
        "''                                  | empty",
        "dec21140                            | missing ':'",
        "EMU:dec21140                        | scheme 'EMU'",
        "1emu:dec21140                       | scheme '1emu'",
        ":dec21140                           | scheme ''",
        "emu:                                | target after 'emu:' is empty",
        "emu:?if=x                           | target after 'emu:' is empty",
        "emu:dec 21140                       | target 'dec 21140'",
        "emu:dec21140?                       | not followed by any key=value",
        "emu:dec21140?if                     | parameter 'if' has no '=value'",
        "emu:dec21140?=x                     | parameter key ''",
        "emu:dec21140?if=                    | parameter 'if' has an empty value",
        "emu:dec21140?if=a&&card=b           | empty parameter",
        "emu:dec21140?if=a&                  | empty parameter",
        "emu:dec21140?if=a&if=b              | parameter 'if' is given twice",
        "emu:dec21140?if=a=b                 | value 'a=b'",
        "emu:dec21140?if=a?b                 | value 'a?b'",
        "emu:dec:21140                       | target 'dec:21140'",
    })
    void malformedSpecsSayWhatIsWrong(String spec, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceSpec.parse(spec));
        assertTrue(e.getMessage().startsWith("malformed device spec '" + spec + "'"), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
