package org.skyrocket.scenarios;

import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.RemotingClient;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * What a scenario works with: the servers' addresses, a started admin client, unique names,
 * client factories whose clients are shut down after the scenario, and assertions.
 */
public final class Ctx {
    /** Failure is thrown by {@link #check} and {@link #eventually}. */
    public static final class Failure extends RuntimeException {
        public Failure(String msg) {
            super(msg);
        }
    }

    public final String namesrv;
    /** The broker's main address (host:port), as the NameServer routes it. */
    public final String broker;
    public final String runId;
    public final DefaultMQAdminExt admin;
    /** Scenario state that must survive a broker restart between two runs (key=value file). */
    public final State state;
    private final AtomicInteger seq = new AtomicInteger();
    private final Deque<Runnable> cleanups = new ArrayDeque<>();

    Ctx(String namesrv, String broker, String runId, DefaultMQAdminExt admin, State state) {
        this.namesrv = namesrv;
        this.broker = broker;
        this.runId = runId;
        this.admin = admin;
        this.state = state;
    }

    /** name returns base + the run id + a sequence number: a topic or group no other run uses. */
    public String name(String base) {
        return base + "_" + runId + "_" + seq.incrementAndGet();
    }

    /** The broker's VIP-channel address (port - 2), Java's MixAll#brokerVIPChannel. */
    public String vipAddr() {
        int i = broker.lastIndexOf(':');
        return broker.substring(0, i + 1) + (Integer.parseInt(broker.substring(i + 1)) - 2);
    }

    /** Creates topic on the broker (perm 6) and waits until the NameServer routes it. */
    public void createTopic(String topic, int queues) throws Exception {
        admin.createAndUpdateTopicConfig(broker, new TopicConfig(topic, queues, queues, 6));
        eventually("route of " + topic, 30_000, () -> {
            try {
                TopicRouteData r = admin.examineTopicRouteInfo(topic);
                return r != null && !r.getQueueDatas().isEmpty() && r.getQueueDatas().get(0).getWriteQueueNums() == queues;
            } catch (Exception e) {
                return false;
            }
        });
    }

    public void onCleanup(Runnable r) {
        cleanups.push(r);
    }

    void cleanup() {
        while (!cleanups.isEmpty()) {
            try {
                cleanups.pop().run();
            } catch (RuntimeException e) {
                // a client that failed to shut down does not fail the next scenario
            }
        }
    }

    public interface Configure<T> {
        void apply(T t) throws Exception;
    }

    /** A started producer with its own instance name, 10 s send timeout and no retries. */
    public DefaultMQProducer producer(String group) throws Exception {
        return producer(group, p -> { });
    }

