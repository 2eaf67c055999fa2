package io.nicbridge.bridge.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed device spec string:
 * <pre>
 *   spec   = scheme ":" target [ "?" param *( "&amp;" param ) ]
 *   param  = key "=" value
 *   scheme = lower-case letter *( lower-case letter / digit / "-" )        e.g. emu, shim
 *   target, key, value = 1*( letter / digit / "." / "_" / "-" / "/" )
 *
 *   emu:dec21140                               scheme emu,  target dec21140
 *   shim:afpacket?if=veth0&amp;card=dec21140       scheme shim, target afpacket, params {if=veth0, card=dec21140}
 * </pre>
 * Parameters keep their order; a key may appear once. {@link #card()} is the card model the spec asks
 * for: the {@code card} parameter when present, else the target.
 */
public final class DeviceSpec {
    private final String text;
    private final String scheme;
    private final String target;
    private final Map<String, String> params;

    private DeviceSpec(String text, String scheme, String target, Map<String, String> params) {
        this.text = text;
        this.scheme = scheme;
        this.target = target;
        this.params = params;
    }

    /**
     * @throws IllegalArgumentException naming the first thing that is wrong with {@code spec}
     */
    public static DeviceSpec parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String s = spec.strip();
        if (s.isEmpty()) {
            throw bad(spec, "it is empty; expected scheme:target, e.g. emu:dec21140");
        }
        int colon = s.indexOf(':');
        if (colon < 0) {
            throw bad(spec, "missing ':' between scheme and target, e.g. emu:" + s);
        }
        String scheme = s.substring(0, colon);
        if (!isScheme(scheme)) {
            throw bad(spec, "scheme '" + scheme + "' must start with a lower-case letter and contain only"
                + " lower-case letters, digits and '-'");
        }
        String rest = s.substring(colon + 1);
        int question = rest.indexOf('?');
        String target = question < 0 ? rest : rest.substring(0, question);
        if (target.isEmpty()) {
            throw bad(spec, "the target after '" + scheme + ":' is empty");
        }
        if (!isToken(target)) {
            throw bad(spec, "target '" + target + "' may contain only letters, digits, '.', '_', '-' and '/'");
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (question >= 0) {
            String query = rest.substring(question + 1);
            if (query.isEmpty()) {
                throw bad(spec, "'?' is not followed by any key=value parameter");
            }
            for (String pair : query.split("&", -1)) {
                if (pair.isEmpty()) {
                    throw bad(spec, "empty parameter (doubled or trailing '&')");
                }
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    throw bad(spec, "parameter '" + pair + "' has no '=value'");
                }
                String key = pair.substring(0, eq);
                String value = pair.substring(eq + 1);
                if (key.isEmpty() || !isToken(key)) {
                    throw bad(spec, "parameter key '" + key + "' must be non-empty letters, digits, '.', '_', '-', '/'");
                }
                if (value.isEmpty()) {
                    throw bad(spec, "parameter '" + key + "' has an empty value");
                }
                if (!isToken(value)) {
                    throw bad(spec, "value '" + value + "' of parameter '" + key
                        + "' may contain only letters, digits, '.', '_', '-' and '/'");
                }
                if (params.putIfAbsent(key, value) != null) {
                    throw bad(spec, "parameter '" + key + "' is given twice");
                }
            }
        }
        return new DeviceSpec(s, scheme, target, Collections.unmodifiableMap(params));
    }

    private static IllegalArgumentException bad(String spec, String why) {
        return new IllegalArgumentException("malformed device spec '" + spec + "': " + why);
    }

    private static boolean isScheme(String s) {
        if (s.isEmpty() || s.charAt(0) < 'a' || s.charAt(0) > 'z') {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-' || c == '/')) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    public String scheme() {
        return scheme;
    }

    public String target() {
        return target;
    }

    /** @return the parameters in the order given (unmodifiable) */
    public Map<String, String> params() {
        return params;
    }

    public Optional<String> param(String key) {
        return Optional.ofNullable(params.get(key));
    }

    public String param(String key, String defaultValue) {
        return params.getOrDefault(key, defaultValue);
    }

    /** @throws IllegalArgumentException when {@code key} is missing */
    public String requireParam(String key) {
        String value = params.get(key);
        if (value == null) {
            throw new IllegalArgumentException("device spec '" + text + "' needs parameter '" + key + "'");
        }
        return value;
    }

    /** @return the card model: the {@code card} parameter when present, else the target */
    public String card() {
        return params.getOrDefault("card", target);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceSpec other && scheme.equals(other.scheme) && target.equals(other.target)
            && params.equals(other.params) && java.util.List.copyOf(params.keySet())
            .equals(java.util.List.copyOf(other.params.keySet()));
    }

    @Override
    public int hashCode() {
        return Objects.hash(scheme, target, params);
    }

    /** @return the canonical text, which {@link #parse} turns back into an equal spec */
    @Override
    public String toString() {
        if (params.isEmpty()) {
            return scheme + ":" + target;
        }
        StringBuilder sb = new StringBuilder(scheme).append(':').append(target).append('?');
        boolean first = true;
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (!first) {
                sb.append('&');
            }
            first = false;
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }
}
