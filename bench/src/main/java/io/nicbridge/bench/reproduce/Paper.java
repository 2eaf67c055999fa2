package io.nicbridge.bench.reproduce;

/** The five papers nicbridge rebuilds, one report section each, plus the project's own checks. */
public enum Paper {
    UNET("unet", "U-Net", "T. von Eicken, A. Basu, V. Buch, W. Vogels: U-Net: A User-Level Network Interface for"
            + " Parallel and Distributed Computing, SOSP 1995 (Fore SBA-200 ATM card)"),
    PUPA("pupa", "Pupa", "M. Verma, T. Chiueh: Pupa: A Low-Latency Communication System for Fast Ethernet"
            + " (DEC 21140)"),
    CAREFUL("careful", "Careful protocols", "D. Mosberger, C. J. Turner, L. L. Peterson: Exploiting Highly Reliable"
            + " Networks with Careful Protocols, TR 94-14 (HP Medusa FDDI card)"),
    NIFDY("nifdy", "NIFDY", "T. Callahan, S. C. Goldstein: NIFDY: A Low Overhead, High Throughput Network Interface"),
    IDEMPOTENT("idempotent", "Idempotent messaging", "J. Brown, J. P. Grossman, T. Knight: A Lightweight Idempotent"
            + " Messaging Protocol for Faulty Networks"),
    PROJECT("project", "nicbridge's own checks", "not a paper: the deterministic simulation tester and the host cost"
            + " model every virtual-time figure above is charged from");

    private final String key;
    private final String title;
    private final String citation;

    Paper(String key, String title, String citation) {
        this.key = key;
        this.title = title;
        this.citation = citation;
    }

    /** @return the word {@code --only} takes and the report's section anchor, e.g. {@code careful} */
    public String key() {
        return key;
    }

    public String title() {
        return title;
    }

    public String citation() {
        return citation;
    }

    /**
     * @return the paper whose {@link #key()} is {@code key} (case-insensitive)
     * @throws IllegalArgumentException naming the word and every known one
     */
    public static Paper of(String key) {
        for (Paper p : values()) {
            if (p.key.equalsIgnoreCase(key.trim())) {
                return p;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Paper p : values()) {
            known.append(known.isEmpty() ? "" : ", ").append(p.key);
        }
        throw new IllegalArgumentException("unknown paper '" + key + "'; known: " + known);
    }
}
