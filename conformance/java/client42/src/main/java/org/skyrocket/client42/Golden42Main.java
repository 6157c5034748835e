package org.skyrocket.client42;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.rocketmq.common.DataVersion;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.filter.ExpressionType;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.protocol.RequestCode;
import org.apache.rocketmq.common.protocol.body.RegisterBrokerBody;
import org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper;
import org.apache.rocketmq.common.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.common.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.apache.rocketmq.common.protocol.header.namesrv.GetRouteInfoRequestHeader;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.protocol.heartbeat.ProducerData;
import org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.QueueData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.common.sysflag.PullSysFlag;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.skyrocket.golden.Hex;
import org.skyrocket.golden.Json;
import org.skyrocket.golden.Out;

/**
 * Goldens from the RocketMQ 4.2.0 classes (the oldest client Skyrocket serves): the requests a
 * 4.2.0 client sends, in both serialize types, and the bodies whose shape changed since
 * (QueueData's topicSynFlag, properties with a trailing separator). Same sample values as the
 * 4.9.8 goldens (tools/.../golden/Samples.java) so the two can be compared.
 * Usage: Golden42Main ROOT (writes ROOT/codec/testdata/golden/v4.2.0 and
 * ROOT/protocol/testdata/golden/v4.2.0).
 */
public final class Golden42Main {
    private static final int VERSION = MQVersion.CURRENT_VERSION; // 253 = V4_2_0
    private static final long TIMESTAMP = 1700000000000L;
    private static final String TOPIC = "TopicTest";
    private static final String UNIQ_KEY = "7F000001303900000000000000000001";

    private Golden42Main() {
    }

