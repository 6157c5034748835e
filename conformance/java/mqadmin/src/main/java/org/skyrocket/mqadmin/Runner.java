package org.skyrocket.mqadmin;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.PosixParser;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.srvutil.ServerUtil;
import org.apache.rocketmq.tools.command.MQAdminStartup;
import org.apache.rocketmq.tools.command.SubCommand;

/**
 * Runs the steps of a spec in this JVM, each on its own thread with its own captured
 * output, and evaluates the checks.
 */
final class Runner {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-zA-Z]+)\\}");
    private static final Pattern REGEX_PLACEHOLDER = Pattern.compile("\\\\\\{([a-zA-Z]+)\\\\\\}");

    private final Map<String, String> values;
    private final boolean dump;

    Runner(Map<String, String> values, boolean dump) {
        this.values = values;
        this.dump = dump;
    }

    /** The outcome of one spec. */
    static final class Result {
        final Spec spec;
        Spec.Status status;
        final List<String> failures = new ArrayList<>();
        long millis;

        Result(Spec spec) {
            this.spec = spec;
        }
    }

    Result run(Spec spec) {
        Result r = new Result(spec);
        long start = System.currentTimeMillis();
        for (Spec.Step step : spec.steps) {
            String[] args = resolveArgs(step.args);
            Spec.Output out = runStep(step, args);
            long retryUntil = System.currentTimeMillis() + step.retryMillis;
            while (!allPass(step, out) && System.currentTimeMillis() < retryUntil) {
                sleep(500);
                out = runStep(step, args);
            }
            if (dump) {
                Capture.console().printf("---- %s%n%s%n---- stderr%n%s%n", String.join(" ", args), out.out, out.err);
            }
            for (Spec.Check c : step.checks) {
                if (!passes(c, out)) {
                    r.failures.add(String.join(" ", step.args) + ": " + c.what + firstError(out));
                }
            }
        }
        r.millis = System.currentTimeMillis() - start;
        r.status = r.failures.isEmpty() ? spec.expect : Spec.Status.FAILS;
        return r;
    }

    private Spec.Output runStep(Spec.Step step, String[] args) {
        Capture.Buffers buf = new Capture.Buffers();
        Thread t = new Thread(() -> {
            Capture.bind(buf);
            try {
                execute(args);
            } catch (Throwable e) {
                buf.failed(e);
                e.printStackTrace();
            }
        }, "mqadmin-" + args[0]);
        t.setDaemon(true);
        t.start();
        long deadline = System.currentTimeMillis() + step.timeoutMillis;
        try {
            if (!step.longRunning) {
                t.join(step.timeoutMillis);
                if (t.isAlive()) {
                    Spec.Output o = buf.snapshot();
                    return new Spec.Output(o.out, o.err + "\nTIMEOUT: still running after " + step.timeoutMillis + " ms",
                        new IllegalStateException("timeout"));
                }
                return buf.snapshot();
            }
            // A monitor: wait until every check holds, then leave it running (the JVM exits at the end).
            while (System.currentTimeMillis() < deadline) {
                Spec.Output o = buf.snapshot();
                if (!t.isAlive() || step.checks.stream().allMatch(c -> passes(c, o))) {
                    return o;
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return buf.snapshot();
    }

    /**
     * What MQAdminStartup#main0 does for one sub-command (find it, parse its options, set the
     * NameServer address property, execute) without its catch-all, so a failed command is
     * seen as the exception it throws. The logback set-up of main0 is left out: the matrix
     * configures logging once for the JVM.
     */
    static void execute(String[] args) throws Exception {
        SubCommand cmd = COMMANDS.get(args[0]);
        if (cmd == null) {
            throw new IllegalArgumentException("no sub-command " + args[0]);
        }
        String[] sub = Arrays.copyOfRange(args, 1, args.length);
        Options options = ServerUtil.buildCommandlineOptions(new Options());
        CommandLine cl = ServerUtil.parseCmdLine("mqadmin " + cmd.commandName(), sub, cmd.buildCommandlineOptions(options),
            new PosixParser());
        if (cl == null) {
            throw new IllegalArgumentException("mqadmin " + cmd.commandName() + ": bad arguments " + Arrays.toString(sub));
        }
        if (cl.hasOption('n')) {
            System.setProperty(MixAll.NAMESRV_ADDR_PROPERTY, cl.getOptionValue('n'));
        }
        cmd.execute(cl, options, null);
    }

    private static final Map<String, SubCommand> COMMANDS = new HashMap<>();

    /** Registers the sub-commands MQAdminStartup registers and returns their names in its order. */
    @SuppressWarnings("unchecked")
    static List<String> registeredCommands() throws ReflectiveOperationException {
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        MQAdminStartup.initCommand();
        Field f = MQAdminStartup.class.getDeclaredField("subCommandList");
        f.setAccessible(true);
        List<String> names = new ArrayList<>();
        for (SubCommand c : (List<SubCommand>) f.get(null)) {
            if (COMMANDS.putIfAbsent(c.commandName(), c) == null) {
                names.add(c.commandName());
            }
        }
        return names;
    }

    private boolean allPass(Spec.Step step, Spec.Output o) {
        return step.checks.stream().allMatch(c -> passes(c, o));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean passes(Spec.Check c, Spec.Output o) {
        if (c.regex != null) {
            Pattern p = Pattern.compile(resolveRegex(c.regex), Pattern.MULTILINE);
            return p.matcher(c.anyStream ? o.all() : o.out).find() != c.negate;
        }
        return c.test.test(o);
    }

    String[] resolveArgs(String[] args) {
        String[] out = new String[args.length];
        for (int i = 0; i < args.length; i++) {
            Matcher m = PLACEHOLDER.matcher(args[i]);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(sb, Matcher.quoteReplacement(value(m.group(1))));
            }
            m.appendTail(sb);
            out[i] = sb.toString();
        }
        return out;
    }

    private String resolveRegex(String regex) {
        Matcher m = REGEX_PLACEHOLDER.matcher(regex);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(Pattern.quote(value(m.group(1)))));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private String value(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no fixture value {" + name + "}");
        }
        return v;
    }

    /** The first exception line of a failed step, to say why in the report. */
    private static String firstError(Spec.Output o) {
        for (String line : o.all().split("\n")) {
            if (line.contains("Exception") || line.startsWith("TIMEOUT")) {
                String s = line.trim();
                return " (" + (s.length() > 240 ? s.substring(0, 240) + "..." : s) + ")";
            }
        }
        return "";
    }
}
