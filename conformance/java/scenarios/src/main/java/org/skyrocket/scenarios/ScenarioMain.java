package org.skyrocket.scenarios;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * Runs the Java client scenarios against a NameServer + Broker and prints one line per
 * scenario, "PASS label name (ms)" or "FAIL label name: why", then "label: N passed, M failed".
 * Exit status 1 when any scenario failed.
 *
 * <pre>
 * ScenarioMain --namesrv HOST:PORT --broker HOST:PORT --label L
 *              [--only a,b] [--skip c,d] [--state FILE] [--phase after-restart] [--list]
 * </pre>
 * Without --phase the scenarios that need no broker restart run, plus the first half of the
 * restart scenarios (which write FILE); --phase after-restart runs only their second half.
 * The client version (MQVersion.CURRENT_VERSION) decides which extra scenarios exist:
 * org.skyrocket.scenarios.v49 for 4.9.x, .v42 for 4.2.0.
 */
public final class ScenarioMain {
    private ScenarioMain() {
    }

    public static void main(String[] args) throws Exception {
        String namesrv = null;
        String broker = null;
        String label = "java";
        String phase = "";
        Path stateFile = null;
        Set<String> only = new LinkedHashSet<>();
        Set<String> skip = new LinkedHashSet<>();
        boolean list = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--namesrv" -> namesrv = args[++i];
                case "--broker" -> broker = args[++i];
                case "--label" -> label = args[++i];
                case "--phase" -> phase = args[++i];
                case "--state" -> stateFile = Path.of(args[++i]);
                case "--only" -> only.addAll(Arrays.asList(args[++i].split(",")));
                case "--skip" -> skip.addAll(Arrays.asList(args[++i].split(",")));
                case "--list" -> list = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<Scenario> all = new ArrayList<>(phase.equals("after-restart") ? Restart.second() : Scenarios.all());
        all.addAll(phase.equals("after-restart") ? List.of() : versionScenarios());
        if (list) {
            for (Scenario s : all) {
                System.out.println(s.name());
            }
            return;
        }
        for (String s : only) {
            if (all.stream().noneMatch(x -> x.name().equals(s))) {
                throw new IllegalArgumentException("unknown scenario " + s);
            }
        }
        String client = MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION);
        String serialize = RemotingCommand.createRequestCommand(0, null).getSerializeTypeCurrentRPC().name();
        System.out.printf("== %s: client %s, headers %s, sends %s, namesrv %s, broker %s%n", label, client, serialize, sendCode(),
            namesrv, broker);

        String runId = Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
        DefaultMQAdminExt admin = new DefaultMQAdminExt("scenario_admin_" + runId);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName("scenario_admin_" + runId);
        admin.start();
        State state = new State(stateFile);
        int passed = 0;
        int failed = 0;
        for (Scenario s : all) {
            if ((!only.isEmpty() && !only.contains(s.name())) || skip.contains(s.name())) {
                continue;
            }
            Ctx c = new Ctx(namesrv, broker, runId, admin, state);
            long t0 = System.currentTimeMillis();
            String why = null;
            try {
                s.run(c);
            } catch (Ctx.Failure f) {
                why = f.getMessage();
            } catch (Throwable t) {
                why = t.toString();
                Throwable cause = t.getCause();
                if (cause != null && cause != t) {
                    why += " (cause: " + cause + ")";
                }
            } finally {
                c.cleanup();
            }
            long ms = System.currentTimeMillis() - t0;
            if (why == null) {
                passed++;
                System.out.printf("PASS %s %s (%d ms)%n", label, s.name(), ms);
            } else {
                failed++;
                System.out.printf("FAIL %s %s (%d ms): %s%n", label, s.name(), ms, why.replace('\n', ' '));
            }
            System.out.flush();
        }
        admin.shutdown();
        System.out.printf("%s: %d passed, %d failed%n", label, passed, failed);
        System.exit(failed == 0 ? 0 : 1);
    }

    /**
     * The request code single sends use: SEND_MESSAGE_V2 unless the JVM runs with
     * -Dorg.apache.rocketmq.client.sendSmartMsg=false (MQClientAPIImpl's static sendSmartMsg).
     */
    private static String sendCode() {
        try {
            java.lang.reflect.Field f = org.apache.rocketmq.client.impl.MQClientAPIImpl.class.getDeclaredField("sendSmartMsg");
            f.setAccessible(true);
            return f.getBoolean(null) ? "SEND_MESSAGE_V2" : "SEND_MESSAGE";
        } catch (ReflectiveOperationException e) {
            return "unknown";
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Scenario> versionScenarios() throws Exception {
        for (String cls : new String[] {"org.skyrocket.scenarios.v49.VersionScenarios", "org.skyrocket.scenarios.v42.VersionScenarios"}) {
            try {
                Class<?> c = Class.forName(cls);
                return (List<Scenario>) c.getMethod("all").invoke(null);
            } catch (ClassNotFoundException e) {
                // the other client version's scenarios are not compiled into this module
            }
        }
        throw new IllegalStateException("no version scenarios compiled in");
    }
}
