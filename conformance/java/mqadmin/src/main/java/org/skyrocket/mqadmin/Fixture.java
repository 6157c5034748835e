package org.skyrocket.mqadmin;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.admin.ConsumeStats;
import org.apache.rocketmq.common.admin.OffsetWrapper;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.protocol.body.BrokerStatsData;
import org.apache.rocketmq.common.protocol.body.ConsumerConnection;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The data the sub-commands need, made with the 4.9.8 client before any of them runs: a
 * topic with messages (keys, tags), a producer group and a consumer group that stay
 * online, committed offsets, and a message sent with trace on. The values the specs
 * refer to as {name} are in {@link #values}.
 */
final class Fixture {
    static final String TOPIC = "MatrixTopic";
    static final String PRODUCER_GROUP = "MatrixProducer";
    static final String CONSUMER_GROUP = "MatrixConsumer";
    static final String TRACE_PRODUCER_GROUP = "MatrixTraceProducer";
    static final int MESSAGES = 20;

    final Map<String, String> values = new LinkedHashMap<>();
    private DefaultMQAdminExt admin;
    private DefaultMQProducer producer;
    private DefaultMQPushConsumer consumer;
    private final AtomicInteger consumed = new AtomicInteger();

    Fixture(String namesrv, String brokerAddr, String cluster, String brokerName, String workDir) {
        values.put("ns", namesrv);
        values.put("broker", brokerAddr);
        values.put("cluster", cluster);
        values.put("brokerName", brokerName);
        values.put("topic", TOPIC);
        values.put("producerGroup", PRODUCER_GROUP);
        values.put("group", CONSUMER_GROUP);
        values.put("work", workDir);
    }

    String get(String k) {
        return values.get(k);
    }

    void prepare() throws Exception {
        String ns = get("ns");
        admin = new DefaultMQAdminExt("MatrixFixtureAdmin");
        admin.setNamesrvAddr(ns);
        admin.setInstanceName("MatrixFixtureAdmin");
        admin.start();
        admin.createAndUpdateTopicConfig(get("broker"), new TopicConfig(TOPIC, 4, 4, 6));
        eventually("route of " + TOPIC, 30_000, () -> {
            try {
                TopicRouteData r = admin.examineTopicRouteInfo(TOPIC);
                return r != null && !r.getQueueDatas().isEmpty();
            } catch (Exception e) {
                return false;
            }
        });

        producer = new DefaultMQProducer(PRODUCER_GROUP);
        producer.setNamesrvAddr(ns);
        producer.setInstanceName(PRODUCER_GROUP);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        for (int i = 0; i < MESSAGES; i++) {
            Message m = new Message(TOPIC, "TagA", "MatrixKey-" + i, ("matrix message " + i).getBytes(StandardCharsets.UTF_8));
            SendResult r = producer.send(m);
            if (r.getSendStatus() != SendStatus.SEND_OK) {
                throw new IllegalStateException("send " + i + ": " + r);
            }
            if (i == 0) {
                values.put("offsetMsgId", r.getOffsetMsgId());
                values.put("uniqMsgId", r.getMsgId());
                values.put("key", "MatrixKey-0");
            }
        }

        // A message with trace on: the trace dispatcher writes RMQ_SYS_TRACE_TOPIC, flushed at shutdown.
        DefaultMQProducer traced = new DefaultMQProducer(TRACE_PRODUCER_GROUP, true);
        traced.setNamesrvAddr(ns);
        traced.setInstanceName(TRACE_PRODUCER_GROUP);
        traced.setSendMsgTimeout(10_000);
        traced.start();
        SendResult tr = traced.send(new Message(TOPIC, "TagT", "MatrixTraced", "traced".getBytes(StandardCharsets.UTF_8)));
        values.put("traceMsgId", tr.getMsgId());
        Thread.sleep(1500); // the trace dispatcher sends in batches
        traced.shutdown();

        consumer = new DefaultMQPushConsumer(CONSUMER_GROUP);
        consumer.setNamesrvAddr(ns);
        consumer.setInstanceName(CONSUMER_GROUP);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPersistConsumerOffsetInterval(1000);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            consumed.addAndGet(msgs.size());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        int total = MESSAGES + 1;
        eventually("the consumer to consume " + total + " messages", 60_000, () -> consumed.get() >= total);
        eventually("committed offsets of " + CONSUMER_GROUP, 60_000, () -> {
            try {
                ConsumeStats cs = admin.examineConsumeStats(CONSUMER_GROUP, TOPIC);
                long diff = 0;
                long committed = 0;
                for (OffsetWrapper w : cs.getOffsetTable().values()) {
                    diff += w.getBrokerOffset() - w.getConsumerOffset();
                    committed += w.getConsumerOffset();
                }
                return committed >= total && diff == 0;
            } catch (Exception e) {
                return false;
            }
        });
        // The broker's statistics sample every 10 s: wait until the minute windows have the
        // puts and gets, so statsAll reports them.
        eventually("broker statistics of " + TOPIC, 30_000, () -> {
            try {
                BrokerStatsData put = admin.viewBrokerStatsData(get("broker"), "TOPIC_PUT_NUMS", TOPIC);
                BrokerStatsData got = admin.viewBrokerStatsData(get("broker"), "GROUP_GET_NUMS", TOPIC + "@" + CONSUMER_GROUP);
                return put.getStatsMinute().getSum() > 0 && got.getStatsMinute().getSum() > 0;
            } catch (Exception e) {
                return false;
            }
        });
        ConsumerConnection cc = admin.examineConsumerConnectionInfo(CONSUMER_GROUP);
        values.put("clientId", cc.getConnectionSet().iterator().next().getClientId());
    }

    void close() {
        if (consumer != null) {
            consumer.shutdown();
        }
        if (producer != null) {
            producer.shutdown();
        }
        if (admin != null) {
            admin.shutdown();
        }
    }

    static void eventually(String what, long timeoutMillis, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(200);
        }
    }
}
