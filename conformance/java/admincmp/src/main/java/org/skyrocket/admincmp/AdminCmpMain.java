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
 *   AdminCmpMain selftest
 *       shows that the comparison fails where it must (compare.sh runs it first)
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
            case "selftest" -> System.exit(selftest());
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

    /**
     * The comparison must find what it is there to find: each case below changes one line of
     * a small Java-like run and expects that many DIFFs (0 where a rule allows the change).
     */
    private static int selftest() throws IOException {
        Map<String, String> base = new LinkedHashMap<>();
        base.put("c202.examineTopicStats.T.offsetTable[MessageQueue [topic=T, brokerName=broker-a, queueId=0]].maxOffset", "4");
        base.put("c202.examineTopicStats.T.offsetTable[MessageQueue [topic=T, brokerName=broker-a, queueId=0]].lastUpdateTimestamp", "1796178592723");
        base.put("c26.getBrokerConfig[listenPort]", "\"10911\"");
        base.put("c26.getBrokerConfig[brokerRole]", "\"ASYNC_MASTER\"");
        base.put("c28.fetchBrokerRuntimeStats.table.size", "3");
        base.put("c28.fetchBrokerRuntimeStats.table[putTps]", "\"12.5  \"");
        base.put("c28.fetchBrokerRuntimeStats.table[commitLogDiskRatio]", "\"0.61\"");
        base.put("c28.fetchBrokerRuntimeStats.table[runtime]", "\"[ 0 days, 0 hours, 0 minutes, 25 seconds ]\"");
        Object[][] cases = {
            {"identical", null, null, 0},
            {"a value differs", "c202.examineTopicStats.T.offsetTable[MessageQueue [topic=T, brokerName=broker-a, queueId=0]].maxOffset", "5", 1},
            {"a path is missing", "c26.getBrokerConfig[brokerRole]", null, 1},
            {"a path is added", "c26.getBrokerConfig[extraKey]", "\"x\"", 1},
            {"an allowed time differs", "c202.examineTopicStats.T.offsetTable[MessageQueue [topic=T, brokerName=broker-a, queueId=0]].lastUpdateTimestamp", "1796178590000", 0},
            {"an allowed number is not a number", "c202.examineTopicStats.T.offsetTable[MessageQueue [topic=T, brokerName=broker-a, queueId=0]].lastUpdateTimestamp", "\"soon\"", 1},
            {"an allowed port differs", "c26.getBrokerConfig[listenPort]", "\"20911\"", 0},
            {"a runtime value in another format", "c28.fetchBrokerRuntimeStats.table[commitLogDiskRatio]", "\"0.2152705778589597\"", 1},
            {"a runtime value differs within the format", "c28.fetchBrokerRuntimeStats.table[putTps]", "\"3.0  \"", 0},
            {"a TPS window formatted otherwise", "c28.fetchBrokerRuntimeStats.table[putTps]", "\"12,5  \"", 1},
            {"a runtime key is missing", "c28.fetchBrokerRuntimeStats.table[runtime]", null, 1},
            {"a runtime key Java does not have", "c28.fetchBrokerRuntimeStats.table[bogusKey]", "\"1\"", 1},
            {"Skyrocket's timer key", "c28.fetchBrokerRuntimeStats.table[timerCongestNum]", "\"0\"", 0},
        };
        int failed = 0;
        for (Object[] c : cases) {
            Map<String, String> sky = new LinkedHashMap<>(base);
            if (c[1] != null) {
                if (c[2] == null) {
                    sky.remove((String) c[1]);
                } else {
                    sky.put((String) c[1], (String) c[2]);
                }
            }
            Compare cmp = new Compare();
            cmp.run(base, sky);
            boolean ok = cmp.diffs == (Integer) c[3];
            if (!ok) {
                failed++;
                System.out.println("admin-compare selftest FAIL: " + c[0] + ": " + cmp.diffs + " DIFF, want " + c[3]);
                cmp.report.stream().filter(l -> l.startsWith("DIFF")).forEach(System.out::println);
            }
        }
        System.out.printf("admin-compare selftest: %d cases, %d failed%n", cases.length, failed);
        return failed == 0 ? 0 : 1;
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
