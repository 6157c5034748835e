package org.skyrocket.admincmp;

import java.beans.BeanInfo;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Flattens what an admin call returned into "path = value" lines, field by field, with the
 * run-specific strings (server addresses, the store path, message ids, client ports)
 * replaced by symbolic names, so that a Skyrocket run and a Java run can be compared line
 * by line. Values keep their type: strings are quoted, numbers and booleans bare.
 *
 * Objects of org.apache.rocketmq classes are walked through their bean getters (what
 * fastjson, and so the wire, sees), maps by key, lists by index, sets by their elements'
 * normalized text (sets of strings: one line per element), messages through the fields
 * the dashboard shows.
 */
final class Canon {
    private final Map<String, String> literals = new LinkedHashMap<>();
    private static final Pattern CLIENT_ADDR = Pattern.compile("/?127\\.0\\.0\\.1:\\d{2,5}");
    /** Lists whose order is a server's map iteration order, not data: compared as sets. */
    private static final Pattern UNORDERED_LISTS = Pattern.compile("^c328\\.getAllProducerInfo\\.data\\[[^\\]]+\\]$");
    private static final Pattern HEX_ID = Pattern.compile("\\b[0-9A-F]{32}([0-9A-F]{24})?\\b");

    /** Replaces every occurrence of text by {name} (longest texts first). */
    void name(String text, String name) {
        if (text != null && !text.isEmpty()) {
            literals.put(text, "{" + name + "}");
        }
    }

    String norm(String s) {
        if (s == null) {
            return null;
        }
        List<String> keys = new ArrayList<>(literals.keySet());
        keys.sort((a, b) -> b.length() - a.length());
        for (String k : keys) {
            s = s.replace(k, literals.get(k));
        }
        Matcher m = CLIENT_ADDR.matcher(s);
        s = m.replaceAll("{clientAddr}");
        return HEX_ID.matcher(s).replaceAll("{id}");
    }

    /** Flattens o under prefix into out. */
    void flatten(String prefix, Object o, Map<String, String> out) {
        walk(prefix, o, out, new IdentityHashMap<>(), 0);
    }

    private void walk(String path, Object o, Map<String, String> out, IdentityHashMap<Object, Boolean> seen, int depth) {
        if (o == null) {
            out.put(path, "null");
            return;
        }
        if (depth > 14 || seen.containsKey(o)) {
            out.put(path, "<cycle or too deep>");
            return;
        }
        if (o instanceof CharSequence || o instanceof Character) {
            out.put(path, quote(norm(o.toString())));
            return;
        }
        if (o instanceof Number || o instanceof Boolean) {
            out.put(path, o.toString());
            return;
        }
        if (o instanceof Enum) {
            out.put(path, ((Enum<?>) o).name());
            return;
        }
        if (o instanceof byte[]) {
            out.put(path, "bytes:" + quote(norm(new String((byte[]) o, StandardCharsets.UTF_8))));
            return;
        }
        if (o instanceof SocketAddress) {
            out.put(path, quote(norm(o.toString())));
            return;
        }
        seen.put(o, true);
        try {
            if (o instanceof MessageExt) {
                walk(path, messageFields((MessageExt) o), out, seen, depth + 1);
            } else if (o instanceof Properties) {
                Map<String, Object> m = new TreeMap<>();
                for (String k : ((Properties) o).stringPropertyNames()) {
                    m.put(k, ((Properties) o).getProperty(k));
                }
                walkMap(path, m, out, seen, depth);
            } else if (o instanceof Map) {
                walkMap(path, (Map<?, ?>) o, out, seen, depth);
            } else if (o instanceof List && UNORDERED_LISTS.matcher(path).find()) {
                walkSet(path, (List<?>) o, out, seen, depth);
            } else if (o instanceof List || o.getClass().isArray()) {
                List<Object> l = new ArrayList<>();
                if (o instanceof List) {
                    l.addAll((List<?>) o);
                } else {
                    for (int i = 0; i < Array.getLength(o); i++) {
                        l.add(Array.get(o, i));
                    }
                }
                out.put(path + ".size", String.valueOf(l.size()));
                for (int i = 0; i < l.size(); i++) {
                    walk(path + "[" + i + "]", l.get(i), out, seen, depth + 1);
                }
            } else if (o instanceof Set || o instanceof Collection) {
                walkSet(path, (Collection<?>) o, out, seen, depth);
            } else if (o.getClass().getName().startsWith("org.apache.rocketmq.")) {
                walkBean(path, o, out, seen, depth);
            } else {
                out.put(path, quote(norm(o.toString())));
            }
        } finally {
            seen.remove(o);
        }
    }

