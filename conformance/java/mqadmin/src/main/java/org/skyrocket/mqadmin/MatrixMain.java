package org.skyrocket.mqadmin;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs every mqadmin 4.9.8 sub-command against a NameServer + Broker and writes the
 * matrix (Markdown). Usage:
 *
 * <pre>
 * MatrixMain -namesrv HOST:PORT -broker HOST:PORT -cluster NAME -broker-name NAME
 *            -work DIR -out matrix.md [-server "Skyrocket"] [-dump]
 * </pre>
 *
 * Exit status 1 when a sub-command's result differs from what its spec records (a
 * sub-command that works stops working, a refusal changes), when a registered
 * sub-command has no spec, or when the fixture cannot be prepared. -dump prints every
 * invocation's output.
 */
public final class MatrixMain {
    private MatrixMain() {
    }

    public static void main(String[] argv) {
        int rc;
        try {
            rc = run(argv);
        } catch (Throwable t) {
            t.printStackTrace(Capture.console());
            rc = 2;
        }
        Capture.console().flush();
        Runtime.getRuntime().halt(rc); // monitors (startMonitoring, clusterRT) are still running
    }

    private static int run(String[] argv) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        boolean dump = false;
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("-dump")) {
                dump = true;
            } else {
                a.put(argv[i].substring(1), argv[++i]);
            }
        }
        Capture.install();
        String work = a.get("work");
        Files.createDirectories(Path.of(work));
        Fixture fx = new Fixture(a.get("namesrv"), a.get("broker"), a.get("cluster"), a.get("broker-name"), work);
        fx.values.put("aclFile", a.getOrDefault("acl-file", work + "/plain_acl.yml"));
        long t0 = System.currentTimeMillis();
        // The clients' own warnings while the fixture is made (the trace topic is created by the
        // first trace send, ...) are kept and shown only if the fixture fails.
        Capture.Buffers fixtureLog = new Capture.Buffers();
        Capture.bind(fixtureLog);
        try {
            fx.prepare();
        } catch (Exception e) {
            Spec.Output o = fixtureLog.snapshot();
            Capture.console().print(o.out + o.err);
            throw e;
        } finally {
            Capture.bind(null);
        }
        Capture.console().printf("mqadmin matrix: fixture ready in %d ms (%s)%n", System.currentTimeMillis() - t0, fx.values);

        List<String> registered = Runner.registeredCommands();
        List<Spec> specs = Specs.all();
        Set<String> specified = new LinkedHashSet<>();
        int problems = 0;
        for (Spec s : specs) {
            if (!registered.contains(s.name)) {
                Capture.console().printf("mqadmin matrix: spec %s names no registered sub-command%n", s.name);
                problems++;
            }
            specified.add(s.name);
        }
        for (String c : registered) {
            if (!specified.contains(c)) {
                Capture.console().printf("mqadmin matrix: sub-command %s has no spec%n", c);
                problems++;
            }
        }

        Runner runner = new Runner(fx.values, dump);
        Map<String, Runner.Result> results = new LinkedHashMap<>();
        for (Spec s : specs) {
            Runner.Result r = runner.run(s);
            results.put(s.name, r);
            Capture.console().printf("mqadmin matrix: %-24s %-14s %6d ms%s%n", s.name, r.status.text, r.millis,
                r.failures.isEmpty() ? "" : "  " + r.failures);
            if (r.status == Spec.Status.FAILS) {
                problems++;
            }
        }
        Map<Spec.Status, Integer> counts = new EnumMap<>(Spec.Status.class);
        for (Runner.Result r : results.values()) {
            counts.merge(r.status, 1, Integer::sum);
        }
        String md = Report.markdown(registered, results, counts, a.getOrDefault("server", "Skyrocket"), notes());
        Files.writeString(Path.of(a.get("out")), md, StandardCharsets.UTF_8);
        Capture.console().printf("mqadmin matrix: %d sub-commands: %s; %d problem(s); written to %s%n",
            registered.size(), counts, problems, a.get("out"));
        return problems == 0 ? 0 : 1;
    }

    private static String notes() throws IOException {
        try (InputStream in = MatrixMain.class.getResourceAsStream("/matrix-notes.md")) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
