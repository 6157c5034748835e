package org.skyrocket.golden;

import com.alibaba.fastjson.JSON;
import com.alibaba.fastjson.JSONObject;
import com.alibaba.fastjson.parser.Feature;
import com.alibaba.fastjson.serializer.SerializerFeature;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.help.FAQUrl;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.protocol.RequestCode;
import org.apache.rocketmq.common.protocol.ResponseCode;
import org.apache.rocketmq.common.protocol.body.RegisterBrokerBody;
import org.apache.rocketmq.common.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.PullMessageResponseHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.common.protocol.header.SendMessageResponseHeader;
import org.apache.rocketmq.common.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.apache.rocketmq.common.protocol.header.namesrv.GetRouteInfoRequestHeader;
import org.apache.rocketmq.common.protocol.header.namesrv.RegisterBrokerRequestHeader;
import org.apache.rocketmq.common.sysflag.PullSysFlag;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.netty.NettyEncoder;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;

/**
 * Whole RemotingCommand frames, for both serialize types, exactly as the 4.9.8 classes produce
 * them. For every case and type we write {@code <case>.<json|rocketmq>.hex} from
 * {@code RemotingCommand#encode()}; when what Netty actually writes ({@code NettyEncoder}, which
 * uses {@code fastEncodeHeader} and, for FastCodesHeader headers in ROCKETMQ mode, a different
 * field order) differs, we also write {@code <case>.<type>.wire.hex}.
 */
public final class FrameGoldens {
    private static final int VERSION = MQVersion.CURRENT_VERSION; // 409 = V4_9_8

    private FrameGoldens() {
    }

    private static final class Case {
        final String name;
        final String description;
        final Supplier<RemotingCommand> build;
        final String bodyClass;

        Case(String name, String description, String bodyClass, Supplier<RemotingCommand> build) {
            this.name = name;
            this.description = description;
            this.build = build;
            this.bodyClass = bodyClass;
        }
    }

    private static RemotingCommand request(int code, CommandCustomHeader h, int opaque) {
        RemotingCommand c = RemotingCommand.createRequestCommand(code, h);
        c.setVersion(VERSION);
        c.setOpaque(opaque);
        return c;
    }

    static String sendProperties() {
        Message m = Samples.message(Samples.TOPIC, "TagA", "KEY1 KEY2", Samples.BODY);
        return MessageDecoder.messageProperties2String(m.getProperties());
    }