    public static void main(String[] args) {
        int rc = 0;
        try {
            Path root = Paths.get(args[0]);
            frames(root.resolve("codec/testdata/golden/v4.2.0"));
            bodies(root.resolve("protocol/testdata/golden/v4.2.0"));
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    private static RemotingCommand request(int code, CommandCustomHeader h, int opaque) {
        RemotingCommand c = RemotingCommand.createRequestCommand(code, h);
        c.setVersion(VERSION);
        c.setOpaque(opaque);
        return c;
    }

    static String properties() {
        Message m = new Message(TOPIC, "TagA", "KEY1 KEY2", "Hello RocketMQ".getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("color", "red");
        MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, UNIQ_KEY);
        return MessageDecoder.messageProperties2String(m.getProperties());
    }

    static SubscriptionData subscription(String topic, String expr, String... tags) {
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

    static HeartbeatData heartbeat() {
        HeartbeatData h = new HeartbeatData();
        h.setClientID("127.0.0.1@12345");
        ProducerData p = new ProducerData();
        p.setGroupName("ProducerGroupA");
        ProducerData inner = new ProducerData();
        inner.setGroupName(MixAll.CLIENT_INNER_PRODUCER_GROUP);
        h.setProducerDataSet(new LinkedHashSet<>(Arrays.asList(inner, p))); // pinned order, see GOLDEN.md
        ConsumerData c = new ConsumerData();
        c.setGroupName("ConsumerGroupA");
        c.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        c.setMessageModel(MessageModel.CLUSTERING);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setSubscriptionDataSet(new HashSet<>(Arrays.asList(
            subscription(TOPIC, "TagA || TagB", "TagA", "TagB"), subscription("%RETRY%ConsumerGroupA", "*"))));
        h.getConsumerDataSet().add(c);
        return h;
    }

    private static void frames(Path dir) throws Exception {
        Map<String, Supplier<RemotingCommand>> cases = new java.util.LinkedHashMap<>();
        cases.put("get_routeinfo_by_topic", () -> {
            GetRouteInfoRequestHeader h = new GetRouteInfoRequestHeader();
            h.setTopic(TOPIC);
            return request(RequestCode.GET_ROUTEINTO_BY_TOPIC, h, 1); // spelled so in 4.2.0
        });
        cases.put("send_message_v2", () -> {
            SendMessageRequestHeader h = new SendMessageRequestHeader();
            h.setProducerGroup("ProducerGroupA");
            h.setTopic(TOPIC);
            h.setDefaultTopic("TBW102");
            h.setDefaultTopicQueueNums(4);
            h.setQueueId(1);
            h.setSysFlag(0);
            h.setBornTimestamp(TIMESTAMP);
            h.setFlag(0);
            h.setProperties(properties());
            h.setReconsumeTimes(0);
            h.setUnitMode(false);
            h.setBatch(false);
            RemotingCommand c = request(RequestCode.SEND_MESSAGE_V2, SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h), 2);
            c.setBody("Hello RocketMQ".getBytes(StandardCharsets.UTF_8));
            return c;
        });
        cases.put("pull_message", () -> {
            PullMessageRequestHeader h = new PullMessageRequestHeader();
            h.setConsumerGroup("ConsumerGroupA");
            h.setTopic(TOPIC);
            h.setQueueId(1);
            h.setQueueOffset(42L);
            h.setMaxMsgNums(32);
            h.setSysFlag(PullSysFlag.buildSysFlag(true, true, true, false));
            h.setCommitOffset(40L);
            h.setSuspendTimeoutMillis(15000L);
            h.setSubscription("TagA || TagB");
            h.setSubVersion(TIMESTAMP + 1);
            h.setExpressionType("TAG");
            return request(RequestCode.PULL_MESSAGE, h, 3);
        });
        cases.put("heart_beat", () -> {
            RemotingCommand c = request(RequestCode.HEART_BEAT, null, 4);
            c.setBody(heartbeat().encode());
            return c;
        });
        cases.put("update_consumer_offset_oneway", () -> {
            UpdateConsumerOffsetRequestHeader h = new UpdateConsumerOffsetRequestHeader();
            h.setConsumerGroup("ConsumerGroupA");
            h.setTopic(TOPIC);
            h.setQueueId(1);
            h.setCommitOffset(43L);
            RemotingCommand c = request(RequestCode.UPDATE_CONSUMER_OFFSET, h, 9);
            c.markOnewayRPC();
            return c;
        });
        Out out = new Out(dir);
        for (Map.Entry<String, Supplier<RemotingCommand>> e : cases.entrySet()) {
            for (SerializeType type : new SerializeType[] {SerializeType.JSON, SerializeType.ROCKETMQ}) {
                RemotingCommand c = e.getValue().get();
                c.setSerializeTypeCurrentRPC(type);
                ByteBuffer bb = c.encode();
                byte[] frame = new byte[bb.remaining()];
                bb.get(frame);
                RemotingCommand d = RemotingCommand.decode(Arrays.copyOfRange(frame, 4, frame.length));
                Json.Obj ext = null;
                if (d.getExtFields() != null) {
                    ext = Json.obj();
                    for (Map.Entry<String, String> x : new TreeMap<>(d.getExtFields()).entrySet()) {
                        ext.put(x.getKey(), x.getValue());
                    }
                }
                byte[] body = d.getBody();
                out.write(e.getKey() + "." + (type == SerializeType.JSON ? "json" : "rocketmq") + ".hex", Hex.lines(frame), Json.obj()
                    .with("case", e.getKey())
                    .with("headerClass", c.readCustomHeader() == null ? null : c.readCustomHeader().getClass().getName())
                    .with("serializeType", type.name())
                    .with("javaEncoder", "RemotingCommand#encode (4.2.0)")
                    .with("code", d.getCode())
                    .with("language", d.getLanguage().name())
                    .with("version", d.getVersion())
                    .with("opaque", d.getOpaque())
                    .with("flag", d.getFlag())
                    .with("remark", d.getRemark())
                    .with("extFields", ext)
                    .with("bodyLength", body == null ? 0 : body.length)
                    .with("bodyHex", body == null ? null : Hex.of(body)));
            }
        }
        out.finish("org.skyrocket.client42.Golden42Main (RocketMQ 4.2.0 rocketmq-remoting/rocketmq-common, fastjson 1.2.29)",
            Json.obj().with("format", "as ../index.json: one whole frame per .hex file").with("version", VERSION));
    }

    private static void bodies(Path dir) throws Exception {
        Out out = new Out(dir);
        TopicRouteData r = new TopicRouteData();
        List<QueueData> qds = new ArrayList<>();
        for (String[] b : new String[][] {{"broker-a", "4"}, {"broker-b", "8"}}) {
            QueueData q = new QueueData();
            q.setBrokerName(b[0]);
            q.setReadQueueNums(Integer.parseInt(b[1]));
            q.setWriteQueueNums(Integer.parseInt(b[1]));
            q.setPerm(6);
            q.setTopicSynFlag(0);
            qds.add(q);
        }
        r.setQueueDatas(qds);
        HashMap<Long, String> a = new HashMap<>();
        a.put(0L, "127.0.0.1:10911");
        a.put(1L, "127.0.0.2:10911");
        HashMap<Long, String> b = new HashMap<>();
        b.put(0L, "127.0.0.3:10911");
        b.put(1L, "127.0.0.4:10911");
        r.setBrokerDatas(new ArrayList<>(Arrays.asList(new BrokerData("DefaultCluster", "broker-a", a),
            new BrokerData("DefaultCluster", "broker-b", b))));
        r.setFilterServerTable(new HashMap<>());
        out.write("topic_route_data.json", r.encode(), Json.obj().with("javaClass", TopicRouteData.class.getName())
            .with("javaMethod", "RemotingSerializable#encode() (4.2.0: QueueData has topicSynFlag)"));
        out.write("heartbeat_data.json", heartbeat().encode(), Json.obj().with("javaClass", HeartbeatData.class.getName())
            .with("javaMethod", "RemotingSerializable#encode()"));

        TopicConfigSerializeWrapper w = new TopicConfigSerializeWrapper();
        ConcurrentHashMap<String, TopicConfig> t = new ConcurrentHashMap<>();
        t.put(TOPIC, new TopicConfig(TOPIC, 4, 4, 6));
        w.setTopicConfigTable(t);
        DataVersion dv = new DataVersion();
        dv.setTimestamp(TIMESTAMP);
        dv.setCounter(new AtomicLong(3));
        w.setDataVersion(dv);
        RegisterBrokerBody rb = new RegisterBrokerBody();
        rb.setTopicConfigSerializeWrapper(w);
        rb.setFilterServerList(new ArrayList<>());
        out.write("register_broker_body.json", rb.encode(), Json.obj().with("javaClass", RegisterBrokerBody.class.getName())
            .with("javaMethod", "RemotingSerializable#encode() (4.2.0 has no compressed form)"));
        out.write("message_properties.txt", properties().getBytes(StandardCharsets.UTF_8), Json.obj()
            .with("javaClass", MessageDecoder.class.getName())
            .with("javaMethod", "messageProperties2String of TAGS, KEYS, WAIT, color, UNIQ_KEY (4.2.0 ends with a 0x02 separator)"));
        out.finish("org.skyrocket.client42.Golden42Main (RocketMQ 4.2.0 rocketmq-common, fastjson 1.2.29)", null);
    }
}
