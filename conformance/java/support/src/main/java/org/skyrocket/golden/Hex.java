package org.skyrocket.golden;

/** Lower-case hex, 32 bytes per line, so that goldens diff readably. Readers ignore whitespace. */
public final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    public static String of(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(DIGITS[(x >> 4) & 0xF]).append(DIGITS[x & 0xF]);
        }
        return sb.toString();
    }

    /** The file form: 64 hex digits per line, trailing newline. */
    public static byte[] lines(byte[] b) {
        String h = of(b);
        StringBuilder sb = new StringBuilder(h.length() + h.length() / 64 + 2);
        for (int i = 0; i < h.length(); i += 64) {
            sb.append(h, i, Math.min(h.length(), i + 64)).append('\n');
        }
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