    /** As DefaultMQProducerImpl#sendKernelImpl fills the V1 header, then MQClientAPIImpl converts it to V2. */
    static SendMessageRequestHeaderV2 sendHeader(boolean batch, String props) {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup(Samples.PRODUCER_GROUP);
        h.setTopic(Samples.TOPIC);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(1);
        h.setSysFlag(0);
        h.setBornTimestamp(Samples.TIMESTAMP);
        h.setFlag(0);
        h.setProperties(props);
        h.setReconsumeTimes(0);
        h.setUnitMode(false);
        h.setBatch(batch);
        h.setBname(Samples.BROKER_A);
        return SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h);
    }

    static List<Case> cases() {
        List<Case> cs = new ArrayList<>();
        cs.add(new Case("get_routeinfo_by_topic",
            "GET_ROUTEINFO_BY_TOPIC request as MQClientAPIImpl#getTopicRouteInfoFromNameServer builds it", null, () -> {
                GetRouteInfoRequestHeader h = new GetRouteInfoRequestHeader();
                h.setTopic(Samples.TOPIC);
                return request(RequestCode.GET_ROUTEINFO_BY_TOPIC, h, 1);
            }));
        cs.add(new Case("get_routeinfo_by_topic_response",
            "GET_ROUTEINFO_BY_TOPIC success response; body = TopicRouteData in the standard-JSON form namesrv uses for version >= V4_9_4",
            "org.apache.rocketmq.common.protocol.route.TopicRouteData", () -> {
                RemotingCommand c = RemotingCommand.createResponseCommand(null);
                c.setCode(ResponseCode.SUCCESS);
                c.setRemark(null);
                c.setVersion(VERSION);
                c.setOpaque(1);
                c.setBody(Samples.topicRouteData().encode(SerializerFeature.BrowserCompatible,
                    SerializerFeature.QuoteFieldNames, SerializerFeature.SkipTransientField,
                    SerializerFeature.MapSortField));
                return c;
            }));
        cs.add(new Case("topic_not_exist_response",
            "error response with a remark: TOPIC_NOT_EXIST (17) exactly as namesrv DefaultRequestProcessor#getRouteInfoByTopic words it; no extFields",
            null, () -> {
                RemotingCommand c = RemotingCommand.createResponseCommand(null);
                c.setCode(ResponseCode.TOPIC_NOT_EXIST);
                c.setRemark("No topic route info in name server for the topic: " + Samples.TOPIC
                    + FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL));
                c.setVersion(VERSION);
                c.setOpaque(1);
                return c;
            }));
        cs.add(new Case("send_message_v2",
            "SEND_MESSAGE_V2 request (SendMessageRequestHeaderV2, short keys a..n); properties i contain \\u0001/\\u0002",
            "message body bytes", () -> {
                RemotingCommand c = request(RequestCode.SEND_MESSAGE_V2, sendHeader(false, sendProperties()), 2);
                c.setBody(Samples.BODY.getBytes(StandardCharsets.UTF_8));
                return c;
            }));
        cs.add(new Case("send_message_v2_response",
            "SEND_MESSAGE_V2 success response (SendMessageResponseHeader + MSG_REGION/TRACE_ON as SendMessageProcessor adds them)",
            null, () -> {
                RemotingCommand c = RemotingCommand.createResponseCommand(SendMessageResponseHeader.class);
                SendMessageResponseHeader h = (SendMessageResponseHeader) c.readCustomHeader();
                c.setCode(ResponseCode.SUCCESS);
                c.setRemark(null);
                c.setVersion(VERSION);
                c.setOpaque(2);
                h.setMsgId("7F00000100002A9F0000000000001000");
                h.setQueueId(1);
                h.setQueueOffset(42L);
                c.addExtField(MessageConst.PROPERTY_MSG_REGION, "DefaultRegion");
                c.addExtField(MessageConst.PROPERTY_TRACE_SWITCH, "true");
                return c;
            }));
        cs.add(new Case("send_batch_message",
            "SEND_BATCH_MESSAGE request (header V2 with m=true); body = MessageDecoder#encodeMessages of two messages",
            "MessageDecoder.encodeMessages", () -> {
                Message m1 = Samples.message(Samples.TOPIC, "TagA", "K1", "batch-1");
                Message m2 = Samples.message(Samples.TOPIC, "TagB", "K2", "batch-2");
                RemotingCommand c = request(RequestCode.SEND_BATCH_MESSAGE, sendHeader(true, "WAIT\u0001true"), 11);
                c.setBody(MessageDecoder.encodeMessages(Arrays.asList(m1, m2)));
                return c;
            }));
        cs.add(new Case("pull_message",
            "PULL_MESSAGE request (PullMessageRequestHeader, a FastCodesHeader) as PullAPIWrapper builds it",
            null, () -> {
                PullMessageRequestHeader h = new PullMessageRequestHeader();
                h.setConsumerGroup(Samples.CONSUMER_GROUP);
                h.setTopic(Samples.TOPIC);
                h.setQueueId(1);
                h.setQueueOffset(42L);
                h.setMaxMsgNums(32);
                h.setSysFlag(PullSysFlag.buildSysFlag(true, true, true, false));
                h.setCommitOffset(40L);
                h.setSuspendTimeoutMillis(15000L);
                h.setSubscription("TagA || TagB");
                h.setSubVersion(Samples.TIMESTAMP + 1);
                h.setExpressionType("TAG");
                h.setBname(Samples.BROKER_A);
                return request(RequestCode.PULL_MESSAGE, h, 3);
            }));
        cs.add(new Case("pull_message_response",
            "PULL_MESSAGE FOUND response (PullMessageResponseHeader) with one stored message record as body",
            "MessageDecoder.encode(MessageExt)", () -> {
                RemotingCommand c = RemotingCommand.createResponseCommand(PullMessageResponseHeader.class);
                PullMessageResponseHeader h = (PullMessageResponseHeader) c.readCustomHeader();
                c.setCode(ResponseCode.SUCCESS);
                c.setRemark("FOUND");
                c.setVersion(VERSION);
                c.setOpaque(3);
                h.setSuggestWhichBrokerId(0L);
                h.setNextBeginOffset(43L);
                h.setMinOffset(0L);
                h.setMaxOffset(43L);
                try {
                    c.setBody(MessageDecoder.encode(Samples.messageExt(false, false, true), false));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return c;
            }));
        cs.add(new Case("heart_beat",
            "HEART_BEAT request, no header, body = HeartbeatData (fastjson)",
            "org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData", () -> {
                RemotingCommand c = request(RequestCode.HEART_BEAT, null, 4);
                c.setBody(Samples.heartbeat().encode());
                return c;
            }));
        cs.add(new Case("heart_beat_response",
            "success response with no extFields and no remark (ClientManageProcessor#heartBeat)", null, () -> {
                RemotingCommand c = RemotingCommand.createResponseCommand(null);
                c.setCode(ResponseCode.SUCCESS);
                c.setRemark(null);
                c.setVersion(VERSION);
                c.setOpaque(4);
                return c;
            }));
        cs.add(new Case("register_broker",
            "REGISTER_BROKER request as BrokerOuterAPI#registerBrokerAll builds it (compressed=false, bodyCrc32 = UtilAll.crc32(body))",
            "org.apache.rocketmq.common.protocol.body.RegisterBrokerBody", () -> {
                RegisterBrokerBody b = new RegisterBrokerBody();
                b.setTopicConfigSerializeWrapper(Samples.topicConfigWrapper());
                b.setFilterServerList(new ArrayList<>());
                byte[] body = b.encode(false);
                RegisterBrokerRequestHeader h = new RegisterBrokerRequestHeader();
                h.setBrokerAddr("127.0.0.1:10911");
                h.setBrokerId(0L);
                h.setBrokerName(Samples.BROKER_A);
                h.setClusterName(Samples.CLUSTER);
                h.setHaServerAddr("127.0.0.1:10912");
                h.setCompressed(false);
                h.setBodyCrc32(UtilAll.crc32(body));
                RemotingCommand c = request(RequestCode.REGISTER_BROKER, h, 5);
                c.setBody(body);
                return c;
            }));
        cs.add(new Case("update_consumer_offset_oneway",
            "UPDATE_CONSUMER_OFFSET one-way request (flag 2, markOnewayRPC as invokeOneway does)", null, () -> {
                UpdateConsumerOffsetRequestHeader h = new UpdateConsumerOffsetRequestHeader();
                h.setConsumerGroup(Samples.CONSUMER_GROUP);
                h.setTopic(Samples.TOPIC);
                h.setQueueId(1);
                h.setCommitOffset(43L);
                RemotingCommand c = request(RequestCode.UPDATE_CONSUMER_OFFSET, h, 9);
                c.markOnewayRPC();
                return c;
            }));
        return cs;
    }

    private static byte[] encode(RemotingCommand c) {
        ByteBuffer bb = c.encode();
        byte[] out = new byte[bb.remaining()];
        bb.get(out);
        return out;
    }

    private static byte[] wire(RemotingCommand c) throws Exception {
        ByteBuf out = Unpooled.buffer();
        new NettyEncoder().encode(null, c, out);
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        return b;
    }

    static String codeName(int code, boolean response) {
        Class<?>[] classes = response
            ? new Class<?>[] {ResponseCode.class, org.apache.rocketmq.remoting.protocol.RemotingSysResponseCode.class}
            : new Class<?>[] {RequestCode.class};
        for (Class<?> cl : classes) {
            for (Field f : cl.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                    try {
                        if (f.getInt(null) == code) {
                            return f.getName();
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return null;
    }

    /** The extFields keys in the order the frame carries them (parsed from the frame's header bytes). */
    static List<Object> wireOrder(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        b.getInt();
        int word = b.getInt();
        int type = (word >>> 24) & 0xFF;
        int hlen = word & 0xFFFFFF;
        byte[] header = new byte[hlen];
        b.get(header);
        List<Object> keys = new ArrayList<>();
        if (type == 0) {
            JSONObject o = JSON.parseObject(new String(header, StandardCharsets.UTF_8), Feature.OrderedField);
            JSONObject ext = o.getJSONObject("extFields");
            if (ext != null) {
                keys.addAll(ext.keySet());
            }
            return keys;
        }
        ByteBuffer h = ByteBuffer.wrap(header);
        h.position(2 + 1 + 2 + 4 + 4);
        int rlen = h.getInt();
        h.position(h.position() + rlen);
        int extLen = h.getInt();
        int end = h.position() + extLen;
        while (h.position() < end) {
            byte[] k = new byte[h.getShort()];
            h.get(k);
            keys.add(new String(k, StandardCharsets.UTF_8));
            int vlen = h.getInt();
            h.position(h.position() + vlen);
        }
        return keys;
    }

    static Json.Obj describe(Case c, SerializeType type, String encoder, byte[] frame) throws Exception {
        RemotingCommand d = RemotingCommand.decode(Arrays.copyOfRange(frame, 4, frame.length));
        ByteBuffer b = ByteBuffer.wrap(frame);
        int total = b.getInt();
        int word = b.getInt();
        Json.Obj ext = null;
        if (d.getExtFields() != null) {
            ext = Json.obj();
            for (Map.Entry<String, String> e : new TreeMap<>(d.getExtFields()).entrySet()) {
                ext.put(e.getKey(), e.getValue());
            }
        }
        byte[] body = d.getBody();
        CommandCustomHeader h = c.build.get().readCustomHeader();
        return Json.obj()
            .with("case", c.name)
            .with("description", c.description)
            .with("headerClass", h == null ? null : h.getClass().getName())
            .with("serializeType", type.name())
            .with("javaEncoder", encoder)
            .with("totalLength", total)
            .with("headerLength", word & 0xFFFFFF)
            .with("code", d.getCode())
            .with("codeName", codeName(d.getCode(), d.isResponseType()))
            .with("language", d.getLanguage().name())
            .with("version", d.getVersion())
            .with("opaque", d.getOpaque())
            .with("flag", d.getFlag())
            .with("remark", d.getRemark())
            .with("extFields", ext)
            .with("extFieldsOrder", wireOrder(frame))
            .with("bodyClass", c.bodyClass)
            .with("bodyLength", body == null ? 0 : body.length)
            .with("bodyHex", body == null ? null : Hex.of(body));
    }

    public static void write(Path dir) throws Exception {
        Out out = new Out(dir);
        for (Case c : cases()) {
            for (SerializeType type : new SerializeType[] {SerializeType.JSON, SerializeType.ROCKETMQ}) {
                String suffix = type == SerializeType.JSON ? "json" : "rocketmq";
                RemotingCommand a = c.build.get();
                a.setSerializeTypeCurrentRPC(type);
                byte[] enc = encode(a);
                RemotingCommand w = c.build.get();
                w.setSerializeTypeCurrentRPC(type);
                byte[] wire = wire(w);
                boolean same = Arrays.equals(enc, wire);
                Json.Obj e = describe(c, type, "RemotingCommand#encode", enc);
                e.put("sameAsNettyEncoder", same);
                out.write(c.name + "." + suffix + ".hex", Hex.lines(enc), e);
                if (!same) {
                    Json.Obj we = describe(c, type, "NettyEncoder#encode (RemotingCommand#fastEncodeHeader + body)", wire);
                    we.put("sameAsNettyEncoder", true);
                    out.write(c.name + "." + suffix + ".wire.hex", Hex.lines(wire), we);
                }
            }
        }
        out.finish("org.skyrocket.golden.FrameGoldens (RocketMQ 4.9.8 rocketmq-remoting/rocketmq-common)",
            Json.obj()
                .with("format", "each .hex file is one whole frame (4-byte total length first), lower-case hex, 64 digits a line; ignore whitespace")
                .with("version", VERSION));
    }
}
