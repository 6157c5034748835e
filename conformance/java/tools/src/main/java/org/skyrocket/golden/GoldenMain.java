package org.skyrocket.golden;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Writes every 4.9.8-side golden under the given root (the repository root, or a temp dir for
 * the check mode): codec/testdata/golden, protocol/testdata/golden, store/testdata/java.
 * The broker config files come from the 4.9.7 servers module (ConfigGoldenMain).
 */
public final class GoldenMain {
    private GoldenMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GoldenMain <root>");
            System.exit(2);
        }
        Path root = Paths.get(args[0]);
        // DefaultMessageStore (used for ConsumeQueue) starts service threads: always end the JVM explicitly.
        try {
            FrameGoldens.write(root.resolve("codec/testdata/golden"));
            BodyGoldens.write(root.resolve("protocol/testdata/golden"));
            StoreGoldens.write(root.resolve("store/testdata/java"));
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
