package org.skyrocket.golden;

import com.alibaba.fastjson.serializer.SerializerFeature;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.zip.InflaterInputStream;
import org.apache.rocketmq.common.admin.ConsumeStats;
import org.apache.rocketmq.common.admin.OffsetWrapper;
import org.apache.rocketmq.common.admin.TopicOffset;
import org.apache.rocketmq.common.admin.TopicStatsTable;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.body.BrokerStatsData;
import org.apache.rocketmq.common.protocol.body.BrokerStatsItem;
import org.apache.rocketmq.common.protocol.body.ClusterInfo;
import org.apache.rocketmq.common.protocol.body.ConsumeQueueData;
import org.apache.rocketmq.common.protocol.body.ConsumeStatsList;
import org.apache.rocketmq.common.protocol.body.GetConsumerStatusBody;
import org.apache.rocketmq.common.protocol.body.GroupList;
import org.apache.rocketmq.common.protocol.body.ProducerInfo;
import org.apache.rocketmq.common.protocol.body.ProducerTableInfo;
import org.apache.rocketmq.common.protocol.body.QueryConsumeQueueResponseBody;
import org.apache.rocketmq.common.protocol.body.QueryConsumeTimeSpanBody;
import org.apache.rocketmq.common.protocol.body.QueryCorrectionOffsetBody;
import org.apache.rocketmq.common.protocol.body.QueueTimeSpan;
import org.apache.rocketmq.common.protocol.topic.OffsetMovedEvent;
import org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.common.protocol.body.Connection;
import org.apache.rocketmq.common.protocol.body.ConsumerConnection;
import org.apache.rocketmq.common.protocol.body.ConsumerOffsetSerializeWrapper;
import org.apache.rocketmq.common.protocol.body.KVTable;
import org.apache.rocketmq.common.protocol.body.LockBatchResponseBody;
import org.apache.rocketmq.common.protocol.body.RegisterBrokerBody;
import org.apache.rocketmq.common.protocol.body.ResetOffsetBody;
import org.apache.rocketmq.common.protocol.body.SubscriptionGroupWrapper;
import org.apache.rocketmq.common.protocol.body.TopicList;
import org.apache.rocketmq.common.protocol.header.GetConsumerListByGroupResponseBody;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.remoting.protocol.LanguageCode;

/**
 * Response and request bodies exactly as 4.9.8 serializes them: RemotingSerializable#encode()
 * (fastjson, compact, default features: non-string map keys unquoted, object keys as JSON objects,
 * nulls omitted, bean properties sorted) unless an entry says otherwise.
 */
public final class BodyGoldens {
    private static final String DEFAULT = "RemotingSerializable#encode() (fastjson JSON.toJSONString(obj, false))";

    private BodyGoldens() {
    }

    private static Json.Obj entry(Class<?> cl, String method, String usedBy) {
        return Json.obj().with("javaClass", cl.getName()).with("javaMethod", method).with("usedBy", usedBy);
    }

    private static MessageQueue mq(String broker, int q) {
        return new MessageQueue(Samples.TOPIC, broker, q);
    }

