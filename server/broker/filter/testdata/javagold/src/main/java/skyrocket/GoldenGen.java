package skyrocket;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.broker.filter.ConsumerFilterData;
import org.apache.rocketmq.broker.filter.ConsumerFilterManager;
import org.apache.rocketmq.filter.expression.BooleanExpression;
import org.apache.rocketmq.filter.expression.EvaluationContext;
import org.apache.rocketmq.filter.expression.MQFilterException;
import org.apache.rocketmq.filter.parser.SelectorParser;
import org.apache.rocketmq.filter.util.BloomFilter;
import org.apache.rocketmq.filter.util.BloomFilterData;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;

/**
 * Writes the truth table the Go filter package is checked against.
 *
 * Input: a corpus (one JSON string per line: a selector) and a JSON array of property
 * sets (objects of string to string). Output, one JSON object per corpus line:
 * {"e": selector, "c": "OK" or the message a broker puts in the CHECK_CLIENT_CONFIG remark
 * (MQFilterException#getMessage), "s": the compiled expression's toString, "r": one letter
 * per property set: T, F, N (null) or E (evaluation threw)}.
 * Then bloom filter lines {"bloom": key, "bitPos": [...], "bitNum": n} for
 * BloomFilter.createByFn(20, 32), the broker's defaults.
 * Finally the consumerFilter.json a broker writes for a fixed table.
 */
public final class GoldenGen {

    static final class MapContext implements EvaluationContext {
        private final Map<String, String> props;

        MapContext(Map<String, String> props) {
            this.props = props;
        }

        @Override
        public Object get(String name) {
            return props.get(name);
        }

        @Override
        public Map<String, Object> keyValues() {
            return new HashMap<String, Object>(props);
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> corpus = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isEmpty()) {
                    corpus.add((String) new Json(line).value());
                }
            }
        }
        @SuppressWarnings("unchecked")
        List<Object> sets = (List<Object>) new Json(new String(Files.readAllBytes(Paths.get(args[1])), StandardCharsets.UTF_8)).value();
        List<Map<String, String>> propSets = new ArrayList<>();
        for (Object o : sets) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) o;
            Map<String, String> p = new HashMap<>();
            for (Map.Entry<String, Object> e : m.entrySet()) {
                p.put(e.getKey(), (String) e.getValue());
            }
            propSets.add(p);
        }

        try (Writer w = Files.newBufferedWriter(Paths.get(args[2]), StandardCharsets.UTF_8)) {
            for (String expr : corpus) {
                StringBuilder sb = new StringBuilder("{\"e\":");
                quote(sb, expr);
                BooleanExpression be = null;
                try {
                    be = SelectorParser.parse(expr);
                    sb.append(",\"c\":\"OK\",\"s\":");
                    quote(sb, be.toString());
                } catch (MQFilterException e) {
                    sb.append(",\"c\":");
                    quote(sb, e.getMessage());
                }
                if (be != null) {
                    StringBuilder res = new StringBuilder();
                    for (Map<String, String> p : propSets) {
                        Object v;
                        try {
                            v = be.evaluate(new MapContext(p));
                        } catch (Throwable t) {
                            res.append('E');
                            continue;
                        }
                        if (v == null) {
                            res.append('N');
                        } else if (v == Boolean.TRUE) {
                            res.append('T');
                        } else if (v == Boolean.FALSE) {
                            res.append('F');
                        } else {
                            res.append('?');
                        }
                    }
                    sb.append(",\"r\":\"").append(res).append('"');
                }
                sb.append("}\n");
                w.write(sb.toString());
            }
            BloomFilter bf = BloomFilter.createByFn(20, 32);
            String[] keys = {"GroupA#TopicA", "GroupB#TopicA", "CG#T", "", "a", "consumer_group_with_a_long_name#topic_with_a_long_name", "组#主题"};
            for (String k : keys) {
                BloomFilterData d = bf.generate(k);
                StringBuilder sb = new StringBuilder("{\"bloom\":");
                quote(sb, k);
                sb.append(",\"bitPos\":[");
                for (int i = 0; i < d.getBitPos().length; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append(d.getBitPos()[i]);
                }
                sb.append("],\"bitNum\":").append(d.getBitNum()).append("}\n");
                w.write(sb.toString());
            }
        }

        // consumerFilter.json as a broker with default bloom settings writes it.
        ConsumerFilterManager m = new ConsumerFilterManager();
        Field f = ConsumerFilterManager.class.getDeclaredField("bloomFilter");
        f.setAccessible(true);
        f.set(m, BloomFilter.createByFn(20, 32));
        m.register("TopicA", "GroupA", "a > 5", "SQL92", 1690000000000L);
        m.register("TopicA", "GroupB", "TAGS IN ('x', 'y') AND b IS NOT NULL", "SQL92", 1700000000000000000L);
        m.register("TopicB", "GroupA", "c = 'it''s'", "SQL92", 1690000000001L);
        fix(m.get("TopicA", "GroupA"), 1690000000100L, 0L);
        fix(m.get("TopicA", "GroupB"), 1690000000200L, 1690000000300L);
        fix(m.get("TopicB", "GroupA"), 1690000000400L, 0L);
        Files.write(Paths.get(args[3]), RemotingSerializable.toJson(m, true).getBytes(StandardCharsets.UTF_8));
    }

    static void fix(ConsumerFilterData d, long born, long dead) {
        d.setBornTime(born);
        d.setDeadTime(dead);
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff && !validSurrogate(s, i))) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    /** A small JSON reader: strings, arrays and objects are all the inputs hold. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object value() throws IOException {
            ws();
            char c = s.charAt(i);
            if (c == '"') {
                return string();
            }
            if (c == '[') {
                i++;
                List<Object> out = new ArrayList<>();
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return out;
                }
                while (true) {
                    out.add(value());
                    ws();
                    if (s.charAt(i++) == ']') {
                        return out;
                    }
                }
            }
            if (c == '{') {
                i++;
                Map<String, Object> out = new LinkedHashMap<>();
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return out;
                }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    i++; // ':'
                    out.put(k, value());
                    ws();
                    if (s.charAt(i++) == '}') {
                        return out;
                    }
                }
            }
            throw new IOException("unexpected " + c + " at " + i);
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private String string() {
            StringBuilder sb = new StringBuilder();
            i++;
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n':
                        sb.append('\n');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    case 'u':
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default:
                        sb.append(e);
                }
            }
        }
    }
}
