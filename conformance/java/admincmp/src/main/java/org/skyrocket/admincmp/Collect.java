package org.skyrocket.admincmp;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.admin.ConsumeStats;
import org.apache.rocketmq.common.admin.OffsetWrapper;
import org.apache.rocketmq.common.admin.TopicStatsTable;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.body.BrokerStatsData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * One run against one NameServer + Broker: the fixed workload, then every admin call the
 * dashboard's pages and the exporter's collectors make (ecosystem-facts.md §1.2, §2.2),
 * each result flattened under "c<request code>.<call>[.<argument>]".
 *
 * The workload (4.9.8 client, deterministic queue placement through a selector):
 *   - topic AdminCmpTopic, 4/4 queues, created through the admin (17);
 *   - 16 messages from group AdminCmpProducer (stays online), message i to queue i%4,
 *     tag TagA (even) or TagB (odd), key AdminCmpKey-i; one more with trace on (group
 *     AdminCmpTraceProducer) to queue 0, key AdminCmpTraced (the dashboard's "send test
 *     message"; the trace goes to RMQ_SYS_TRACE_TOPIC);
 *   - push consumer AdminCmpConsumer consumes all 17; AdminCmpKey-5 is returned
 *     RECONSUME_LATER with delay level -1, so the broker moves it to %DLQ%AdminCmpConsumer;
 *   - pull consumer AdminCmpPuller (online) pulls queues 0 and 1 only and commits them: a
 *     group with a backlog on queues 2 and 3.
 */
final class Collect {
    static final String TOPIC = "AdminCmpTopic";
    static final String PRODUCER = "AdminCmpProducer";
    static final String TRACE_PRODUCER = "AdminCmpTraceProducer";
    static final String CONSUMER = "AdminCmpConsumer";
    static final String PULLER = "AdminCmpPuller";
    static final String CLUSTER = "DefaultCluster";
    static final String BROKER_NAME = "broker-a";
    static final int MESSAGES = 16;
    static final String DLQ_KEY = "AdminCmpKey-5";
    static final String CLIENT_IP = "127.0.0.1";

    private final String namesrv;
    private final String broker;
    private final String slave; // brokerId 1 of broker-a, or null
    final Canon canon = new Canon();
    final Map<String, String> out = new LinkedHashMap<>();
    private final Map<String, SendResult> sent = new LinkedHashMap<>();
    private final AtomicInteger consumed = new AtomicInteger();
    private DefaultMQAdminExt admin;
    private DefaultMQProducer producer;
    private DefaultMQPushConsumer consumer;
    private DefaultMQPullConsumer puller;
    private DefaultMQPullConsumer tools;

    Collect(Map<String, String> a) {
        this.namesrv = a.get("namesrv");
        this.broker = a.get("broker");
        this.slave = a.get("slave");
        nameBroker(broker, "broker");
        canon.name(namesrv, "namesrv");
        canon.name(a.get("store"), "store");
        canon.name(a.get("home"), "rocketmqHome");
        if (slave != null) {
            nameBroker(slave, "slave");
            canon.name(a.get("slave-store"), "slaveStore");
            canon.name(a.get("slave-home"), "slaveRocketmqHome");
        }
    }

    /** The listen address and, derived from it, the VIP (port-2) and HA (port+1) addresses. */
    private void nameBroker(String addr, String name) {
        String host = addr.substring(0, addr.lastIndexOf(':'));
        int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
        canon.name(addr, name);
        canon.name(host + ":" + (port - 2), name + "Vip");
        canon.name(host + ":" + (port + 1), name + "Ha");
    }

    void run() throws Exception {
        workload();
        namesrvCalls();
        brokerCalls();
        messageCalls();
        clientCalls();
        mutations();
    }

    void close() {
        for (Runnable r : new Runnable[] {
            () -> consumer.shutdown(), () -> puller.shutdown(), () -> tools.shutdown(), () -> producer.shutdown(), () -> admin.shutdown()}) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // not started
            }
        }
    }

    // ---- workload ----

    private void workload() throws Exception {
        admin = new DefaultMQAdminExt("AdminCmpAdmin");
        client(admin, "AdminCmpAdmin");
        admin.start();
        admin.createAndUpdateTopicConfig(broker, new TopicConfig(TOPIC, 4, 4, 6));
        eventually("route of " + TOPIC, 30_000, () -> quiet(() -> !admin.examineTopicRouteInfo(TOPIC).getQueueDatas().isEmpty()));

        producer = new DefaultMQProducer(PRODUCER);
        client(producer, PRODUCER);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        for (int i = 0; i < MESSAGES; i++) {
            String key = "AdminCmpKey-" + i;
            Message m = new Message(TOPIC, i % 2 == 0 ? "TagA" : "TagB", key, ("admin compare message " + i).getBytes(StandardCharsets.UTF_8));
            remember(key, producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), i));
        }
        DefaultMQProducer traced = new DefaultMQProducer(TRACE_PRODUCER, true);
        client(traced, TRACE_PRODUCER);
        traced.setSendMsgTimeout(10_000);
        traced.start();
        remember("AdminCmpTraced", traced.send(new Message(TOPIC, "TagT", "AdminCmpTraced", "traced".getBytes(StandardCharsets.UTF_8)),
            (mqs, msg, arg) -> mqs.get(0), null));
        // The trace dispatcher sends the record in the background: the producer stays up
        // until the record is indexed (a shutdown right away races the dispatcher's send).
        String tracedId = sent.get("AdminCmpTraced").getMsgId();
        eventually("the trace of AdminCmpTraced", 60_000, () -> quiet(() ->
            !admin.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC, tracedId, 64, 0, Long.MAX_VALUE).getMessageList().isEmpty()));
        traced.shutdown();

        consumer = new DefaultMQPushConsumer(CONSUMER);
        client(consumer, CONSUMER);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPersistConsumerOffsetInterval(1000);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                if (DLQ_KEY.equals(m.getKeys()) && m.getReconsumeTimes() == 0) {
                    ctx.setDelayLevelWhenNextConsume(-1); // straight to the DLQ
                    consumed.incrementAndGet();
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
            }
            consumed.addAndGet(msgs.size());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.setConsumeMessageBatchMaxSize(1);
        consumer.start();
        // The consumer's heartbeat makes the broker create %RETRY%AdminCmpConsumer; whether
        // the client's first rebalance already sees its route is a race (else it waits for
        // its next route refresh, 30 s): refresh and rebalance once the route is there, so
        // the retry queue's offset is committed on both servers alike.
        String retry = MixAll.getRetryTopic(CONSUMER);
        eventually("route of " + retry, 30_000, () -> quiet(() -> !admin.examineTopicRouteInfo(retry).getQueueDatas().isEmpty()));
        MQClientInstance factory = consumer.getDefaultMQPushConsumerImpl().getmQClientFactory();
        factory.updateTopicRouteInfoFromNameServer();
        factory.rebalanceImmediately();
        eventually("the committed offset of " + retry, 30_000, () -> quiet(() ->
            admin.examineConsumeStats(CONSUMER).getOffsetTable().keySet().stream().anyMatch(mq -> mq.getTopic().equals(retry))));
        int total = MESSAGES + 1;
        eventually("the consumer to consume " + total + " messages", 60_000, () -> consumed.get() >= total);
        eventually("the committed offsets of " + CONSUMER, 60_000, () -> quiet(() -> backlog(CONSUMER) == 0));
        eventually("the message in %DLQ%" + CONSUMER, 30_000, () -> quiet(() -> {
            TopicStatsTable t = admin.examineTopicStats(MixAll.getDLQTopic(CONSUMER));
            return t.getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum() == 1;
        }));

        puller = new DefaultMQPullConsumer(PULLER);
        client(puller, PULLER);
        puller.setPersistConsumerOffsetInterval(1000);
        puller.setRegisterTopics(Collections.singleton(TOPIC));
        puller.start();
        List<MessageQueue> mqs = sortedQueues(puller, TOPIC);
        for (MessageQueue mq : mqs.subList(0, 2)) {
            PullResult r = puller.pull(mq, "*", 0, 32);
            puller.updateConsumeOffset(mq, r.getNextBeginOffset());
            // Committed now (UPDATE_CONSUMER_OFFSET, 15, two-way), not at the next periodic
            // persist, which waits for the pull consumer's first rebalance (20 s).
            ((RemoteBrokerOffsetStore) puller.getOffsetStore()).updateConsumeOffsetToBroker(mq, r.getNextBeginOffset(), false);
        }
        eventually("the committed offsets of " + PULLER, 30_000, () -> quiet(() -> {
            ConsumeStats cs = admin.examineConsumeStats(PULLER, TOPIC);
            long committed = cs.getOffsetTable().values().stream().mapToLong(OffsetWrapper::getConsumerOffset).sum();
            return committed == 9; // queue 0: 4 + the traced message, queue 1: 4
        }));

        tools = new DefaultMQPullConsumer(MixAll.TOOLS_CONSUMER_GROUP); // the dashboard's message pages
        client(tools, "AdminCmpTools");
        tools.start();
        sortedQueues(tools, TOPIC); // the route: the client now knows the broker

        // Clients heartbeat every 30 s, the first time 1 s after they start, only to the
        // brokers they know by then: which producer groups and which %RETRY% topics the
        // broker has would depend on that timing. Every client heartbeats once now.
        for (org.apache.rocketmq.client.ClientConfig c : new org.apache.rocketmq.client.ClientConfig[] {admin, producer, consumer, puller, tools}) {
            MQClientManager.getInstance().getOrCreateMQClientInstance(c).sendHeartbeatToAllBrokerWithLock();
        }
        String toolsRetry = MixAll.getRetryTopic(MixAll.TOOLS_CONSUMER_GROUP);
        eventually("route of " + toolsRetry, 30_000, () -> quiet(() -> !admin.examineTopicRouteInfo(toolsRetry).getQueueDatas().isEmpty()));

        if (slave != null) {
            // The cluster page and the exporter's commitlog_diff read the slave too: wait
            // until it is registered and holds the master's whole CommitLog.
            eventually("the slave registered and caught up", 60_000, () -> quiet(() -> {
                String addr = admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME).getBrokerAddrs().get(1L);
                return slave.equals(addr) && admin.fetchBrokerRuntimeStats(slave).getTable().get("commitLogMaxOffset")
                    .equals(admin.fetchBrokerRuntimeStats(broker).getTable().get("commitLogMaxOffset"));
            }));
        }

        // The broker statistics sample every 10 s: wait until the minute windows hold the
        // puts and gets, on both servers alike.
        eventually("broker statistics of " + TOPIC, 40_000, () -> quiet(() -> {
            BrokerStatsData put = admin.viewBrokerStatsData(broker, "TOPIC_PUT_NUMS", TOPIC);
            BrokerStatsData got = admin.viewBrokerStatsData(broker, "GROUP_GET_NUMS", TOPIC + "@" + CONSUMER);
            return put.getStatsMinute().getSum() > 0 && got.getStatsMinute().getSum() > 0;
        }));
    }

    private void client(Object c, String instance) {
        org.apache.rocketmq.client.ClientConfig cc = (org.apache.rocketmq.client.ClientConfig) c;
        cc.setNamesrvAddr(namesrv);
        cc.setInstanceName(instance);
        cc.setClientIP(CLIENT_IP);
    }

    private void remember(String key, SendResult r) {
        if (r.getSendStatus() != SendStatus.SEND_OK) {
            throw new IllegalStateException("send " + key + ": " + r);
        }
        sent.put(key, r);
        canon.name(r.getMsgId(), "uniq:" + key);
        canon.name(r.getOffsetMsgId(), "offsetId:" + key);
    }

    private long backlog(String group) throws Exception {
        ConsumeStats cs = admin.examineConsumeStats(group, TOPIC);
        long diff = 0;
        long committed = 0;
        for (OffsetWrapper w : cs.getOffsetTable().values()) {
            diff += w.getBrokerOffset() - w.getConsumerOffset();
            committed += w.getConsumerOffset();
        }
        return committed == 0 ? -1 : diff;
    }

    private static List<MessageQueue> sortedQueues(DefaultMQPullConsumer c, String topic) throws MQClientException {
        List<MessageQueue> mqs = new ArrayList<>(c.fetchSubscribeMessageQueues(topic));
        Collections.sort(mqs);
        return mqs;
    }

    // ---- the calls ----

    private void namesrvCalls() {
        call("c106.examineBrokerClusterInfo", () -> admin.examineBrokerClusterInfo());
        call("c206.fetchAllTopicList", () -> admin.fetchAllTopicList());
        call("c304.getSystemTopicList", () -> clientInstance().getMQClientAPIImpl().getSystemTopicList(5000));
        for (String t : new String[] {TOPIC, MixAll.getRetryTopic(CONSUMER), MixAll.getDLQTopic(CONSUMER), "AdminCmpNoSuchTopic"}) {
            call("c105.examineTopicRouteInfo." + t, () -> admin.examineTopicRouteInfo(t));
        }
    }

    private void brokerCalls() {
        call("c28.fetchBrokerRuntimeStats", () -> admin.fetchBrokerRuntimeStats(broker));
        call("c26.getBrokerConfig", () -> admin.getBrokerConfig(broker));
        if (slave != null) {
            call("c28.fetchBrokerRuntimeStats.slave", () -> admin.fetchBrokerRuntimeStats(slave));
            call("c26.getBrokerConfig.slave", () -> admin.getBrokerConfig(slave));
        }
        for (String t : new String[] {TOPIC, MixAll.getRetryTopic(CONSUMER), MixAll.getDLQTopic(CONSUMER), "AdminCmpNoSuchTopic"}) {
            call("c202.examineTopicStats." + t, () -> admin.examineTopicStats(t));
        }
        call("c300.queryTopicConsumeByWho", () -> admin.queryTopicConsumeByWho(TOPIC));
        for (String g : new String[] {CONSUMER, PULLER, "AdminCmpNoSuchGroup"}) {
            call("c203.examineConsumerConnectionInfo." + g, () -> admin.examineConsumerConnectionInfo(g));
            call("c208.examineConsumeStats." + g + "@" + TOPIC, () -> admin.examineConsumeStats(g, TOPIC));
        }
        call("c208.examineConsumeStats." + CONSUMER, () -> admin.examineConsumeStats(CONSUMER));
        String[][] stats = {
            {"BROKER_PUT_NUMS", CLUSTER}, {"BROKER_GET_NUMS", CLUSTER},
            {"TOPIC_PUT_NUMS", TOPIC}, {"TOPIC_PUT_SIZE", TOPIC},
            {"GROUP_GET_NUMS", TOPIC + "@" + CONSUMER}, {"GROUP_GET_SIZE", TOPIC + "@" + CONSUMER},
            {"SNDBCK_PUT_NUMS", TOPIC + "@" + CONSUMER}, {"SNDBCK_PUT_NUMS", TOPIC + "@" + PULLER},
            {"GROUP_GET_NUMS", TOPIC + "@" + PULLER}, {"TOPIC_PUT_NUMS", "AdminCmpNoSuchTopic"},
        };
        for (String[] s : stats) {
            call("c315.viewBrokerStatsData." + s[0] + "." + s[1], () -> admin.viewBrokerStatsData(broker, s[0], s[1]));
        }
        call("c328.getAllProducerInfo", () -> admin.getAllProducerInfo(broker));
        call("c204.examineProducerConnectionInfo." + PRODUCER, () -> admin.examineProducerConnectionInfo(PRODUCER, TOPIC));
        call("c204.examineProducerConnectionInfo.AdminCmpNoSuchGroup", () -> admin.examineProducerConnectionInfo("AdminCmpNoSuchGroup", TOPIC));
        call("c21.getAllTopicConfig", () -> admin.getAllTopicConfig(broker, 5000));
        call("c201.getAllSubscriptionGroup", () -> admin.getAllSubscriptionGroup(broker, 5000));
        call("examineTopicConfig." + TOPIC, () -> admin.examineTopicConfig(broker, TOPIC));
        call("examineSubscriptionGroupConfig." + CONSUMER, () -> admin.examineSubscriptionGroupConfig(broker, CONSUMER));
    }

    private void messageCalls() throws Exception {
        List<MessageQueue> mqs = sortedQueues(tools, TOPIC);
        call("c105.fetchSubscribeMessageQueues", () -> mqs);
        for (MessageQueue mq : new MessageQueue[] {mqs.get(0), mqs.get(1)}) {
            String q = ".q" + mq.getQueueId();
            call("c30.minOffset" + q, () -> tools.minOffset(mq));
            call("c31.maxOffset" + q, () -> tools.maxOffset(mq));
            call("c29.searchOffset.epoch" + q, () -> tools.searchOffset(mq, 0));
            call("c29.searchOffset.future" + q, () -> tools.searchOffset(mq, System.currentTimeMillis() + 3_600_000));
            call("c32.earliestMsgStoreTime" + q, () -> tools.earliestMsgStoreTime(mq));
            call("c11.pull.all" + q, () -> tools.pull(mq, "*", 0, 32));
            call("c11.pull.TagA" + q, () -> tools.pull(mq, "TagA", 0, 32));
            call("c11.pull.one" + q, () -> tools.pull(mq, "*", 2, 1)); // the exporter's queryMsgByOffset
            call("c11.pull.beyondMax" + q, () -> tools.pull(mq, "*", 100, 32));
        }
        // The DLQ page (dashboard 2.x) reads %DLQ%<group> as the message page reads a topic;
        // Java creates DLQ topics write-only (perm 2).
        String dlq = MixAll.getDLQTopic(CONSUMER);
        MessageQueue dlqQueue = new MessageQueue(dlq, BROKER_NAME, 0);
        call("c105.fetchSubscribeMessageQueues.dlq", () -> tools.fetchSubscribeMessageQueues(dlq));
        call("c29.searchOffset.epoch.dlq", () -> tools.searchOffset(dlqQueue, 0));
        call("c31.maxOffset.dlq", () -> tools.maxOffset(dlqQueue));
        call("c11.pull.all.dlq", () -> tools.pull(dlqQueue, "*", 0, 32));
        call("c12.queryMessage.key", () -> admin.queryMessage(TOPIC, "AdminCmpKey-3", 64, 0, Long.MAX_VALUE));
        call("c12.queryMessage.noSuchKey", () -> admin.queryMessage(TOPIC, "AdminCmpNoSuchKey", 64, 0, Long.MAX_VALUE));
        SendResult three = sent.get("AdminCmpKey-3");
        call("c33.viewMessage.offsetMsgId", () -> admin.viewMessage(TOPIC, three.getOffsetMsgId()));
        call("c12.viewMessage.uniqMsgId", () -> admin.viewMessage(TOPIC, three.getMsgId()));
        call("c12.queryMessage.trace", () -> admin.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC,
            sent.get("AdminCmpTraced").getMsgId(), 64, 0, Long.MAX_VALUE));
        call("c12.queryMessage.dlq", () -> admin.queryMessage(MixAll.getDLQTopic(CONSUMER), DLQ_KEY, 64, 0, Long.MAX_VALUE));
        MessageExt m = admin.viewMessage(TOPIC, three.getOffsetMsgId());
        call("messageTrackDetail", () -> admin.messageTrackDetail(m));
    }

    private void clientCalls() {
        // The client ids as the dashboard takes them: from the group's connections (the pull
        // consumer's carries "@STREAM").
        String consumerId = clientId(CONSUMER);
        String pullerId = clientId(PULLER);
        call("c307.getConsumerRunningInfo." + CONSUMER, () -> admin.getConsumerRunningInfo(CONSUMER, consumerId, false));
        call("c307.getConsumerRunningInfo.jstack", () -> admin.getConsumerRunningInfo(CONSUMER, consumerId, true));
        call("c307.getConsumerRunningInfo." + PULLER, () -> admin.getConsumerRunningInfo(PULLER, pullerId, false));
        call("c307.getConsumerRunningInfo.notOnline", () -> admin.getConsumerRunningInfo(CONSUMER, CLIENT_IP + "@NoSuchClient", false));
        call("c309.consumeMessageDirectly", () -> admin.consumeMessageDirectly(CONSUMER, consumerId, TOPIC, sent.get("AdminCmpKey-0").getMsgId()));
    }

    private String clientId(String group) {
        try {
            return admin.examineConsumerConnectionInfo(group).getConnectionSet().iterator().next().getClientId();
        } catch (Exception e) {
            return CLIENT_IP + "@" + group; // the call fails the same way below, and is compared
        }
    }

    /** The dashboard's write buttons, last: they change what the reads above saw. */
    private void mutations() throws Exception {
        String t = "AdminCmpCreated";
        call("c17.createAndUpdateTopicConfig", () -> {
            admin.createAndUpdateTopicConfig(broker, new TopicConfig(t, 2, 2, 6));
            return "ok";
        });
        eventually("route of " + t, 30_000, () -> quiet(() -> !admin.examineTopicRouteInfo(t).getQueueDatas().isEmpty()));
        call("c105.examineTopicRouteInfo.created", () -> admin.examineTopicRouteInfo(t));
        call("examineTopicConfig.created", () -> admin.examineTopicConfig(broker, t));
        call("c215.deleteTopicInBroker", () -> {
            admin.deleteTopicInBroker(Collections.singleton(broker), t);
            return "ok";
        });
        call("c216.deleteTopicInNameServer", () -> {
            admin.deleteTopicInNameServer(Collections.singleton(namesrv), t, CLUSTER);
            return "ok";
        });
        call("c105.examineTopicRouteInfo.deleted", () -> admin.examineTopicRouteInfo(t));
        call("examineTopicConfig.deleted", () -> admin.examineTopicConfig(broker, t));

        String g = "AdminCmpCreatedGroup";
        call("c200.createAndUpdateSubscriptionGroupConfig", () -> {
            SubscriptionGroupConfig c = new SubscriptionGroupConfig();
            c.setGroupName(g);
            c.setRetryMaxTimes(3);
            admin.createAndUpdateSubscriptionGroupConfig(broker, c);
            return "ok";
        });
        call("examineSubscriptionGroupConfig.created", () -> admin.examineSubscriptionGroupConfig(broker, g));
        call("c207.deleteSubscriptionGroup", () -> {
            admin.deleteSubscriptionGroup(broker, g, true);
            return "ok";
        });
        call("examineSubscriptionGroupConfig.deleted", () -> admin.examineSubscriptionGroupConfig(broker, g));

        // Reset offset: online group (222, the broker pushes 220 to the client), offline
        // group (CONSUMER_NOT_ONLINE, then the dashboard's fallback 208 + 29 + 15).
        call("c222.resetOffsetByTimestamp.online", () -> admin.resetOffsetByTimestamp(TOPIC, CONSUMER, Long.MAX_VALUE / 2, true));
        puller.shutdown();
        eventually(PULLER + " to leave", 30_000, () -> {
            try {
                admin.examineConsumerConnectionInfo(PULLER);
                return false;
            } catch (Exception e) {
                return true;
            }
        });
        call("c222.resetOffsetByTimestamp.offline", () -> admin.resetOffsetByTimestamp(TOPIC, PULLER, 0, true));
        call("c222.resetOffsetByTimestampOld.offline", () -> admin.resetOffsetByTimestampOld(PULLER, TOPIC, 0, true));
        call("c208.examineConsumeStats.afterReset", () -> admin.examineConsumeStats(PULLER, TOPIC));
    }

    private MQClientInstance clientInstance() throws Exception {
        Field impl = DefaultMQAdminExt.class.getDeclaredField("defaultMQAdminExtImpl");
        impl.setAccessible(true);
        Object o = impl.get(admin);
        Field f = o.getClass().getDeclaredField("mqClientInstance");
        f.setAccessible(true);
        return (MQClientInstance) f.get(o);
    }

    interface Call {
        Object run() throws Exception;
    }

    /** Runs one call and records its result, or its error: code and remark, which the dashboard shows. */
    void call(String name, Call c) {
        try {
            canon.flatten(name, c.run(), out);
        } catch (MQBrokerException e) {
            out.put(name + ".error", "MQBrokerException code=" + e.getResponseCode() + " " + Canon.quote(canon.norm(e.getErrorMessage())));
        } catch (MQClientException e) {
            String cause = e.getCause() == null ? "" : " cause=" + e.getCause().getClass().getSimpleName();
            if (e.getCause() instanceof MQBrokerException) {
                MQBrokerException b = (MQBrokerException) e.getCause();
                cause += " code=" + b.getResponseCode() + " " + Canon.quote(canon.norm(b.getErrorMessage()));
            }
            out.put(name + ".error", "MQClientException code=" + e.getResponseCode() + " "
                + Canon.quote(canon.norm(String.valueOf(e.getErrorMessage()))) + cause);
        } catch (Exception e) {
            out.put(name + ".error", e.getClass().getSimpleName() + " " + Canon.quote(canon.norm(String.valueOf(e.getMessage()))));
        }
    }

    interface Check {
        boolean test() throws Exception;
    }

    static boolean quiet(Check c) {
        try {
            return c.test();
        } catch (Exception e) {
            return false;
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
