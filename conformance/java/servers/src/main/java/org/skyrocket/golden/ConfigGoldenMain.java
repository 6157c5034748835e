package org.skyrocket.golden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.broker.filter.ConsumerFilterManager;
import org.apache.rocketmq.broker.offset.ConsumerOffsetManager;
import org.apache.rocketmq.broker.subscription.SubscriptionGroupManager;
import org.apache.rocketmq.broker.topic.TopicConfigManager;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.DataVersion;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.namesrv.kvconfig.KVConfigSerializeWrapper;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.schedule.ScheduleMessageService;

/**
 * The broker's config files (store root config/*.json) exactly as the 4.9.7 broker's managers
 * write them: ConfigManager#persist writes encode(true) (fastjson pretty format) through
 * MixAll#string2File, adding nothing. Also the compact encode() forms that GET_ALL_TOPIC_CONFIG,
 * GET_ALL_CONSUMER_OFFSET, GET_ALL_SUBSCRIPTIONGROUP_CONFIG and GET_ALL_DELAY_OFFSET answer with.
 *
 * The managers come from a BrokerController that is constructed but never initialized or
 * started (no files, no sockets); every clock-dependent value is then set to a fixed one.
 */
public final class ConfigGoldenMain {
    private static final long TIMESTAMP = 1700000000000L;

    private ConfigGoldenMain() {
    }

    private static DataVersion dv(long counter) {
        DataVersion d = new DataVersion();
        d.setTimestamp(TIMESTAMP);
        d.setCounter(new AtomicLong(counter));
        return d;
    }

    private static Json.Obj entry(String cls, String method, String note) {
        return Json.obj().with("javaClass", cls).with("javaMethod", method).with("note", note);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ConfigGoldenMain <root>");
            System.exit(2);
        }
        try {
            run(Paths.get(args[0]).resolve("protocol/testdata/golden/config"));
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // BrokerController's constructor creates service objects; do not wait for them.
    }

