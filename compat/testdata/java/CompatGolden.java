// CompatGolden writes the golden files the compat tests compare against, from the real
// Java implementation: fastjson 1.2.69_noneautotype (the version RocketMQ 4.9.8 ships),
// rocketmq-common/-store/-remoting 4.9.8 and rocketmq-broker 4.9.7 (4.9.8 is not on
// Maven Central; ConsumerOffsetManager and SubscriptionGroupManager are unchanged).
//
// Run from compat/testdata (Java 17; jars from ~/.m2, e.g. after
// `mvn dependency:get -Dartifact=org.apache.rocketmq:rocketmq-broker:4.9.7`):
//
//	R=~/.m2/repository/org/apache/rocketmq
//	CP=$R/rocketmq-common/4.9.8/rocketmq-common-4.9.8.jar:$R/rocketmq-store/4.9.8/rocketmq-store-4.9.8.jar
//	CP=$CP:$R/rocketmq-remoting/4.9.8/rocketmq-remoting-4.9.8.jar:$R/rocketmq-logging/4.9.8/rocketmq-logging-4.9.8.jar
//	CP=$CP:$R/rocketmq-broker/4.9.7/rocketmq-broker-4.9.7.jar
//	CP=$CP:~/.m2/repository/com/alibaba/fastjson/1.2.69_noneautotype/fastjson-1.2.69_noneautotype.jar
//	CP=$CP:~/.m2/repository/io/netty/netty-all/4.1.65.Final/netty-all-4.1.65.Final.jar
//	javac -d /tmp/cg -cp "$CP" java/CompatGolden.java && java -cp "$CP:/tmp/cg" CompatGolden
//
// Outputs: fastjson/<name>.compact.json and fastjson/<name>.pretty.json
// (JSON.toJSONString(obj, false / true)), fastjson/escape.json, and for every
// properties/<name>.properties a properties/<name>.golden with one line per entry,
// "hex(key) hex(value)" of the UTF-8 bytes, sorted, as java.util.Properties#load reads it.
// Generated files are never edited by hand.

import com.alibaba.fastjson.JSON;
import java.io.File;
import java.io.FileInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.broker.offset.ConsumerOffsetManager;
import org.apache.rocketmq.broker.subscription.SubscriptionGroupManager;
import org.apache.rocketmq.common.DataVersion;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.body.ResetOffsetBody;
import org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.store.schedule.DelayOffsetSerializeWrapper;

public class CompatGolden {
    static void write(String name, Object o) throws Exception {
        Files.write(Paths.get("fastjson/" + name + ".compact.json"), JSON.toJSONString(o, false).getBytes(StandardCharsets.UTF_8));
        Files.write(Paths.get("fastjson/" + name + ".pretty.json"), JSON.toJSONString(o, true).getBytes(StandardCharsets.UTF_8));
    }

    /** A bean holding an array, a Set and a nested Set of beans: fastjson writes these inline. */
    public static class Arrays1 {
        private int[] bitPos = {3, 17, 42};
        private Set<MessageQueue> mqSet = new TreeSet<>(Arrays.asList(new MessageQueue("T", "b", 0), new MessageQueue("T", "b", 1)));
        private String[] names = {};
        public int[] getBitPos() { return bitPos; }
        public Set<MessageQueue> getMqSet() { return mqSet; }
        public String[] getNames() { return names; }
    }

