package org.skyrocket.admincmp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a Java run with a Skyrocket run, path by path.
 *
 * Every path must be present on both sides with the same value, except where a rule of
 * allowlist.txt says otherwise (each rule names a reason):
 *   value     present on both sides, the value may differ (times, ids, versions ...)
 *   number    present on both sides, both numbers (or both null; quoted numbers count), which may differ
 *   shape     present on both sides, equal once every digit run is replaced by 9
 *   optional  may be missing on one side
 *
 * The GET_BROKER_RUNTIME_INFO table (c28) is checked on its own against runtime-formats.txt:
 * the key sets must be equal (keys listed as "extra" there may be Skyrocket's only, with a
 * reason) and every value, on both sides, must match the regex of Java's format for its
 * key — Java's own values check the regexes.
 */
final class Compare {
    /** The runtime-info tables: the master's, and the slave's when the run has one. */
    static final String[] RUNTIME_TABLES = {"c28.fetchBrokerRuntimeStats", "c28.fetchBrokerRuntimeStats.slave"};

    record Rule(String kind, Pattern path, String reason, int[] used) {
    }

    record Format(Pattern key, Pattern value, boolean extra, String note, int[] used) {
    }

    private final List<Rule> rules = new ArrayList<>();
    private final List<Format> formats = new ArrayList<>();
    final List<String> report = new ArrayList<>();
    int diffs;

    Compare() throws IOException {
        for (String[] f : table("allowlist.txt", 3)) {
            if (!List.of("value", "number", "shape", "optional").contains(f[0])) {
                throw new IllegalArgumentException("allowlist.txt: unknown kind " + f[0]);
            }
            rules.add(new Rule(f[0], Pattern.compile(f[1]), f[2], new int[1]));
        }
        for (String[] f : table("runtime-formats.txt", 3)) {
            boolean extra = f[1].startsWith("extra:");
            formats.add(new Format(Pattern.compile(f[0]), Pattern.compile(extra ? f[1].substring(6) : f[1]), extra, f[2], new int[1]));
        }
    }

    /** Reads a resource: one rule a line, fields separated by runs of two or more spaces or tabs. */
    private static List<String[]> table(String name, int fields) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = Compare.class.getResourceAsStream("/" + name);
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.trim().startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split("\t+|\\s{2,}", fields);
                if (f.length != fields) {
                    throw new IllegalArgumentException(name + ": want " + fields + " fields: " + line);
                }
                rows.add(f);
            }
        }
        return rows;
    }

    void run(Map<String, String> java, Map<String, String> sky) {
        for (String t : RUNTIME_TABLES) {
            if (java.containsKey(t + ".table.size") || sky.containsKey(t + ".table.size")) {
                runtime(t, java, sky);
            }
        }
        TreeSet<String> paths = new TreeSet<>(java.keySet());
        paths.addAll(sky.keySet());
        int equal = 0;
        Map<String, Integer> allowed = new LinkedHashMap<>();
        for (String p : paths) {
            if (isRuntimeTable(p)) {
                continue;
            }
            String j = java.get(p);
            String s = sky.get(p);
            if (j != null && j.equals(s)) {
                equal++;
                continue;
            }
            Rule r = rule(p, j, s);
            if (r != null) {
                r.used[0]++;
                allowed.merge(r.kind, 1, Integer::sum);
                continue;
            }
            diff(p, j, s);
        }
        report.add(0, String.format("admin-compare: %d paths: %d equal, %d allowed %s, %d DIFF", paths.size(), equal,
            allowed.values().stream().mapToInt(Integer::intValue).sum(), allowed, diffs));
        for (Rule r : rules) {
            if (r.used[0] == 0) {
                report.add("note: allow-list rule not used in this run: " + r.kind + " " + r.path);
            }
        }
    }

    private Rule rule(String p, String j, String s) {
        for (Rule r : rules) {
            if (!r.path.matcher(p).find()) {
                continue;
            }
            switch (r.kind) {
                case "optional":
                    return r;
                case "value":
                    if (j != null && s != null) {
                        return r;
                    }
                    break;
                case "number":
                    if (j != null && s != null && (numeric(j) && numeric(s) || j.equals("null") && s.equals("null"))) {
                        return r;
                    }
                    break;
                case "shape":
                    if (j != null && s != null && j.replaceAll("\\d+", "9").equals(s.replaceAll("\\d+", "9"))) {
                        return r;
                    }
                    break;
                default:
                    break;
            }
        }
        return null;
    }

    /** A number, bare or as a string ("1796178939591", the form a Properties value takes). */
    private static boolean numeric(String v) {
        if (v.length() > 1 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        return v.matches("-?\\d+(\\.\\d+)?([eE]-?\\d+)?|NaN|-?Infinity");
    }

    private void diff(String p, String j, String s) {
        diffs++;
        report.add("DIFF " + p);
        report.add("     java      = " + (j == null ? "(absent)" : j));
        report.add("     skyrocket = " + (s == null ? "(absent)" : s));
    }

    private static boolean isRuntimeTable(String p) {
        for (String t : RUNTIME_TABLES) {
            if (p.startsWith(t + ".table[") || p.equals(t + ".table.size")) {
                return true;
            }
        }
        return false;
    }

    /** A runtime-info key table: equal key sets, values in Java's formats. */
    private void runtime(String table, Map<String, String> java, Map<String, String> sky) {
        String prefix = table + ".table[";
        Map<String, String> jt = runtimeTable(prefix, java);
        Map<String, String> st = runtimeTable(prefix, sky);
        if (jt.isEmpty() || st.isEmpty()) {
            diff(table + " (no table)", String.valueOf(jt.size()), String.valueOf(st.size()));
            return;
        }
        TreeSet<String> keys = new TreeSet<>(jt.keySet());
        keys.addAll(st.keySet());
        int checked = 0;
        for (String k : keys) {
            Format f = format(k);
            String p = prefix + k + "]";
            if (f == null) {
                diffs++;
                report.add("DIFF " + p + ": no format in runtime-formats.txt for this key (java " + jt.get(k) + ", skyrocket " + st.get(k) + ")");
                continue;
            }
            f.used[0]++;
            if (!jt.containsKey(k) && !(f.extra && st.containsKey(k))) {
                diff(p + " (key)", null, st.get(k));
                continue;
            }
            if (!st.containsKey(k)) {
                diff(p + " (key)", jt.get(k), null);
                continue;
            }
            for (String[] side : new String[][] {{"java", jt.get(k)}, {"skyrocket", st.get(k)}}) {
                if (side[1] != null && !f.value.matcher(side[1]).matches()) {
                    diffs++;
                    report.add("DIFF " + p + ": the " + side[0] + " value \"" + side[1] + "\" is not in Java's format /" + f.value + "/");
                }
            }
            checked++;
        }
        report.add(String.format("admin-compare: %s: %d keys (java %d, skyrocket %d), %d values in Java's formats",
            table, keys.size(), jt.size(), st.size(), checked));
    }

    private Format format(String key) {
        for (Format f : formats) {
            if (f.key.matcher(key).matches()) {
                return f;
            }
        }
        return null;
    }

    private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    private static Map<String, String> runtimeTable(String prefix, Map<String, String> run) {
        Map<String, String> t = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : run.entrySet()) {
            if (e.getKey().startsWith(prefix) && e.getKey().endsWith("]")) {
                String k = e.getKey().substring(prefix.length(), e.getKey().length() - 1);
                Matcher m = QUOTED.matcher(e.getValue());
                t.put(k, m.matches() ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : e.getValue());
            }
        }
        return t;
    }
}