    public DefaultMQProducer producer(String group, Configure<DefaultMQProducer> configure) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        return startProducer(p, configure);
    }

    public <P extends DefaultMQProducer> P startProducer(P p, Configure<? super P> configure) throws Exception {
        p.setNamesrvAddr(namesrv);
        p.setInstanceName(name("p"));
        p.setSendMsgTimeout(10_000);
        p.setRetryTimesWhenSendFailed(0);
        p.setRetryTimesWhenSendAsyncFailed(0);
        configure.apply(p);
        p.start();
        onCleanup(p::shutdown);
        return p;
    }

    /** A started push consumer on topic with a TAG expression, consuming from the first offset. */
    public DefaultMQPushConsumer push(String group, String topic, String tags, MessageListenerConcurrently l,
        Configure<DefaultMQPushConsumer> configure) throws Exception {
        DefaultMQPushConsumer c = newPush(group, configure);
        c.subscribe(topic, tags);
        c.registerMessageListener(l);
        return startPush(c);
    }

    public DefaultMQPushConsumer push(String group, String topic, MessageSelector sel, MessageListenerConcurrently l,
        Configure<DefaultMQPushConsumer> configure) throws Exception {
        DefaultMQPushConsumer c = newPush(group, configure);
        c.subscribe(topic, sel);
        c.registerMessageListener(l);
        return startPush(c);
    }

    public DefaultMQPushConsumer pushOrderly(String group, String topic, String tags, MessageListenerOrderly l)
        throws Exception {
        DefaultMQPushConsumer c = newPush(group, x -> { });
        c.subscribe(topic, tags);
        c.registerMessageListener(l);
        return startPush(c);
    }

    /** A push consumer configured but not started (the caller subscribes, registers and starts it). */
    public DefaultMQPushConsumer newPush(String group, Configure<DefaultMQPushConsumer> configure) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(name("c"));
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setConsumeThreadMin(2);
        c.setConsumeThreadMax(4);
        configure.apply(c);
        return c;
    }

    public DefaultMQPushConsumer startPush(DefaultMQPushConsumer c) throws Exception {
        c.start();
        onCleanup(c::shutdown);
        return c;
    }

    /** A started pull consumer (DefaultMQPullConsumer: the API both 4.2.0 and 4.9.8 have). */
    public DefaultMQPullConsumer pull(String group) throws Exception {
        DefaultMQPullConsumer c = new DefaultMQPullConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(name("pc"));
        c.start();
        onCleanup(c::shutdown);
        return c;
    }

    /** Waits until the push consumer's rebalance holds exactly n queues of topic. */
    public static void waitAssigned(DefaultMQPushConsumer c, String topic, int n) throws InterruptedException {
        eventually(c.getInstanceName() + " holds " + n + " queues of " + topic, 30_000,
            () -> assigned(c, topic) == n);
    }

    public static int assigned(DefaultMQPushConsumer c, String topic) {
        int k = 0;
        for (org.apache.rocketmq.common.message.MessageQueue mq
            : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                k++;
            }
        }
        return k;
    }

    /** The addresses the producer's remoting client holds connections to (its channel table). */
    public static List<String> connections(DefaultMQProducer p) throws Exception {
        RemotingClient rc = p.getDefaultMQProducerImpl().getmQClientFactory().getMQClientAPIImpl().getRemotingClient();
        Field f = rc.getClass().getDeclaredField("channelTables");
        f.setAccessible(true);
        return new ArrayList<>(((Map<String, ?>) f.get(rc)).keySet());
    }

    public static void check(boolean cond, String fmt, Object... args) {
        if (!cond) {
            throw new Failure(String.format(fmt, args));
        }
    }

    public static void eventually(String what, long timeoutMillis, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new Failure("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    /** host:port of a socket address as the client decoded it from a stored message. */
    public static String addr(SocketAddress a) {
        InetSocketAddress i = (InetSocketAddress) a;
        return i.getAddress().getHostAddress() + ":" + i.getPort();
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A message with a tag, a key and a user property derived from the body. */
    public static Message msg(String topic, String tag, String body) {
        Message m = new Message(topic, tag, "key-" + body, bytes(body));
        m.putUserProperty("origin", "skyrocket-conformance");
        m.putUserProperty("bodyLen", Integer.toString(body.length()));
        return m;
    }

    /**
     * Checks a received message against what was sent and what the send returned: body, topic,
     * tag, keys, user properties, ids, queue and offset, stored host and body CRC, the CLUSTER
     * property a 4.x broker adds, and reconsumeTimes.
     */
    public void checkMessage(MessageExt got, Message sent, SendResult sr, int reconsumeTimes) {
        String what = "message " + new String(sent.getBody(), StandardCharsets.UTF_8);
        check(got != null, "%s not received", what);
        check(java.util.Arrays.equals(sent.getBody(), got.getBody()), "%s: body differs (%d bytes got)", what, got.getBody().length);
        check(sent.getTopic().equals(got.getTopic()), "%s: topic %s", what, got.getTopic());
        check(eq(sent.getTags(), got.getTags()), "%s: tags %s, sent %s", what, got.getTags(), sent.getTags());
        check(eq(sent.getKeys(), got.getKeys()), "%s: keys %s, sent %s", what, got.getKeys(), sent.getKeys());
        for (Map.Entry<String, String> e : sent.getProperties().entrySet()) {
            // WAIT is the client's; DELAY and TRAN_MSG are removed by the broker when it delivers
            // a scheduled message or commits a half message (Java: ScheduleMessageService,
            // EndTransactionProcessor); UNIQ_KEY is checked as msgId.
            if (SKIP_PROPS.contains(e.getKey())) {
                continue;
            }
            check(e.getValue().equals(got.getProperty(e.getKey())), "%s: property %s=%s, sent %s", what, e.getKey(),
                got.getProperty(e.getKey()), e.getValue());
        }
        check("DefaultCluster".equals(got.getProperty("CLUSTER")), "%s: CLUSTER property %s", what, got.getProperty("CLUSTER"));
        check(got.getReconsumeTimes() == reconsumeTimes, "%s: reconsumeTimes %d, want %d", what, got.getReconsumeTimes(), reconsumeTimes);
        check(got.getBodyCRC() == UtilAll.crc32(got.getBody()) || (got.getSysFlag() & 1) != 0,
            "%s: bodyCRC %d, crc32 of the body %d", what, got.getBodyCRC(), UtilAll.crc32(got.getBody()));
        check(broker.equals(addr(got.getStoreHost())), "%s: storeHost %s, broker %s", what, addr(got.getStoreHost()), broker);
        check(got.getStoreTimestamp() >= got.getBornTimestamp() - 1000, "%s: storeTimestamp %d before bornTimestamp %d", what,
            got.getStoreTimestamp(), got.getBornTimestamp());
        if (sr != null) {
            check(sr.getMsgId().equals(got.getMsgId()), "%s: msgId %s, send returned %s", what, got.getMsgId(), sr.getMsgId());
            check(sr.getOffsetMsgId().equals(offsetMsgId(got)), "%s: offsetMsgId %s, send returned %s", what,
                offsetMsgId(got), sr.getOffsetMsgId());
            check(sr.getMessageQueue().getQueueId() == got.getQueueId(), "%s: queue %d, send returned %d", what,
                got.getQueueId(), sr.getMessageQueue().getQueueId());
            check(sr.getQueueOffset() == got.getQueueOffset(), "%s: queueOffset %d, send returned %d", what,
                got.getQueueOffset(), sr.getQueueOffset());
        }
    }

    private static final java.util.Set<String> SKIP_PROPS = java.util.Set.of("WAIT", "UNIQ_KEY", "DELAY", "TRAN_MSG");

    /** The offset msgId the client computed when decoding m (MessageClientExt), else its msgId. */
    public static String offsetMsgId(MessageExt m) {
        if (m instanceof org.apache.rocketmq.common.message.MessageClientExt) {
            return ((org.apache.rocketmq.common.message.MessageClientExt) m).getOffsetMsgId();
        }
        return m.getMsgId();
    }

    static boolean eq(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }
}