    public static void main(String[] args) throws Exception {
        DataVersion dv = new DataVersion();
        dv.setCounter(new AtomicLong(3));
        dv.setTimestamp(1690000000000L);

        // topics.json (TopicConfigManager#encode)
        TopicConfigSerializeWrapper tw = new TopicConfigSerializeWrapper();
        tw.setDataVersion(dv);
        ConcurrentMap<String, TopicConfig> tt = new ConcurrentHashMap<>(1024);
        TopicConfig retry = new TopicConfig("%RETRY%GroupA", 1, 1, 6);
        retry.setOrder(true);
        for (TopicConfig tc : new TopicConfig[] {new TopicConfig("TopicA", 8, 8, 6), new TopicConfig("TBW102", 8, 8, 7), retry}) {
            tt.put(tc.getTopicName(), tc);
        }
        tw.setTopicConfigTable(tt);
        write("topics", tw);
        TopicConfigSerializeWrapper empty = new TopicConfigSerializeWrapper();
        empty.setDataVersion(dv);
        write("topics_empty", empty);

        // consumerOffset.json (ConsumerOffsetManager#encode)
        ConsumerOffsetManager com = new ConsumerOffsetManager();
        ConcurrentMap<Integer, Long> m1 = new ConcurrentHashMap<>(32);
        m1.put(0, 120L);
        m1.put(1, 98L);
        m1.put(2, 0L);
        m1.put(3, 12345678901L);
        ConcurrentMap<Integer, Long> m2 = new ConcurrentHashMap<>(32);
        m2.put(0, 0L);
        com.getOffsetTable().put("TopicA@GroupA", m1);
        com.getOffsetTable().put("%RETRY%GroupA@GroupA", m2);
        com.getOffsetTable().put("Empty@G", new ConcurrentHashMap<Integer, Long>(32));
        write("consumerOffset", com);
        write("consumerOffset_empty", new ConsumerOffsetManager());

        // subscriptionGroup.json (SubscriptionGroupManager#encode; the constructor adds the
        // system groups, with the DataVersion timestamp of "now" — pinned here)
        SubscriptionGroupManager sgm = new SubscriptionGroupManager();
        sgm.getDataVersion().assignNewOne(dv);
        SubscriptionGroupConfig g = new SubscriptionGroupConfig();
        g.setGroupName("GroupA");
        g.setConsumeBroadcastEnable(false);
        g.setRetryMaxTimes(3);
        sgm.getSubscriptionGroupTable().put("GroupA", g);
        write("subscriptionGroup", sgm);

        // delayOffset.json (ScheduleMessageService#encode)
        DelayOffsetSerializeWrapper dw = new DelayOffsetSerializeWrapper();
        ConcurrentMap<Integer, Long> dt = new ConcurrentHashMap<>(32);
        for (int i = 1; i <= 18; i++) {
            dt.put(i, (long) (i * 7 % 5));
        }
        dw.setOffsetTable(dt);
        write("delayOffset", dw);

        // A MessageQueue-keyed map (ResetOffsetBody): object keys.
        ResetOffsetBody rb = new ResetOffsetBody();
        Map<MessageQueue, Long> ot = new TreeMap<>();
        ot.put(new MessageQueue("T", "b", 0), 100L);
        ot.put(new MessageQueue("T\"q", "b", 1), 200L);
        rb.setOffsetTable(ot);
        write("resetOffset", rb);

        // Arrays and Sets are inline.
        write("arrays", new Arrays1());

        // Lists are one element per line (PrettyFastJSONLists); mixed key kinds.
        LinkedHashMap<String, Object> lists = new LinkedHashMap<>();
        lists.put("a", new ArrayList<>());
        lists.put("b", Arrays.asList(1, 2, 3));
        lists.put("c", new LinkedHashMap<>());
        lists.put("d", Arrays.asList(new LinkedHashMap<>(Collections.singletonMap("x", 1)), Arrays.asList("p", "q")));
        lists.put("e", "quote\" slash\\ ctl\u0001 tab\t uni\u4e2d");
        LinkedHashMap<Object, Object> mixed = new LinkedHashMap<>();
        mixed.put(1, Arrays.asList(1, 2));
        mixed.put("s", 2);
        mixed.put(true, 3);
        mixed.put(-5L, new LinkedHashMap<>(Collections.singletonMap("y", "z")));
        lists.put("g", mixed);
        lists.put("h", new LinkedHashMap<Integer, Object>());
        write("lists", lists);

        // String escaping: every ASCII character plus U+2028, U+2029, é and an emoji.
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 0x80; i++) {
            sb.append((char) i);
        }
        sb.append("\u2028\u2029\u00e9\ud83d\ude00");
        Files.write(Paths.get("fastjson/escape.json"), JSON.toJSONString(sb.toString()).getBytes(StandardCharsets.UTF_8));

        // java.util.Properties#load over the test inputs.
        File[] files = new File("properties").listFiles((d, n) -> n.endsWith(".properties"));
        Arrays.sort(files);
        for (File f : files) {
            Properties p = new Properties();
            try (FileInputStream in = new FileInputStream(f)) {
                p.load(in);
            }
            List<String> lines = new ArrayList<>();
            for (String k : p.stringPropertyNames()) {
                lines.add(hex(k) + " " + hex(p.getProperty(k)));
            }
            Collections.sort(lines);
            String out = String.join("\n", lines) + "\n";
            String name = f.getPath().replaceAll("\\.properties$", ".golden");
            Files.write(Paths.get(name), out.getBytes(StandardCharsets.UTF_8));
        }
    }

    static String hex(String s) {
        StringBuilder b = new StringBuilder("x");
        for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
            b.append(String.format("%02x", c));
        }
        return b.toString();
    }
}
