package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/** Push consumer paths: clustering, broadcasting, tag and SQL92 filters, orderly, retry, delay. */
final class ConsumeScenarios {
    private ConsumeScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
            Scenario.of("push-clustering", ConsumeScenarios::clustering),
            Scenario.of("push-broadcasting", ConsumeScenarios::broadcasting),
            Scenario.of("tag-filter", ConsumeScenarios::tagFilter),
            Scenario.of("sql92-filter", ConsumeScenarios::sql92),
            Scenario.of("ordered", ConsumeScenarios::ordered),
            Scenario.of("retry-reconsume-later", ConsumeScenarios::retry),
            Scenario.of("delay-level", ConsumeScenarios::delay));
    }

    static Map<String, SendResult> sendAll(DefaultMQProducer p, Map<String, Message> msgs) throws Exception {
        Map<String, SendResult> res = new HashMap<>();
        for (Map.Entry<String, Message> e : msgs.entrySet()) {
            SendResult sr = p.send(e.getValue());
            check(sr.getSendStatus().name().equals("SEND_OK"), "send %s", sr);
            res.put(e.getKey(), sr);
        }
        return res;
    }

    static void clustering(Ctx c) throws Exception {
        String topic = c.name("ClusterT");
        c.createTopic(topic, 4);
        String group = c.name("CG");
        Received r1 = new Received();
        Received r2 = new Received();
        DefaultMQPushConsumer c1 = c.push(group, topic, "*", r1.listener(), x -> { });
        Ctx.waitAssigned(c1, topic, 4);
        DefaultMQPushConsumer c2 = c.push(group, topic, "*", r2.listener(), x -> { });
        // the broker tells c1 that the group changed (NOTIFY_CONSUMER_IDS_CHANGED): 2 queues each
        Ctx.waitAssigned(c2, topic, 2);
        Ctx.waitAssigned(c1, topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            Message m = msg(topic, "TagA", "cl-" + i);
            sent.put("cl-" + i, m);
            res.put("cl-" + i, p.send(m));
        }
        eventually("40 messages across the group", 30_000, () -> r1.distinct() + r2.distinct() >= 40);
        Thread.sleep(300); // a duplicate, if any, would arrive now
        check(r1.distinct() > 0 && r2.distinct() > 0, "queues not split: %d and %d", r1.distinct(), r2.distinct());
        check(r1.total() + r2.total() == 40, "deliveries %d + %d, want 40 (each message once)", r1.total(), r2.total());
        for (String b : r1.bodies()) {
            check(r2.first(b) == null, "%s consumed by both members", b);
        }
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            MessageExt got = r1.first(e.getKey()) != null ? r1.first(e.getKey()) : r2.first(e.getKey());
            c.checkMessage(got, e.getValue(), res.get(e.getKey()), 0);
        }
    }

    static void broadcasting(Ctx c) throws Exception {
        String topic = c.name("BcastT");
        c.createTopic(topic, 2);
        String group = c.name("BG");
        Received r1 = new Received();
        Received r2 = new Received();
        DefaultMQPushConsumer c1 = c.push(group, topic, "*", r1.listener(), x -> x.setMessageModel(MessageModel.BROADCASTING));
        DefaultMQPushConsumer c2 = c.push(group, topic, "*", r2.listener(), x -> x.setMessageModel(MessageModel.BROADCASTING));
        Ctx.waitAssigned(c1, topic, 2);
        Ctx.waitAssigned(c2, topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            Message m = msg(topic, "TagB", "bc-" + i);
            sent.put("bc-" + i, m);
            res.put("bc-" + i, p.send(m));
        }
        eventually("both members receive all 20", 30_000, () -> r1.distinct() == 20 && r2.distinct() == 20);
        Thread.sleep(200);
        check(r1.total() == 20 && r2.total() == 20, "deliveries %d and %d, want 20 each", r1.total(), r2.total());
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            c.checkMessage(r1.first(e.getKey()), e.getValue(), res.get(e.getKey()), 0);
            c.checkMessage(r2.first(e.getKey()), e.getValue(), res.get(e.getKey()), 0);
        }
    }

    static void tagFilter(Ctx c) throws Exception {
        String topic = c.name("TagT");
        c.createTopic(topic, 2);
        Received ac = new Received();
        Received every = new Received();
        c.push(c.name("CG"), topic, "TagA || TagC", ac.listener(), x -> { });
        c.push(c.name("CG"), topic, "*", every.listener(), x -> { });
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        String[] tags = {"TagA", "TagB", "TagC", null};
        for (int i = 0; i < 16; i++) {
            String tag = tags[i % 4];
            String body = "tag-" + (tag == null ? "none" : tag) + "-" + i;
            Message m = tag == null ? new Message(topic, Ctx.bytes(body)) : msg(topic, tag, body);
            sent.put(body, m);
            res.put(body, p.send(m));
        }
        eventually("8 TagA/TagC messages", 30_000, () -> ac.distinct() >= 8);
        eventually("all 16 with *", 30_000, () -> every.distinct() == 16);
        Thread.sleep(500);
        for (String b : ac.bodies()) {
            check(b.startsWith("tag-TagA") || b.startsWith("tag-TagC"), "TagA || TagC received %s", b);
        }
        check(ac.distinct() == 8, "TagA || TagC received %d, want 8", ac.distinct());
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            c.checkMessage(every.first(e.getKey()), e.getValue(), res.get(e.getKey()), 0);
        }
    }

    static void sql92(Ctx c) throws Exception {
        String topic = c.name("SqlT");
        c.createTopic(topic, 2);
        Received r = new Received();
        String expr = "a >= 5 AND color = 'red' AND (b IS NULL OR b BETWEEN 1 AND 3)";
        c.push(c.name("CG"), topic, MessageSelector.bySql(expr), r.listener(), x -> { });
        DefaultMQProducer p = c.producer(c.name("PG"));
        Set<String> want = new HashSet<>();
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            String body = "sql-" + i;
            Message m = msg(topic, "TagSql", body);
            m.putUserProperty("a", Integer.toString(i));
            m.putUserProperty("color", i % 2 == 0 ? "red" : "blue");
            if (i % 3 == 0) {
                m.putUserProperty("b", Integer.toString(i % 5));
            }
            boolean b = i % 3 != 0 || (i % 5 >= 1 && i % 5 <= 3);
            if (i >= 5 && i % 2 == 0 && b) {
                want.add(body);
            }
            sent.put(body, m);
            res.put(body, p.send(m));
        }
        eventually(want.size() + " SQL92 matches " + want, 30_000, () -> r.distinct() >= want.size());
        Thread.sleep(500);
        check(new HashSet<>(r.bodies()).equals(want), "SQL92 %s received %s, want %s", expr, r.bodies(), want);
        for (String b : want) {
            c.checkMessage(r.first(b), sent.get(b), res.get(b), 0);
        }
        // CHECK_CLIENT_CONFIG: a push consumer whose SQL does not compile must fail to start.
        DefaultMQPushConsumer bad = c.newPush(c.name("CG"), x -> { });
        bad.subscribe(topic, MessageSelector.bySql("a >"));
        bad.registerMessageListener(r.listener());
        c.onCleanup(bad::shutdown);
        try {
            bad.start();
            throw new Ctx.Failure("a consumer with SQL \"a >\" started");
        } catch (MQClientException e) {
            check(String.valueOf(e.getMessage()).contains("a >") || e.getResponseCode() != 0 || e.getCause() != null,
                "start failed without the broker's reason: %s", e);
        }
    }

    static void ordered(Ctx c) throws Exception {
        String topic = c.name("OrderT");
        c.createTopic(topic, 4);
        int orders = 6;
        int steps = 10;
        Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
        Map<Integer, Set<Integer>> queues = new ConcurrentHashMap<>();
        List<String> errors = new ArrayList<>();
        c.pushOrderly(c.name("CG"), topic, "*", (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                String[] f = Received.body(m).split("-");
                int o = Integer.parseInt(f[1]);
                int s = Integer.parseInt(f[2]);
                seen.computeIfAbsent(o, k -> new ArrayList<>()).add(s);
                queues.computeIfAbsent(o, k -> ConcurrentHashMap.newKeySet()).add(m.getQueueId());
                if (ctx.getMessageQueue().getQueueId() != m.getQueueId() || !ctx.getMessageQueue().getTopic().equals(m.getTopic())) {
                    synchronized (errors) {
                        errors.add("context queue " + ctx.getMessageQueue() + " for " + Received.body(m));
                    }
                }
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        DefaultMQProducer p = c.producer(c.name("PG"));
        for (int s = 0; s < steps; s++) {
            for (int o = 0; o < orders; o++) {
                Message m = msg(topic, "TagO", "order-" + o + "-" + s);
                SendResult sr = p.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), o);
                check(sr.getMessageQueue().getQueueId() == o % 4, "order %d sent to queue %d", o, sr.getMessageQueue().getQueueId());
            }
        }
        eventually("all ordered messages", 30_000, () -> {
            int n = 0;
            for (List<Integer> l : seen.values()) {
                synchronized (l) {
                    n += l.size();
                }
            }
            return n >= orders * steps;
        });
        check(errors.isEmpty(), "%s", errors);
        for (int o = 0; o < orders; o++) {
            List<Integer> l = seen.get(o);
            List<Integer> want = new ArrayList<>();
            for (int s = 0; s < steps; s++) {
                want.add(s);
            }
            check(want.equals(l), "order %d consumed as %s", o, l);
            check(queues.get(o).size() == 1 && queues.get(o).contains(o % 4), "order %d came from queues %s", o, queues.get(o));
        }
    }

    static void retry(Ctx c) throws Exception {
        String topic = c.name("RetryT");
        c.createTopic(topic, 2);
        Received r = new Received();
        Map<String, Long> firstAt = new ConcurrentHashMap<>();
        Map<String, Long> againAt = new ConcurrentHashMap<>();
        c.push(c.name("CG"), topic, "*", (msgs, ctx) -> {
            r.add(msgs);
            String b = Received.body(msgs.get(0));
            if (msgs.get(0).getReconsumeTimes() == 0) {
                firstAt.put(b, System.currentTimeMillis());
                ctx.setDelayLevelWhenNextConsume(1); // 1 s
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            }
            againAt.put(b, System.currentTimeMillis());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, x -> x.setConsumeMessageBatchMaxSize(1));
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            Message m = msg(topic, "TagR", "retry-" + i);
            sent.put("retry-" + i, m);
            res.put("retry-" + i, p.send(m));
        }
        eventually("3 redeliveries", 30_000, () -> againAt.size() == 3);
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            List<MessageExt> all = r.all(e.getKey());
            check(all.size() == 2, "%s delivered %d times", e.getKey(), all.size());
            c.checkMessage(all.get(0), e.getValue(), res.get(e.getKey()), 0);
            MessageExt again = all.get(1);
            // the client maps %RETRY%group back to the topic (RETRY_TOPIC); ids survive the retry
            c.checkMessage(again, e.getValue(), null, 1);
            check(again.getMsgId().equals(res.get(e.getKey()).getMsgId()), "retry msgId %s, sent %s", again.getMsgId(),
                res.get(e.getKey()).getMsgId());
            check(topic.equals(again.getProperty("RETRY_TOPIC")), "RETRY_TOPIC %s", again.getProperty("RETRY_TOPIC"));
            // Java's broker sets ORIGIN_MESSAGE_ID from the stored message it looked up by
            // commit log offset, whose msgId is the offset msgId (SendMessageProcessor#asyncConsumerSendMsgBack).
            check(res.get(e.getKey()).getOffsetMsgId().equals(again.getProperty("ORIGIN_MESSAGE_ID")), "ORIGIN_MESSAGE_ID %s, offsetMsgId %s",
                again.getProperty("ORIGIN_MESSAGE_ID"), res.get(e.getKey()).getOffsetMsgId());
            long waited = againAt.get(e.getKey()) - firstAt.get(e.getKey());
            check(waited >= 700, "redelivered after %d ms, delay level 1 is 1 s", waited);
        }
    }

    static void delay(Ctx c) throws Exception {
        String topic = c.name("DelayT");
        c.createTopic(topic, 2);
        Received r = new Received();
        Map<String, Long> at = new ConcurrentHashMap<>();
        c.push(c.name("CG"), topic, "*", (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                at.put(Received.body(m), System.currentTimeMillis());
            }
            r.add(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, x -> { });
        DefaultMQProducer p = c.producer(c.name("PG"));
        Message m = msg(topic, "TagD", "delay-1");
        m.setDelayTimeLevel(1); // 1 s
        Message now = msg(topic, "TagD", "now-1");
        long t0 = System.currentTimeMillis();
        SendResult sr = p.send(m);
        SendResult srNow = p.send(now);
        eventually("the undelayed message", 10_000, () -> r.first("now-1") != null);
        eventually("the delayed message", 20_000, () -> r.first("delay-1") != null);
        long waited = at.get("delay-1") - t0;
        check(waited >= 800, "delay level 1 delivered after %d ms, want 1 s", waited);
        c.checkMessage(r.first("now-1"), now, srNow, 0);
        MessageExt got = r.first("delay-1");
        c.checkMessage(got, m, null, 0);
        check(got.getMsgId().equals(sr.getMsgId()), "delayed msgId %s, sent %s", got.getMsgId(), sr.getMsgId());
        check(topic.equals(got.getProperty("REAL_TOPIC")), "REAL_TOPIC %s", got.getProperty("REAL_TOPIC"));
        check(got.getProperty("REAL_QID") != null, "REAL_QID missing: %s", got.getProperties());
    }
}
