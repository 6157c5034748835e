package org.skyrocket.golden;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.common.DataVersion;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.filter.ExpressionType;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.protocol.heartbeat.ProducerData;
import org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.QueueData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;

/**
 * The fixed sample values every golden is built from. Nothing here may depend on the clock,
 * the host or the process: goldens are regenerated and diffed in `make test`.
 */
public final class Samples {
    public static final String CLUSTER = "DefaultCluster";
    public static final String BROKER_A = "broker-a";
    public static final String BROKER_B = "broker-b";
    public static final String TOPIC = "TopicTest";
    public static final String PRODUCER_GROUP = "ProducerGroupA";
    public static final String CONSUMER_GROUP = "ConsumerGroupA";
    public static final String CLIENT_ID = "127.0.0.1@12345";
    public static final long TIMESTAMP = 1700000000000L; // 2023-11-14T22:13:20Z
    public static final String UNIQ_KEY = "7F000001303900000000000000000001";
    public static final String BODY = "Hello RocketMQ";

    private Samples() {
    }

    public static DataVersion dataVersion(long counter) {
        DataVersion dv = new DataVersion();
        dv.setTimestamp(TIMESTAMP);
        dv.setCounter(new AtomicLong(counter));
        return dv;
    }

    public static HashMap<Long, String> addrs(String master, String slave) {
        HashMap<Long, String> m = new HashMap<>();
        m.put(MixAll.MASTER_ID, master);
        if (slave != null) {
            m.put(1L, slave);
        }
        return m;
    }

    public static QueueData queueData(String brokerName, int queues) {
        QueueData q = new QueueData();
        q.setBrokerName(brokerName);
        q.setReadQueueNums(queues);
        q.setWriteQueueNums(queues);
        q.setPerm(6);
        q.setTopicSysFlag(0);
        return q;
    }

    /** Two brokers, each a master (id 0) and a slave (id 1), and a QueueData per broker. */
    public static TopicRouteData topicRouteData() {
        TopicRouteData r = new TopicRouteData();
        r.setQueueDatas(new ArrayList<>(Arrays.asList(queueData(BROKER_A, 4), queueData(BROKER_B, 8))));
        r.setBrokerDatas(new ArrayList<>(Arrays.asList(
            new BrokerData(CLUSTER, BROKER_A, addrs("127.0.0.1:10911", "127.0.0.2:10911")),
            new BrokerData(CLUSTER, BROKER_B, addrs("127.0.0.3:10911", "127.0.0.4:10911")))));
        r.setFilterServerTable(new HashMap<>());
        return r;
    }

    public static TopicConfig topicConfig(String name, int queues, int perm) {
        return new TopicConfig(name, queues, queues, perm);
    }

    public static TopicConfigSerializeWrapper topicConfigWrapper() {
        TopicConfigSerializeWrapper w = new TopicConfigSerializeWrapper();
        ConcurrentHashMap<String, TopicConfig> t = new ConcurrentHashMap<>();
        t.put(TOPIC, topicConfig(TOPIC, 4, 6));
        TopicConfig ordered = topicConfig("TopicOrder", 2, 6);
        ordered.setOrder(true);
        t.put("TopicOrder", ordered);
        t.put("TBW102", topicConfig("TBW102", 8, 7));
        t.put("%RETRY%" + CONSUMER_GROUP, topicConfig("%RETRY%" + CONSUMER_GROUP, 1, 6));
        w.setTopicConfigTable(t);
        w.setDataVersion(dataVersion(3));
        return w;
    }

    public static SubscriptionData subscription(String topic, String expr, String... tags) {
        SubscriptionData s = new SubscriptionData();
        s.setTopic(topic);
        s.setSubString(expr);
        s.setExpressionType(ExpressionType.TAG);
        s.setSubVersion(TIMESTAMP + 1);
        for (String tag : tags) {
            s.getTagsSet().add(tag);
            s.getCodeSet().add(tag.hashCode());
        }
        return s;
    }

    public static HeartbeatData heartbeat() {
        HeartbeatData h = new HeartbeatData();
        h.setClientID(CLIENT_ID);
        ProducerData p = new ProducerData();
        p.setGroupName(PRODUCER_GROUP);
        ProducerData inner = new ProducerData();
        inner.setGroupName(MixAll.CLIENT_INNER_PRODUCER_GROUP);
        // ProducerData has no hashCode(), so a real client's HashSet iterates in identity-hash
        // (run-dependent) order. Pin one order so the golden is reproducible.
        h.setProducerDataSet(new java.util.LinkedHashSet<>(Arrays.asList(inner, p)));
        ConsumerData c = new ConsumerData();
        c.setGroupName(CONSUMER_GROUP);
        c.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        c.setMessageModel(MessageModel.CLUSTERING);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setUnitMode(false);
        c.setSubscriptionDataSet(new HashSet<>(Arrays.asList(
            subscription(TOPIC, "TagA || TagB", "TagA", "TagB"),
            subscription("%RETRY%" + CONSUMER_GROUP, "*"))));
        h.getConsumerDataSet().add(c);
        return h;
    }

    /** A message as a 4.9.8 producer builds it: tags, keys, WAIT, a user property and a fixed UNIQ_KEY. */
    public static Message message(String topic, String tags, String keys, String body) {
        Message m = new Message(topic, tags, keys, body.getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("color", "red");
        MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, UNIQ_KEY);
        return m;
    }

    /**
     * A stored message with fixed fields. bodyCRC is computed as the broker does
     * (UtilAll.crc32 of the stored body), because MessageDecoder.encode copies it from the object.
     */
    public static MessageExt messageExt(boolean v6Born, boolean v6Store, boolean withProps) throws Exception {
        MessageExt m = new MessageExt();
        m.setTopic(TOPIC);
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        m.setBody(body);
        m.setBodyCRC(UtilAll.crc32(body));
        m.setQueueId(1);
        m.setFlag(0);
        m.setQueueOffset(42);
        m.setCommitLogOffset(4096);
        int sysFlag = 0;
        if (v6Born) {
            sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
            m.setBornHost(new InetSocketAddress(java.net.InetAddress.getByName("fe80::1:2:3:4"), 54321));
        } else {
            m.setBornHost(new InetSocketAddress(java.net.InetAddress.getByName("192.168.0.10"), 54321));
        }
        if (v6Store) {
            sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
            m.setStoreHost(new InetSocketAddress(java.net.InetAddress.getByName("::1"), 10911));
        } else {
            m.setStoreHost(new InetSocketAddress(java.net.InetAddress.getByName("127.0.0.1"), 10911));
        }
        m.setSysFlag(sysFlag);
        m.setBornTimestamp(TIMESTAMP);
        m.setStoreTimestamp(TIMESTAMP + 5);
        m.setReconsumeTimes(0);
        m.setPreparedTransactionOffset(0);
        if (withProps) {
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_TAGS, "TagA");
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_KEYS, "KEY1 KEY2");
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, UNIQ_KEY);
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_CLUSTER, CLUSTER);
            MessageAccessor.putProperty(m, "color", "red");
        }
        return m;
    }
}
