package org.skyrocket.mqadmin;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * What the matrix runs for one mqadmin sub-command and what it expects: one or more
 * invocations (steps), each with the lines its output must show, and the status the
 * checked-in matrix records for it.
 */
final class Spec {
    /** The status of a sub-command in the matrix. */
    enum Status {
        WORKS("works"),
        REFUSED("refused"),
        NOT_APPLICABLE("not applicable"),
        FAILS("FAILS");

        final String text;

        Status(String text) {
            this.text = text;
        }
    }

    /** One invocation: arguments with {placeholders}, and its checks. */
    static final class Step {
        final String[] args;
        final List<Check> checks = new ArrayList<>();
        /** Long-running commands (monitors) never return: the step passes once its checks hold. */
        boolean longRunning;
        long timeoutMillis = 60_000;
        /** Run again until the checks hold, for this long (state another command set up asynchronously). */
        long retryMillis;

        Step(String... args) {
            this.args = args;
        }
    }

    /**
     * A named test of a step's captured output: a regex over stdout (or both streams) whose
     * \\{name\\} placeholders stand for fixture values, or a predicate.
     */
    static final class Check {
        final String what;
        final String regex;
        final boolean anyStream;
        final Predicate<Output> test;
        final boolean negate;

        Check(String what, String regex, boolean anyStream, Predicate<Output> test) {
            this(what, regex, anyStream, test, false);
        }

        Check(String what, String regex, boolean anyStream, Predicate<Output> test, boolean negate) {
            this.what = what;
            this.regex = regex;
            this.anyStream = anyStream;
            this.test = test;
            this.negate = negate;
        }
    }

    /** What one invocation printed, and the exception it failed with (null when it returned). */
    static final class Output {
        final String out;
        final String err;
        final Throwable thrown;

        Output(String out, String err, Throwable thrown) {
            this.out = out;
            this.err = err;
            this.thrown = thrown;
        }

        /**
         * Whether an exception was printed outside a log record: mqadmin commands print the
         * exceptions they catch with printStackTrace, while the client's own log records
         * ("HH:mm:ss.SSS LEVEL logger - ...", each with at most one exception) are noise such
         * as a route refresh racing the command's shutdown.
         */
        boolean printedException() {
            boolean inRecord = false;
            boolean recordHasException = false;
            for (String line : all().split("\n")) {
                if (line.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")) {
                    inRecord = true;
                    recordHasException = false;
                    continue;
                }
                boolean frame = line.startsWith("\tat ") || line.startsWith("\t... ") || line.startsWith("Caused by: ")
                    || line.startsWith("For more information");
                if (inRecord && (frame || (!recordHasException && line.contains("Exception")))) {
                    recordHasException |= !frame;
                    continue;
                }
                inRecord = false;
                if (line.contains("Exception") || line.startsWith("\tat ")) {
                    return true;
                }
            }
            return false;
        }

        /** Both streams: mqadmin prints results to stdout and exceptions to stderr. */
        String all() {
            return out + "\n" + err;
        }
    }

    final String name;
    final Status expect;
    final List<Step> steps = new ArrayList<>();
    /** Why it is refused or not applicable, or what a reader should know. */
    String note = "";

    private Spec(String name, Status expect) {
        this.name = name;
        this.expect = expect;
    }

    static Spec works(String name) {
        return new Spec(name, Status.WORKS);
    }

    static Spec refused(String name, String why) {
        Spec s = new Spec(name, Status.REFUSED);
        s.note = why;
        return s;
    }

    static Spec notApplicable(String name, String why) {
        Spec s = new Spec(name, Status.NOT_APPLICABLE);
        s.note = why;
        return s;
    }

    Spec note(String n) {
        this.note = n;
        return this;
    }

    /** Adds an invocation; the checks that follow apply to it. */
    Spec run(String... args) {
        steps.add(new Step(args));
        return this;
    }

    private Step last() {
        return steps.get(steps.size() - 1);
    }

    Spec retryFor(long millis) {
        last().retryMillis = millis;
        return this;
    }

    Spec longRunning(long millis) {
        last().longRunning = true;
        last().timeoutMillis = millis;
        return this;
    }

    /** The standard output has a line matching regex. */
    Spec line(String regex) {
        last().checks.add(new Check("stdout `" + regex + "`", regex, false, null));
        return this;
    }

    /** No line of the standard output matches regex. */
    Spec noLine(String regex) {
        last().checks.add(new Check("no stdout `" + regex + "`", regex, false, null, true));
        return this;
    }

    /** Either stream has a line matching regex (refusals come as exceptions on stderr). */
    Spec anyLine(String regex) {
        last().checks.add(new Check("output `" + regex + "`", regex, true, null));
        return this;
    }

    /**
     * The command returned and printed no exception (mqadmin's main catches a failed
     * command's exception, prints it and still exits 0; the matrix calls the command itself).
     */
    Spec clean() {
        last().checks.add(new Check("no exception", null, true, o -> o.thrown == null && !o.printedException()));
        return this;
    }

    /** The command failed: it threw (the refusal reached mqadmin as an exception). */
    Spec failed() {
        last().checks.add(new Check("the command fails", null, true, o -> o.thrown != null));
        return this;
    }

    Spec check(String what, Predicate<Output> test) {
        last().checks.add(new Check(what, null, true, test));
        return this;
    }
}