    public static void write(Path dir) throws Exception {
        Out out = new Out(dir);

        TopicRouteData route = Samples.topicRouteData();
        out.write("topic_route_data.json", route.encode(),
            entry(TopicRouteData.class, DEFAULT, "GET_ROUTEINFO_BY_TOPIC (105) response body for request version < V4_9_4 (401)"));
        out.write("topic_route_data.standard.json", route.encode(SerializerFeature.BrowserCompatible,
                SerializerFeature.QuoteFieldNames, SerializerFeature.SkipTransientField, SerializerFeature.MapSortField),
            entry(TopicRouteData.class,
                "encode(BrowserCompatible, QuoteFieldNames, SkipTransientField, MapSortField) as namesrv DefaultRequestProcessor#getRouteInfoByTopic",
                "GET_ROUTEINFO_BY_TOPIC (105) response body for request version >= V4_9_4 (401) or acceptStandardJsonOnly=true"));
        TopicRouteData ordered = Samples.topicRouteData();
        ordered.setOrderTopicConf("broker-a:4;broker-b:8");
        out.write("topic_route_data_order.json", ordered.encode(),
            entry(TopicRouteData.class, DEFAULT, "GET_ROUTEINFO_BY_TOPIC with orderTopicConf (KV namespace ORDER_TOPIC_CONFIG)"));

        ClusterInfo ci = new ClusterInfo();
        HashMap<String, BrokerData> bat = new HashMap<>();
        bat.put(Samples.BROKER_A, new BrokerData(Samples.CLUSTER, Samples.BROKER_A, Samples.addrs("127.0.0.1:10911", "127.0.0.2:10911")));
        bat.put(Samples.BROKER_B, new BrokerData(Samples.CLUSTER, Samples.BROKER_B, Samples.addrs("127.0.0.3:10911", null)));
        ci.setBrokerAddrTable(bat);
        HashMap<String, Set<String>> cat = new HashMap<>();
        cat.put(Samples.CLUSTER, new HashSet<>(Arrays.asList(Samples.BROKER_A, Samples.BROKER_B)));
        ci.setClusterAddrTable(cat);
        out.write("cluster_info.json", ci.encode(), entry(ClusterInfo.class, DEFAULT, "GET_BROKER_CLUSTER_INFO (106) response body"));

        RegisterBrokerBody rb = new RegisterBrokerBody();
        rb.setTopicConfigSerializeWrapper(Samples.topicConfigWrapper());
        rb.setFilterServerList(new ArrayList<>());
        out.write("register_broker_body.json", rb.encode(false),
            entry(RegisterBrokerBody.class, "encode(false) = RemotingSerializable#encode()", "REGISTER_BROKER (103) request body, header compressed=false"));
        byte[] z = rb.encode(true);
        out.write("register_broker_body.zlib.bin", z,
            entry(RegisterBrokerBody.class, "encode(true): zlib (Deflater BEST_COMPRESSION) of [int len][DataVersion json][int n]{[int len][TopicConfig#encode()]}*n[int len][filterServerList json]",
                "REGISTER_BROKER (103) request body, header compressed=true (brokerConfig.compressedRegister)"));
        out.write("register_broker_body.inflated.bin", inflate(z),
            entry(RegisterBrokerBody.class, "the bytes of register_broker_body.zlib.bin after java.util.zip.InflaterInputStream (the inner layout)",
                "decoding reference for the compressed form"));

        KVTable kv = new KVTable();
        kv.getTable().put("brokerVersion", "409");
        kv.getTable().put("msgPutTotalTodayNow", "12");
        kv.getTable().put("commitLogMaxOffset", "1048576");
        kv.getTable().put("brokerVersionDesc", "V4_9_8");
        out.write("kv_table.json", kv.encode(), entry(KVTable.class, DEFAULT, "GET_BROKER_RUNTIME_INFO (28), GET_KVLIST_BY_NAMESPACE (219) response bodies"));

        TopicList tl = new TopicList();
        tl.getTopicList().addAll(Arrays.asList(Samples.TOPIC, "TopicOrder", "TBW102", "%RETRY%" + Samples.CONSUMER_GROUP, Samples.CLUSTER));
        out.write("topic_list.json", tl.encode(), entry(TopicList.class, DEFAULT, "GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206) response body (brokerAddr null, so omitted)"));
        TopicList tlb = new TopicList();
        tlb.getTopicList().addAll(Arrays.asList(Samples.TOPIC, "TopicOrder"));
        tlb.setBrokerAddr("127.0.0.1:10911");
        out.write("topic_list_with_broker.json", tlb.encode(), entry(TopicList.class, DEFAULT, "TopicList with brokerAddr set (GET_TOPICS_BY_CLUSTER and friends)"));

        out.write("topic_config_wrapper.json", Samples.topicConfigWrapper().encode(),
            entry(org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper.class, DEFAULT, "GET_ALL_TOPIC_CONFIG (21) response body shape"));

        SubscriptionGroupWrapper sgw = new SubscriptionGroupWrapper();
        ConcurrentHashMap<String, SubscriptionGroupConfig> sgt = new ConcurrentHashMap<>();
        SubscriptionGroupConfig g = new SubscriptionGroupConfig();
        g.setGroupName(Samples.CONSUMER_GROUP);
        sgt.put(Samples.CONSUMER_GROUP, g);
        SubscriptionGroupConfig g2 = new SubscriptionGroupConfig();
        g2.setGroupName("ConsumerGroupB");
        g2.setConsumeBroadcastEnable(false);
        g2.setRetryMaxTimes(3);
        g2.setBrokerId(1);
        sgt.put("ConsumerGroupB", g2);
        sgw.setSubscriptionGroupTable(sgt);
        sgw.setDataVersion(Samples.dataVersion(2));
        out.write("subscription_group_wrapper.json", sgw.encode(), entry(SubscriptionGroupWrapper.class, DEFAULT, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201) response body shape (as decoded by clients)"));

        ConsumerOffsetSerializeWrapper cow = new ConsumerOffsetSerializeWrapper();
        ConcurrentMap<Integer, Long> q = new ConcurrentHashMap<>();
        q.put(0, 120L);
        q.put(1, 98L);
        q.put(2, 0L);
        q.put(3, 1L);
        cow.getOffsetTable().put(Samples.TOPIC + "@" + Samples.CONSUMER_GROUP, q);
        ConcurrentMap<Integer, Long> r = new ConcurrentHashMap<>();
        r.put(0, 0L);
        cow.getOffsetTable().put("%RETRY%" + Samples.CONSUMER_GROUP + "@" + Samples.CONSUMER_GROUP, r);
        out.write("consumer_offset_wrapper.json", cow.encode(), entry(ConsumerOffsetSerializeWrapper.class, DEFAULT, "GET_ALL_CONSUMER_OFFSET (43) response body shape (slave sync)"));

        ConsumeStats cs = new ConsumeStats();
        for (int i = 0; i < 2; i++) {
            for (String b : new String[] {Samples.BROKER_A, Samples.BROKER_B}) {
                OffsetWrapper ow = new OffsetWrapper();
                ow.setBrokerOffset(100 + i);
                ow.setConsumerOffset(90 + i);
                ow.setLastTimestamp(Samples.TIMESTAMP + i);
                cs.getOffsetTable().put(mq(b, i), ow);
            }
        }
        cs.setConsumeTps(1.5);
        out.write("consume_stats.json", cs.encode(), entry(ConsumeStats.class, DEFAULT, "GET_CONSUME_STATS (208) response body (MessageQueue object keys)"));

        TopicStatsTable ts = new TopicStatsTable();
        for (int i = 0; i < 2; i++) {
            TopicOffset to = new TopicOffset();
            to.setMinOffset(i);
            to.setMaxOffset(100 + i);
            to.setLastUpdateTimestamp(Samples.TIMESTAMP + i);
            ts.getOffsetTable().put(mq(Samples.BROKER_A, i), to);
        }
        out.write("topic_stats_table.json", ts.encode(), entry(TopicStatsTable.class, DEFAULT, "GET_TOPIC_STATS_INFO (202) response body (MessageQueue object keys)"));

        LockBatchResponseBody lb = new LockBatchResponseBody();
        lb.getLockOKMQSet().add(mq(Samples.BROKER_A, 0));
        lb.getLockOKMQSet().add(mq(Samples.BROKER_A, 1));
        out.write("lock_batch_response_body.json", lb.encode(), entry(LockBatchResponseBody.class, DEFAULT, "LOCK_BATCH_MQ (41) response body"));

        GetConsumerListByGroupResponseBody cl = new GetConsumerListByGroupResponseBody();
        cl.setConsumerIdList(new ArrayList<>(Arrays.asList("127.0.0.1@12345", "127.0.0.1@12346")));
        out.write("consumer_list_by_group.json", cl.encode(), entry(GetConsumerListByGroupResponseBody.class, DEFAULT, "GET_CONSUMER_LIST_BY_GROUP (38) response body"));

        ConsumerConnection cc = new ConsumerConnection();
        Connection conn = new Connection();
        conn.setClientId(Samples.CLIENT_ID);
        conn.setClientAddr("127.0.0.1:54321");
        conn.setLanguage(LanguageCode.JAVA);
        conn.setVersion(409);
        cc.getConnectionSet().add(conn);
        cc.getSubscriptionTable().put(Samples.TOPIC, Samples.subscription(Samples.TOPIC, "TagA || TagB", "TagA", "TagB"));
        cc.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        cc.setMessageModel(MessageModel.CLUSTERING);
        cc.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        out.write("consumer_connection.json", cc.encode(), entry(ConsumerConnection.class, DEFAULT, "GET_CONSUMER_CONNECTION_LIST (203) response body"));

        ResetOffsetBody ro = new ResetOffsetBody();
        Map<MessageQueue, Long> rot = new HashMap<>();
        rot.put(mq(Samples.BROKER_A, 0), 10L);
        rot.put(mq(Samples.BROKER_A, 1), 11L);
        ro.setOffsetTable(rot);
        out.write("reset_offset_body.json", ro.encode(), entry(ResetOffsetBody.class, DEFAULT, "RESET_CONSUMER_CLIENT_OFFSET (220) broker->client body, INVOKE_BROKER_TO_RESET_OFFSET (222) response"));

        out.write("heartbeat_data.json", Samples.heartbeat().encode(), entry(org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData.class, DEFAULT, "HEART_BEAT (34) request body"));

        out.write("topic_config_encode.txt", Samples.topicConfig(Samples.TOPIC, 4, 6).encode().getBytes(StandardCharsets.UTF_8),
            entry(org.apache.rocketmq.common.TopicConfig.class, "TopicConfig#encode() (space-separated text, no trailing newline)", "inside the compressed RegisterBrokerBody"));

        out.write("data_version.json", Samples.dataVersion(7).encode(), entry(org.apache.rocketmq.common.DataVersion.class, DEFAULT, "inside RegisterBrokerBody, TopicConfigSerializeWrapper, QUERY_DATA_VERSION (322) body"));

        // The admin bodies of protocol/body_admin.go (values as in its tests).
        GroupList gl = new GroupList();
        gl.getGroupList().add("a");
        gl.getGroupList().add("b");
        out.write("group_list.json", gl.encode(), entry(GroupList.class, DEFAULT, "QUERY_TOPIC_CONSUME_BY_WHO (300) response body (a HashSet: this order is the set's)"));
        out.write("group_list_empty.json", new GroupList().encode(), entry(GroupList.class, DEFAULT, "QUERY_TOPIC_CONSUME_BY_WHO (300) with no group"));

        out.write("lock_batch_response_body_empty.json", new LockBatchResponseBody().encode(), entry(LockBatchResponseBody.class, DEFAULT, "LOCK_BATCH_MQ (41) response body, nothing locked"));

        BrokerStatsData bsd = new BrokerStatsData();
        bsd.setStatsMinute(statsItem(3, 0.05, 2));
        bsd.setStatsHour(statsItem(0, 0, 0));
        bsd.setStatsDay(statsItem(1, 0, 0));
        out.write("broker_stats_data.json", bsd.encode(), entry(BrokerStatsData.class, DEFAULT, "VIEW_BROKER_STATS_DATA (315) response body"));

        ConsumeStatsList csl = new ConsumeStatsList();
        csl.setBrokerAddr("1.2.3.4:10911");
        csl.setTotalDiff(5);
        ConsumeStats one = new ConsumeStats();
        OffsetWrapper ow5 = new OffsetWrapper();
        ow5.setBrokerOffset(5);
        one.getOffsetTable().put(mq(Samples.BROKER_A, 0), ow5);
        Map<String, List<ConsumeStats>> g1 = new HashMap<>();
        g1.put("G", new ArrayList<>(Arrays.asList(one)));
        Map<String, List<ConsumeStats>> g2m = new HashMap<>();
        g2m.put("H", new ArrayList<>());
        csl.getConsumeStatsList().add(g1);
        csl.getConsumeStatsList().add(g2m);
        out.write("consume_stats_list.json", csl.encode(), entry(ConsumeStatsList.class, DEFAULT, "GET_BROKER_CONSUME_STATS (317) response body"));

        QueryConsumeTimeSpanBody qts = new QueryConsumeTimeSpanBody();
        QueueTimeSpan span = new QueueTimeSpan();
        span.setMessageQueue(mq(Samples.BROKER_A, 0));
        span.setMinTimeStamp(1);
        span.setMaxTimeStamp(2);
        span.setConsumeTimeStamp(3);
        span.setDelayTime(4);
        qts.getConsumeTimeSpanSet().add(span);
        // the *TimeStampStr getters format in the JVM's default zone: pinned to UTC here
        java.util.TimeZone zone = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("UTC"));
        byte[] qtsBody = qts.encode();
        java.util.TimeZone.setDefault(zone);
        out.write("query_consume_time_span_body.json", qtsBody, entry(QueryConsumeTimeSpanBody.class, DEFAULT, "QUERY_CONSUME_TIME_SPAN (303) response body (the *TimeStampStr fields in the broker's zone; UTC here)"));

        QueryCorrectionOffsetBody qco = new QueryCorrectionOffsetBody();
        qco.getCorrectionOffsets().put(1, Long.MAX_VALUE);
        qco.getCorrectionOffsets().put(0, 4L);
        out.write("query_correction_offset_body.json", qco.encode(), entry(QueryCorrectionOffsetBody.class, DEFAULT, "QUERY_CORRECTION_OFFSET (308) response body"));

        QueryConsumeQueueResponseBody qcq = new QueryConsumeQueueResponseBody();
        qcq.setMaxQueueIndex(2);
        qcq.setMinQueueIndex(0);
        ConsumeQueueData cqd = new ConsumeQueueData();
        cqd.setPhysicOffset(0);
        cqd.setPhysicSize(100);
        cqd.setTagsCode(7);
        qcq.setQueueData(new ArrayList<>(Arrays.asList(cqd)));
        out.write("query_consume_queue_response_body.json", qcq.encode(), entry(QueryConsumeQueueResponseBody.class, DEFAULT, "QUERY_CONSUME_QUEUE (321) response body"));
        QueryConsumeQueueResponseBody qcg = new QueryConsumeQueueResponseBody();
        SubscriptionData sub = new SubscriptionData();
        sub.setTopic("T");
        sub.setSubString("*");
        sub.setSubVersion(1);
        qcg.setSubscriptionData(sub);
        qcg.setFilterData("null");
        qcg.setMaxQueueIndex(1);
        qcg.setQueueData(new ArrayList<>());
        out.write("query_consume_queue_response_body_group.json", qcg.encode(), entry(QueryConsumeQueueResponseBody.class, DEFAULT, "QUERY_CONSUME_QUEUE (321) response body with a consumer group (its subscription and filter data)"));

        Map<String, List<ProducerInfo>> pt = new HashMap<>();
        pt.put("PG", new ArrayList<>(Arrays.asList(new ProducerInfo("c", "/1.2.3.4:5", LanguageCode.GO, 409, 7))));
        pt.put("A", new ArrayList<>());
        out.write("producer_table_info.json", new ProducerTableInfo(pt).encode(), entry(ProducerTableInfo.class, DEFAULT, "GET_ALL_PRODUCER_INFO (328) response body"));

        OffsetMovedEvent ome = new OffsetMovedEvent();
        ome.setConsumerGroup("G");
        ome.setMessageQueue(mq(Samples.BROKER_A, 2));
        ome.setOffsetRequest(10);
        ome.setOffsetNew(3);
        out.write("offset_moved_event.json", ome.encode(), entry(OffsetMovedEvent.class, DEFAULT, "the body of an OFFSET_MOVED_EVENT message"));

        GetConsumerStatusBody gcs = new GetConsumerStatusBody();
        Map<MessageQueue, Long> c1 = new HashMap<>();
        c1.put(mq(Samples.BROKER_A, 0), 5L);
        gcs.getConsumerTable().put("c1", c1);
        gcs.getConsumerTable().put("c2", new HashMap<>());
        out.write("get_consumer_status_body.json", gcs.encode(), entry(GetConsumerStatusBody.class, DEFAULT, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) response body"));

        out.finish("org.skyrocket.golden.BodyGoldens (RocketMQ 4.9.8 rocketmq-common, fastjson 1.2.69_noneautotype)", null);
    }

    private static BrokerStatsItem statsItem(long sum, double tps, double avgpt) {
        BrokerStatsItem it = new BrokerStatsItem();
        it.setSum(sum);
        it.setTps(tps);
        it.setAvgpt(avgpt);
        return it;
    }

    private static byte[] inflate(byte[] z) throws Exception {
        try (InputStream in = new InflaterInputStream(new java.io.ByteArrayInputStream(z))) {
            ByteArrayOutputStream bo = new ByteArrayOutputStream();
            in.transferTo(bo);
            return bo.toByteArray();
        }
    }
}
