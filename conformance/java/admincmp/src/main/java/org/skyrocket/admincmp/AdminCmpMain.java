package org.skyrocket.admincmp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's and the exporter's admin calls, Skyrocket against Java (compare.sh).
 *
 *   AdminCmpMain collect --namesrv ADDR --broker ADDR --store DIR --home DIR
 *                        [--slave ADDR --slave-store DIR --slave-home DIR] --out FILE
 *       the workload, then every call (Collect), written as "path TAB value" lines
 *   AdminCmpMain compare --java FILE --skyrocket FILE
 *       prints the differences not in allowlist.txt / runtime-formats.txt; exit 1 if any
 */
public final class AdminCmpMain {
    private AdminCmpMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "collect" -> System.exit(collect(a));
            case "compare" -> System.exit(compare(a));
            default -> {
                System.err.println("usage: AdminCmpMain collect --namesrv ADDR --broker ADDR --store DIR --home DIR --out FILE"
                    + " | compare --java FILE --skyrocket FILE");
                System.exit(2);
            }
        }
    }

    private static int collect(Map<String, String> a) throws IOException {
        Collect c = new Collect(a);
        long t0 = System.currentTimeMillis();
        int rc = 0;
        try {
            c.run();
        } catch (Exception e) {
            System.err.println("admin-compare: collect against " + a.get("broker") + " failed: " + e);
            e.printStackTrace();
            rc = 1;
        } finally {
            c.close();
        }
        List<String> lines = new ArrayList<>();
        c.out.forEach((k, v) -> lines.add(k + "\t" + v));
        Files.write(Path.of(a.get("out")), lines, StandardCharsets.UTF_8);
        System.out.printf("admin-compare: %d values from %s in %.1f s%n", c.out.size(), a.get("broker"),
            (System.currentTimeMillis() - t0) / 1000.0);
        return rc;
    }

    private static int compare(Map<String, String> a) throws IOException {
        Compare cmp = new Compare();
        cmp.run(read(a.get("java")), read(a.get("skyrocket")));
        cmp.report.forEach(System.out::println);
        return cmp.diffs == 0 ? 0 : 1;
    }

    private static Map<String, String> read(String file) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                m.put(line.substring(0, tab), line.substring(tab + 1));
            }
        }
        return m;
    }
}
