package org.skyrocket.scenarios.v49;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.skyrocket.scenarios.Ctx;
import org.skyrocket.scenarios.Received;
import org.skyrocket.scenarios.Scenario;
import org.skyrocket.scenarios.Tx;

/** Scenarios for APIs the 4.9.x client has and 4.2.0 lacks. */
public final class VersionScenarios {
    private VersionScenarios() {
    }

    public static List<Scenario> all() {
        return List.of(
            Scenario.of("transaction-check-back", VersionScenarios::transaction),
            Scenario.of("request-reply", VersionScenarios::requestReply),
            Scenario.of("message-trace", VersionScenarios::trace),
            Scenario.of("lite-pull-subscribe", VersionScenarios::litePullSubscribe),
            Scenario.of("lite-pull-assign-seek", VersionScenarios::litePullAssign));
    }

    static void transaction(Ctx c) throws Exception {
        String topic = c.name("TxT");
        c.createTopic(topic, 2);
        Received r = new Received();
        c.push(c.name("CG"), topic, "*", r.listener(), x -> { });
        Tx tx = new Tx();
        TransactionMQProducer p = c.startProducer(new TransactionMQProducer(c.name("TPG")), x -> x.setTransactionListener(
            new TransactionListener() {
                @Override
                public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                    return Tx.local(msg);
                }

                @Override
                public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                    return tx.checkBack(msg);
                }
            }));
        tx.sendAll(c, topic, m -> p.sendMessageInTransaction(m, null));
        tx.verify(c, topic, r);
    }

    static void requestReply(Ctx c) throws Exception {
        String topic = c.name("RequestT");
        c.createTopic(topic, 2);
        DefaultMQProducer responder = c.producer(c.name("RPG"));
        List<String> errors = new ArrayList<>();
        Received requests = new Received();
        c.push(c.name("CG"), topic, "*", (msgs, ctx) -> {
            requests.add(msgs);
            for (MessageExt m : msgs) {
                try {
                    Message reply = MessageUtil.createReplyMessage(m, Ctx.bytes("reply-to-" + Received.body(m)));
                    responder.send(reply, 10_000);
                } catch (Exception e) {
                    synchronized (errors) {
                        errors.add(Received.body(m) + ": " + e);
                    }
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, x -> { });
        DefaultMQProducer requester = c.producer(c.name("QPG"));
        // The broker finds the requester by its producer heartbeat: make sure it has one.
        requester.fetchPublishMessageQueues(topic);
        requester.getDefaultMQProducerImpl().getmQClientFactory().sendHeartbeatToAllBrokerWithLock();
        for (int i = 0; i < 3; i++) {
            Message req = msg(topic, "TagReq", "request-" + i);
            Message reply = requester.request(req, 15_000);
            check(errors.isEmpty(), "responder: %s", errors);
            check(reply != null, "request %d: no reply", i);
            check(("reply-to-request-" + i).equals(new String(reply.getBody(), StandardCharsets.UTF_8)), "reply body %s",
                new String(reply.getBody(), StandardCharsets.UTF_8));
            check(req.getProperty("CORRELATION_ID") != null && req.getProperty("CORRELATION_ID").equals(reply.getProperty("CORRELATION_ID")),
                "reply CORRELATION_ID %s, request %s", reply.getProperty("CORRELATION_ID"), req.getProperty("CORRELATION_ID"));
            check("reply".equals(reply.getProperty("MSG_TYPE")), "reply MSG_TYPE %s", reply.getProperty("MSG_TYPE"));
            check("DefaultCluster_REPLY_TOPIC".equals(reply.getTopic()), "reply topic %s", reply.getTopic());
        }
        CompletableFuture<Message> async = new CompletableFuture<>();
        requester.request(msg(topic, "TagReq", "request-async"), new RequestCallback() {
            @Override
            public void onSuccess(Message m) {
                // 4.9.8 calls onSuccess(null) once the request is sent, then again with the
                // reply (DefaultMQProducerImpl#request's SendCallback runs executeRequestCallback).
                if (m != null) {
                    async.complete(m);
                }
            }

            @Override
            public void onException(Throwable e) {
                async.completeExceptionally(e);
            }
        }, 15_000);
        Message ar = async.get(20, TimeUnit.SECONDS);
        check("reply-to-request-async".equals(new String(ar.getBody(), StandardCharsets.UTF_8)), "async reply %s",
            new String(ar.getBody(), StandardCharsets.UTF_8));
        MessageExt rq = requests.first("request-0");
        check(rq.getProperty("REPLY_TO_CLIENT") != null && rq.getProperty("CLUSTER") != null,
            "request message lacks REPLY_TO_CLIENT/CLUSTER: %s", rq.getProperties());
    }

    static void trace(Ctx c) throws Exception {
        String topic = c.name("TraceT");
        c.createTopic(topic, 2);
        String cg = c.name("CG");
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(cg, true);
        consumer.setNamesrvAddr(c.namesrv);
        consumer.setInstanceName(c.name("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        Received r = new Received();
        consumer.registerMessageListener(r.listener());
        c.startPush(consumer);
        String pg = c.name("PG");
        DefaultMQProducer p = c.startProducer(new DefaultMQProducer(pg, true), x -> { });
        Map<String, SendResult> sent = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            SendResult sr = p.send(msg(topic, "TagTrace", "trace-" + i));
            sent.put(sr.getMsgId(), sr);
        }
        eventually("3 traced messages consumed", 30_000, () -> r.distinct() == 3);
        DefaultMQPullConsumer pc = c.pull(c.name("TraceReader"));
        Map<String, Set<TraceType>> types = new HashMap<>();
        Map<String, TraceBean> pub = new HashMap<>();
        Map<String, String> groups = new HashMap<>();
        eventually("Pub, SubBefore and SubAfter records in RMQ_SYS_TRACE_TOPIC for " + sent.keySet(), 30_000, () -> {
            try {
                for (MessageQueue mq : pc.fetchSubscribeMessageQueues("RMQ_SYS_TRACE_TOPIC")) {
                    long off = pc.minOffset(mq);
                    while (true) {
                        PullResult pr = pc.pull(mq, "*", off, 32);
                        if (pr.getPullStatus() != PullStatus.FOUND) {
                            break;
                        }
                        for (MessageExt m : pr.getMsgFoundList()) {
                            for (TraceContext tc : TraceDataEncoder.decoderFromTraceDataString(Received.body(m))) {
                                for (TraceBean b : tc.getTraceBeans()) {
                                    if (sent.containsKey(b.getMsgId())) {
                                        types.computeIfAbsent(b.getMsgId(), k -> new HashSet<>()).add(tc.getTraceType());
                                        if (tc.getTraceType() == TraceType.Pub) {
                                            pub.put(b.getMsgId(), b);
                                            groups.put(b.getMsgId(), tc.getGroupName());
                                        }
                                    }
                                }
                            }
                        }
                        off = pr.getNextBeginOffset();
                    }
                }
            } catch (Exception e) {
                return false;
            }
            return types.size() == 3 && types.values().stream().allMatch(
                s -> s.containsAll(List.of(TraceType.Pub, TraceType.SubBefore, TraceType.SubAfter)));
        });
        for (Map.Entry<String, TraceBean> e : pub.entrySet()) {
            TraceBean b = e.getValue();
            SendResult sr = sent.get(e.getKey());
            check(topic.equals(b.getTopic()) && "TagTrace".equals(b.getTags()), "Pub trace topic %s tags %s", b.getTopic(), b.getTags());
            check(sr.getOffsetMsgId().equals(b.getOffsetMsgId()), "Pub trace offsetMsgId %s, send returned %s", b.getOffsetMsgId(),
                sr.getOffsetMsgId());
            check(c.broker.equals(b.getStoreHost()), "Pub trace storeHost %s", b.getStoreHost());
            check(pg.equals(groups.get(e.getKey())), "Pub trace group %s", groups.get(e.getKey()));
        }
    }

    static void litePullSubscribe(Ctx c) throws Exception {
        String topic = c.name("LiteT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        Map<String, SendResult> res = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            Message m = msg(topic, "TagLite", "lite-" + i);
            sent.put("lite-" + i, m);
            res.put("lite-" + i, p.send(m));
        }
        String group = c.name("CG");
        DefaultLitePullConsumer lc = new DefaultLitePullConsumer(group);
        lc.setNamesrvAddr(c.namesrv);
        lc.setInstanceName(c.name("lite"));
        lc.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        lc.setAutoCommit(false);
        lc.subscribe(topic, "*");
        lc.start();
        c.onCleanup(lc::shutdown);
        Received r = new Received();
        long deadline = System.currentTimeMillis() + 30_000;
        while (r.distinct() < 10 && System.currentTimeMillis() < deadline) {
            r.add(lc.poll(500));
        }
        check(r.distinct() == 10, "lite pull polled %d of 10", r.distinct());
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            c.checkMessage(r.first(e.getKey()), e.getValue(), res.get(e.getKey()), 0);
        }
        lc.commitSync();
        Map<MessageQueue, Long> want = new HashMap<>();
        for (SendResult sr : res.values()) {
            want.merge(sr.getMessageQueue(), sr.getQueueOffset() + 1, Math::max);
        }
        for (Map.Entry<MessageQueue, Long> e : want.entrySet()) {
            check(e.getValue().equals(lc.committed(e.getKey())), "committed(%s) = %s, want %d", e.getKey(), lc.committed(e.getKey()),
                e.getValue());
        }
        lc.shutdown(); // persists the offsets to the broker
        for (Map.Entry<MessageQueue, Long> e : want.entrySet()) {
            MessageQueue mq = e.getKey();
            eventually("the broker has offset " + e.getValue() + " for " + mq, 10_000, () -> {
                DefaultMQPullConsumer reader = new DefaultMQPullConsumer(group);
                reader.setNamesrvAddr(c.namesrv);
                reader.setInstanceName(c.name("reader"));
                try {
                    reader.start();
                    return reader.fetchConsumeOffset(mq, true) == e.getValue();
                } catch (Exception ex) {
                    return false;
                } finally {
                    reader.shutdown();
                }
            });
        }
    }

    static void litePullAssign(Ctx c) throws Exception {
        String topic = c.name("AssignT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        MessageQueue q0 = null;
        List<SendResult> res = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            List<MessageQueue> mqs = p.fetchPublishMessageQueues(topic);
            q0 = mqs.get(0).getQueueId() == 0 ? mqs.get(0) : mqs.get(1);
            res.add(p.send(msg(topic, "TagAssign", "assign-" + i), q0));
        }
        p.send(msg(topic, "TagAssign", "other-queue"), new MessageQueue(topic, q0.getBrokerName(), 1));
        DefaultLitePullConsumer lc = new DefaultLitePullConsumer(c.name("CG"));
        lc.setNamesrvAddr(c.namesrv);
        lc.setInstanceName(c.name("lite"));
        lc.setAutoCommit(false);
        lc.start();
        c.onCleanup(lc::shutdown);
        check(lc.fetchMessageQueues(topic).size() == 2, "fetchMessageQueues: %s", lc.fetchMessageQueues(topic));
        lc.assign(List.of(q0));
        // A new group starts at the queue's first offset (the broker answers 0 for a queue
        // whose first message is still in memory). Take those first: assign starts a pull at
        // once, and a seek while that pull is in flight can let its result through (the
        // client's PullTaskImpl drops a result only while the seek offset is unread).
        List<Long> offsets = pollOffsets(lc, 6);
        check(offsets.equals(List.of(0L, 1L, 2L, 3L, 4L, 5L)), "after assign polled offsets %s", offsets);
        lc.seek(q0, 3);
        offsets = pollOffsets(lc, 3);
        check(offsets.equals(List.of(3L, 4L, 5L)), "after seek(3) polled offsets %s", offsets);
        lc.seekToBegin(q0);
        offsets = pollOffsets(lc, 6);
        check(offsets.equals(List.of(0L, 1L, 2L, 3L, 4L, 5L)), "after seekToBegin polled offsets %s", offsets);
        MessageExt m2 = SendScenarioAccess.pullAt(c, q0, 2);
        Long byTime = lc.offsetForTimestamp(q0, m2.getStoreTimestamp());
        check(byTime != null && byTime == 2L, "offsetForTimestamp(store time of offset 2) = %s", byTime);
    }

    static List<Long> pollOffsets(DefaultLitePullConsumer lc, int n) {
        List<Long> got = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (got.size() < n && System.currentTimeMillis() < deadline) {
            for (MessageExt m : lc.poll(500)) {
                got.add(m.getQueueOffset());
            }
        }
        return got;
    }
}
