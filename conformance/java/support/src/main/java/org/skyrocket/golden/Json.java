package org.skyrocket.golden;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny ordered, standard-JSON writer for the sidecar index files. It is deliberately not
 * fastjson: the index files must be plain JSON that Go's encoding/json reads, with keys in the
 * order we put them. Strings escape '"', '\\' and every char below 0x20 (as \\u00XX except \n,
 * \r, \t); everything else is written as UTF-8.
 */
public final class Json {
    private Json() {
    }

    /** An insertion-ordered JSON object. */
    public static final class Obj extends LinkedHashMap<String, Object> {
        public Obj with(String key, Object value) {
            put(key, value);
            return this;
        }
    }

    public static Obj obj() {
        return new Obj();
    }

    public static List<Object> arr(Object... items) {
        return new ArrayList<>(Arrays.asList(items));
    }

    public static byte[] bytes(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        sb.append('\n');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void indent(StringBuilder sb, int level) {
        for (int i = 0; i < level; i++) {
            sb.append("  ");
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder sb, Object v, int level) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            quote(sb, (String) v);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short
            || v instanceof Byte) {
            sb.append(v.toString());
        } else if (v instanceof Double || v instanceof Float) {
            sb.append(v.toString());
        } else if (v instanceof Map) {
            Map<String, Object> m = (Map<String, Object>) v;
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<String, Object> e : m.entrySet()) {
                indent(sb, level + 1);
                quote(sb, e.getKey());
                sb.append(": ");
                write(sb, e.getValue(), level + 1);
                if (++i < m.size()) {
                    sb.append(',');
                }
                sb.append('\n');
            }
            indent(sb, level);
            sb.append('}');
        } else if (v instanceof List) {
            List<Object> l = (List<Object>) v;
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            boolean scalars = l.stream().noneMatch(x -> x instanceof Map || x instanceof List);
            if (scalars) {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(", ");
                    }
                    write(sb, l.get(i), level);
                }
                sb.append(']');
                return;
            }
            sb.append("[\n");
            for (int i = 0; i < l.size(); i++) {
                indent(sb, level + 1);
                write(sb, l.get(i), level + 1);
                if (i + 1 < l.size()) {
                    sb.append(',');
                }
                sb.append('\n');
            }
            indent(sb, level);
            sb.append(']');
        } else {
            throw new IllegalArgumentException("unsupported JSON value " + v.getClass());
        }
    }

    private static void quote(StringBuilder sb, String s) {
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
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