    private static void run(Path dir) throws Exception {
        Out out = new Out(dir);
        Path tmp = Files.createTempDirectory("skyrocket-golden-config");
        BrokerConfig bc = new BrokerConfig();
        bc.setBrokerName("broker-a");
        bc.setBrokerClusterName("DefaultCluster");
        bc.setBrokerIP1("127.0.0.1");
        bc.setBrokerIP2("127.0.0.1");
        NettyServerConfig ns = new NettyServerConfig();
        ns.setListenPort(10911);
        MessageStoreConfig ms = new MessageStoreConfig();
        ms.setStorePathRootDir(tmp.toString());
        BrokerController c = new BrokerController(bc, ns, new NettyClientConfig(), ms);

        TopicConfigManager tcm = c.getTopicConfigManager();
        TopicConfig t = new TopicConfig("TopicTest", 4, 4, 6);
        tcm.getTopicConfigTable().put(t.getTopicName(), t);
        TopicConfig o = new TopicConfig("TopicOrder", 2, 2, 6);
        o.setOrder(true);
        tcm.getTopicConfigTable().put(o.getTopicName(), o);
        TopicConfig r = new TopicConfig("%RETRY%ConsumerGroupA", 1, 1, 6);
        tcm.getTopicConfigTable().put(r.getTopicName(), r);
        tcm.getDataVersion().assignNewOne(dv(5));
        String note = "broker-a / DefaultCluster, autoCreateTopicEnable default (true): the system topics TopicConfigManager's constructor adds, plus TopicTest(4), TopicOrder(2, order) and %RETRY%ConsumerGroupA(1); dataVersion {counter 5, timestamp 1700000000000}";
        out.write("topics.json", utf8(tcm.encode(true)), entry(TopicConfigManager.class.getName(), "encode(true) (ConfigManager#persist)", note));
        out.write("get_all_topic_config.body.json", utf8(tcm.encode()), entry(TopicConfigManager.class.getName(), "encode() (AdminBrokerProcessor#getAllTopicConfig body)", note));

        ConsumerOffsetManager com = c.getConsumerOffsetManager();
        for (int q = 0; q < 4; q++) {
            com.commitOffset("127.0.0.1:54321", "ConsumerGroupA", "TopicTest", q, 100L + q);
        }
        com.commitOffset("127.0.0.1:54321", "ConsumerGroupA", "%RETRY%ConsumerGroupA", 0, 0L);
        com.commitOffset("127.0.0.1:54321", "ConsumerGroupB", "TopicTest", 0, 7L);
        note = "offsets committed with commitOffset(clientHost, group, topic, queueId, offset): TopicTest@ConsumerGroupA 0..3 -> 100..103, %RETRY%ConsumerGroupA@ConsumerGroupA 0 -> 0, TopicTest@ConsumerGroupB 0 -> 7";
        out.write("consumerOffset.json", utf8(com.encode(true)), entry(ConsumerOffsetManager.class.getName(), "encode(true) = RemotingSerializable.toJson(this, true) (ConfigManager#persist)", note));
        out.write("get_all_consumer_offset.body.json", utf8(com.encode()), entry(ConsumerOffsetManager.class.getName(), "encode() (AdminBrokerProcessor#getAllConsumerOffset body)", note));

        SubscriptionGroupManager sgm = c.getSubscriptionGroupManager();
        SubscriptionGroupConfig g = new SubscriptionGroupConfig();
        g.setGroupName("ConsumerGroupA");
        sgm.getSubscriptionGroupTable().put(g.getGroupName(), g);
        sgm.getDataVersion().assignNewOne(dv(1));
        note = "the system groups SubscriptionGroupManager#init adds, plus ConsumerGroupA with defaults; dataVersion {counter 1, timestamp 1700000000000}";
        out.write("subscriptionGroup.json", utf8(sgm.encode(true)), entry(SubscriptionGroupManager.class.getName(), "encode(true) = RemotingSerializable.toJson(this, true) (ConfigManager#persist)", note));
        out.write("get_all_subscriptiongroup_config.body.json", utf8(sgm.encode()), entry(SubscriptionGroupManager.class.getName(), "encode() (AdminBrokerProcessor#getAllSubscriptionGroup body)", note));

        ScheduleMessageService sms = new ScheduleMessageService(null);
        sms.decode("{\"offsetTable\":{1:0,2:15,3:7,18:1}}");
        note = "levels 1 -> 0, 2 -> 15, 3 -> 7, 18 -> 1 (loaded with ScheduleMessageService#decode)";
        out.write("delayOffset.json", utf8(sms.encode(true)), entry(ScheduleMessageService.class.getName(), "encode(true) (ConfigManager#persist)", note));
        out.write("get_all_delay_offset.body.json", utf8(sms.encode()), entry(ScheduleMessageService.class.getName(), "encode() (AdminBrokerProcessor#getAllDelayOffset body)", note));

        ConsumerFilterManager cfm = c.getConsumerFilterManager();
        out.write("consumerFilter.json", utf8(cfm.encode(true)), entry(ConsumerFilterManager.class.getName(), "encode(true) of an empty manager (ConfigManager#persist)", "no SQL92 filters registered"));

        KVConfigSerializeWrapper kv = new KVConfigSerializeWrapper();
        HashMap<String, HashMap<String, String>> table = new HashMap<>();
        HashMap<String, String> order = new HashMap<>();
        order.put("TopicOrder", "broker-a:2");
        table.put("ORDER_TOPIC_CONFIG", order);
        kv.setConfigTable(table);
        out.write("kvConfig.json", utf8(kv.toJson()), entry(KVConfigSerializeWrapper.class.getName(), "toJson() (compact: KVConfigManager#persist writes it that way), file $HOME/namesrv/kvConfig.json", "namespace ORDER_TOPIC_CONFIG, TopicOrder -> broker-a:2"));

        out.finish("org.skyrocket.golden.ConfigGoldenMain (RocketMQ 4.9.7 rocketmq-broker/rocketmq-namesrv: 4.9.8 of these is not on Maven Central)", null);
        StoreGoldensCleanup.deleteTree(tmp);
    }

    /** Small local helper: remove the temp store root (nothing is written there, but be tidy). */
    static final class StoreGoldensCleanup {
        static void deleteTree(Path p) throws Exception {
            if (!Files.exists(p)) {
                return;
            }
            try (java.util.stream.Stream<Path> s = Files.walk(p)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
            }
        }
    }
}