    private void walkMap(String path, Map<?, ?> m, Map<String, String> out, IdentityHashMap<Object, Boolean> seen, int depth) {
        TreeMap<String, Object> sorted = new TreeMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            sorted.put(keyText(e.getKey()), e.getValue());
        }
        out.put(path + ".size", String.valueOf(sorted.size()));
        for (Map.Entry<String, Object> e : sorted.entrySet()) {
            walk(path + "[" + e.getKey() + "]", e.getValue(), out, seen, depth + 1);
        }
    }

    private void walkSet(String path, Collection<?> c, Map<String, String> out, IdentityHashMap<Object, Boolean> seen, int depth) {
        out.put(path + ".size", String.valueOf(c.size()));
        boolean strings = c.stream().allMatch(e -> e instanceof String || e instanceof Number);
        if (strings) {
            TreeMap<String, Boolean> keys = new TreeMap<>();
            for (Object e : c) {
                keys.put(norm(e.toString()), true);
            }
            for (String k : keys.keySet()) {
                out.put(path + "{" + k + "}", "present");
            }
            return;
        }
        // Elements are objects: order them by their normalized flat text, then index.
        TreeMap<String, Object> byText = new TreeMap<>();
        int dup = 0;
        for (Object e : c) {
            Map<String, String> flat = new LinkedHashMap<>();
            walk("", e, flat, seen, depth + 1);
            String text = flat.toString();
            if (byText.containsKey(text)) {
                text = text + "#" + (++dup);
            }
            byText.put(text, e);
        }
        int i = 0;
        for (Object e : byText.values()) {
            walk(path + "[" + i++ + "]", e, out, seen, depth + 1);
        }
    }

    private void walkBean(String path, Object o, Map<String, String> out, IdentityHashMap<Object, Boolean> seen, int depth) {
        BeanInfo info;
        try {
            info = Introspector.getBeanInfo(o.getClass(), Object.class);
        } catch (Exception e) {
            out.put(path, quote(norm(o.toString())));
            return;
        }
        TreeMap<String, Method> getters = new TreeMap<>();
        for (PropertyDescriptor pd : info.getPropertyDescriptors()) {
            if (pd.getReadMethod() != null && pd.getReadMethod().getParameterCount() == 0) {
                getters.put(pd.getName(), pd.getReadMethod());
            }
        }
        if (getters.isEmpty()) {
            out.put(path, quote(norm(o.toString())));
            return;
        }
        for (Map.Entry<String, Method> g : getters.entrySet()) {
            Object v;
            try {
                v = g.getValue().invoke(o);
            } catch (InvocationTargetException e) {
                v = "<" + g.getKey() + " threw " + e.getCause() + ">";
            } catch (IllegalAccessException e) {
                continue;
            }
            walk(path + "." + g.getKey(), v, out, seen, depth + 1);
        }
    }

    /** A map key as text: its toString (MessageQueue's names topic, broker and queue), normalized. */
    private String keyText(Object k) {
        return k == null ? "null" : norm(k.toString());
    }

    /** The message fields the dashboard's message pages show (MessageView), plus the stored layout. */
    static Map<String, Object> messageFields(MessageExt m) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("topic", m.getTopic());
        f.put("queueId", m.getQueueId());
        f.put("queueOffset", m.getQueueOffset());
        f.put("flag", m.getFlag());
        f.put("sysFlag", m.getSysFlag());
        f.put("bodyCRC", m.getBodyCRC());
        f.put("storeSize", m.getStoreSize());
        f.put("reconsumeTimes", m.getReconsumeTimes());
        f.put("preparedTransactionOffset", m.getPreparedTransactionOffset());
        f.put("commitLogOffset", m.getCommitLogOffset());
        f.put("bornTimestamp", m.getBornTimestamp());
        f.put("storeTimestamp", m.getStoreTimestamp());
        f.put("bornHost", m.getBornHost());
        f.put("storeHost", m.getStoreHost());
        f.put("msgId", m.getMsgId());
        f.put("tags", m.getTags());
        f.put("keys", m.getKeys());
        f.put("body", m.getBody());
        f.put("properties", m.getProperties() == null ? null : new TreeMap<>(m.getProperties()));
        return f;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
