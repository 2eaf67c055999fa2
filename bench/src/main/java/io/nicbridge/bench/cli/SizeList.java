package io.nicbridge.bench.cli;

/**
 * The one parser of the comma-separated number lists the commands take ({@code --sizes}, {@code --nodes},
 * {@code --words}): every element an integer, blanks around it ignored. What the numbers may be is the experiment's
 * business, checked where it knows why (a frame without its FCS, 6 receive buffers of 1 KB, a ring of 2..64 stations).
 */
public final class SizeList {
    private SizeList() {
    }

    /** @throws IllegalArgumentException naming the option and the element that is not a number */
    public static int[] parse(String option, String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(option + " needs a comma-separated list of numbers, got nothing");
        }
        String[] parts = text.split(",", -1);
        int[] values = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String s = parts[i].trim();
            try {
                values[i] = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " must be a comma-separated list of numbers, was '" + text
                    + "': '" + s + "' is not a number");
            }
        }
        return values;
    }
}
