package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageId;
import org.apache.rocketmq.common.message.MessageQueue;

/** Producer paths: sync, async, oneway, batch, large and compressed bodies, oversized, VIP channel. */
final class SendScenarios {
    private SendScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
            Scenario.of("send-sync", SendScenarios::sendSync),
            Scenario.of("send-async", SendScenarios::sendAsync),
            Scenario.of("send-oneway", SendScenarios::sendOneway),
            Scenario.of("send-batch", SendScenarios::sendBatch),
            Scenario.of("large-compressed", SendScenarios::largeCompressed),
            Scenario.of("oversized-body", SendScenarios::oversized),
            Scenario.of("vip-channel", SendScenarios::vipChannel));
    }

    /** pullAt reads the message at offset of mq, waiting up to 10 s for it to be dispatched. */
    static MessageExt pullAt(DefaultMQPullConsumer pc, MessageQueue mq, long offset) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            PullResult pr = pc.pull(mq, "*", offset, 1);
            if (pr.getPullStatus() == PullStatus.FOUND) {
                MessageExt m = pr.getMsgFoundList().get(0);
                check(m.getQueueOffset() == offset, "pull %s at %d returned offset %d", mq, offset, m.getQueueOffset());
                return m;
            }
            check(System.currentTimeMillis() < deadline, "pull %s at %d: %s", mq, offset, pr.getPullStatus());
            Thread.sleep(50);
        }
    }

    /** checkSendResult checks the fields every successful send returns. */
    static void checkSendResult(Ctx c, SendResult sr, String topic) {
        check(sr.getSendStatus() == SendStatus.SEND_OK, "send status %s", sr.getSendStatus());
        check(topic.equals(sr.getMessageQueue().getTopic()), "send result topic %s", sr.getMessageQueue().getTopic());
        // (the client's unique id is 32 hex digits with an IPv4 client address, 56 with IPv6)
        check(sr.getMsgId() != null && sr.getMsgId().length() >= 32, "msgId %s", sr.getMsgId());
        check(sr.getOffsetMsgId() != null && sr.getOffsetMsgId().length() == 32, "offsetMsgId %s", sr.getOffsetMsgId());
        MessageId id;
        try {
            id = MessageDecoder.decodeMessageId(sr.getOffsetMsgId());
        } catch (Exception e) {
            throw new Ctx.Failure("offsetMsgId " + sr.getOffsetMsgId() + " does not decode: " + e);
        }
        check(c.broker.equals(Ctx.addr(id.getAddress())), "offsetMsgId %s names %s, broker is %s", sr.getOffsetMsgId(),
            Ctx.addr(id.getAddress()), c.broker);
    }

    static void sendSync(Ctx c) throws Exception {
        String topic = c.name("SyncT");
        c.createTopic(topic, 4);
        DefaultMQProducer p = c.producer(c.name("PG"));
        List<Message> sent = new ArrayList<>();
        List<SendResult> results = new ArrayList<>();
        Map<Integer, Integer> perQueue = new HashMap<>();
        for (int i = 0; i < 8; i++) {
            Message m = msg(topic, "TagA", "sync-" + i);
            SendResult sr = p.send(m);
            checkSendResult(c, sr, topic);
            sent.add(m);
            results.add(sr);
            perQueue.merge(sr.getMessageQueue().getQueueId(), 1, Integer::sum);
        }
        // Java's producer picks queues round-robin: 8 sends over 4 queues put 2 in each.
        check(perQueue.size() == 4 && perQueue.values().stream().allMatch(n -> n == 2), "queue spread %s", perQueue);
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        for (int i = 0; i < sent.size(); i++) {
            SendResult sr = results.get(i);
            check(sr.getQueueOffset() < 2, "queue offset %d on a new topic", sr.getQueueOffset());
            c.checkMessage(pullAt(pc, sr.getMessageQueue(), sr.getQueueOffset()), sent.get(i), sr, 0);
            // the offset msgId addresses the same record through VIEW_MESSAGE_BY_ID
            MessageExt viewed = p.viewMessage(sr.getOffsetMsgId());
            c.checkMessage(viewed, sent.get(i), sr, 0);
        }
        for (int q = 0; q < 4; q++) {
            MessageQueue mq = new MessageQueue(topic, results.get(0).getMessageQueue().getBrokerName(), q);
            check(p.maxOffset(mq) == 2, "maxOffset of queue %d: %d", q, p.maxOffset(mq));
            check(p.minOffset(mq) == 0, "minOffset of queue %d: %d", q, p.minOffset(mq));
        }
    }

    static void sendAsync(Ctx c) throws Exception {
        String topic = c.name("AsyncT");
        c.createTopic(topic, 4);
        DefaultMQProducer p = c.producer(c.name("PG"));
        int n = 20;
        CountDownLatch done = new CountDownLatch(n);
        Map<String, SendResult> results = new ConcurrentHashMap<>();
        Map<String, Message> sent = new HashMap<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message m = msg(topic, "TagAsync", "async-" + i);
            String body = "async-" + i;
            sent.put(body, m);
            p.send(m, new SendCallback() {
                @Override
                public void onSuccess(SendResult sr) {
                    results.put(body, sr);
                    done.countDown();
                }

                @Override
                public void onException(Throwable e) {
                    synchronized (errors) {
                        errors.add(body + ": " + e);
                    }
                    done.countDown();
                }
            });
        }
        check(done.await(30, TimeUnit.SECONDS), "async callbacks: %d of %d", n - done.getCount(), n);
        check(errors.isEmpty(), "async send errors: %s", errors);
        Received r = new Received();
        c.push(c.name("CG"), topic, "*", r.listener(), x -> { });
        eventually(n + " async messages consumed", 30_000, () -> r.distinct() == n);
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            SendResult sr = results.get(e.getKey());
            checkSendResult(c, sr, topic);
            c.checkMessage(r.first(e.getKey()), e.getValue(), sr, 0);
        }
    }

    static void sendOneway(Ctx c) throws Exception {
        String topic = c.name("OnewayT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        Map<String, Message> sent = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            Message m = msg(topic, "TagOne", "oneway-" + i);
            p.sendOneway(m);
            sent.put("oneway-" + i, m);
        }
        Received r = new Received();
        c.push(c.name("CG"), topic, "*", r.listener(), x -> { });
        eventually("10 oneway messages consumed", 30_000, () -> r.distinct() == 10);
        for (Map.Entry<String, Message> e : sent.entrySet()) {
            MessageExt got = r.first(e.getKey());
            c.checkMessage(got, e.getValue(), null, 0);
            // the client set UNIQ_KEY before the send; the stored message carries it as msgId
            check(got.getMsgId().equals(e.getValue().getProperty("UNIQ_KEY")), "oneway msgId %s, UNIQ_KEY %s",
                got.getMsgId(), e.getValue().getProperty("UNIQ_KEY"));
        }
    }

    static void sendBatch(Ctx c) throws Exception {
        String topic = c.name("BatchT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(msg(topic, "TagB" + (i % 2), "batch-" + i));
        }
        SendResult sr = p.send(batch);
        check(sr.getSendStatus() == SendStatus.SEND_OK, "batch status %s", sr.getSendStatus());
        String[] ids = sr.getMsgId().split(",");
        String[] offIds = sr.getOffsetMsgId().split(",");
        check(ids.length == 10, "batch msgId has %d ids: %s", ids.length, sr.getMsgId());
        check(offIds.length == 10, "batch offsetMsgId has %d ids: %s", offIds.length, sr.getOffsetMsgId());
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        PullResult pr = null;
        long deadline = System.currentTimeMillis() + 10_000;
        while (pr == null || pr.getPullStatus() != PullStatus.FOUND || pr.getMsgFoundList().size() < 10) {
            check(System.currentTimeMillis() < deadline, "batch pull: %s", pr);
            pr = pc.pull(sr.getMessageQueue(), "*", sr.getQueueOffset(), 32);
        }
        check(pr.getMsgFoundList().size() == 10, "batch pull found %d", pr.getMsgFoundList().size());
        for (int i = 0; i < 10; i++) {
            MessageExt got = pr.getMsgFoundList().get(i);
            c.checkMessage(got, batch.get(i), null, 0);
            check(got.getQueueOffset() == sr.getQueueOffset() + i, "batch element %d at offset %d, base %d", i,
                got.getQueueOffset(), sr.getQueueOffset());
            check(got.getMsgId().equals(ids[i]), "batch element %d msgId %s, send returned %s", i, got.getMsgId(), ids[i]);
            check(Ctx.offsetMsgId(got).equals(offIds[i]), "batch element %d offsetMsgId %s, send returned %s", i,
                Ctx.offsetMsgId(got), offIds[i]);
        }
        check(pr.getNextBeginOffset() == sr.getQueueOffset() + 10, "nextBeginOffset %d", pr.getNextBeginOffset());
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void largeCompressed(Ctx c) throws Exception {
        String topic = c.name("LargeT");
        c.createTopic(topic, 1);
        DefaultMQProducer p = c.producer(c.name("PG"));
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 100 * 1024) {
            sb.append("compressible text ").append(sb.length()).append(' ');
        }
        Message small = msg(topic, "TagS", "small-body");
        Message text = new Message(topic, "TagC", "k-text", Ctx.bytes(sb.toString()));
        Message rnd = new Message(topic, "TagR", "k-rnd", random(3 * 1024 * 1024, 42));
        Message[] all = {small, text, rnd};
        SendResult[] res = new SendResult[3];
        for (int i = 0; i < 3; i++) {
            res[i] = p.send(all[i]);
            checkSendResult(c, res[i], topic);
        }
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        for (int i = 0; i < 3; i++) {
            MessageExt got = pullAt(pc, res[i].getMessageQueue(), res[i].getQueueOffset());
            check(java.util.Arrays.equals(got.getBody(), all[i].getBody()), "body %d: %d bytes back, %d sent", i,
                got.getBody().length, all[i].getBody().length);
            check(got.getMsgId().equals(res[i].getMsgId()), "msgId %s, sent %s", got.getMsgId(), res[i].getMsgId());
            check(got.getTags().equals(all[i].getTags()), "tags %s", got.getTags());
        }
        // Java compresses bodies over 4 KiB (compressMsgBodyOverHowmuch) and the broker keeps the flag.
        MessageExt s = pullAt(pc, res[0].getMessageQueue(), res[0].getQueueOffset());
        MessageExt t = pullAt(pc, res[1].getMessageQueue(), res[1].getQueueOffset());
        check((s.getSysFlag() & 1) == 0, "small body stored with sysFlag %d", s.getSysFlag());
        check((t.getSysFlag() & 1) == 1, "compressed body stored with sysFlag %d", t.getSysFlag());
        check(t.getStoreSize() < 100 * 1024, "compressed record is %d bytes", t.getStoreSize());
    }

    static void oversized(Ctx c) throws Exception {
        String topic = c.name("BigT");
        c.createTopic(topic, 1);
        // The client allows 8 MiB, the broker's maxMessageSize is 4 MiB: the broker must refuse.
        DefaultMQProducer p = c.producer(c.name("PG"), x -> x.setMaxMessageSize(8 * 1024 * 1024));
        Message m = new Message(topic, "TagBig", "k-big", random(5 * 1024 * 1024, 7));
        try {
            SendResult sr = p.send(m);
            throw new Ctx.Failure("a 5 MiB body was accepted: " + sr);
        } catch (MQBrokerException e) {
            check(e.getResponseCode() == 13, "oversized body answered %d (%s), want 13 MESSAGE_ILLEGAL", e.getResponseCode(),
                e.getErrorMessage());
        }
        // the producer and the connection still work
        checkSendResult(c, p.send(msg(topic, "TagOk", "after-oversized")), topic);
    }

    static void vipChannel(Ctx c) throws Exception {
        String topic = c.name("VipT");
        c.createTopic(topic, 2);
        DefaultMQProducer vip = c.producer(c.name("PG"), x -> x.setVipChannelEnabled(true));
        DefaultMQProducer plain = c.producer(c.name("PG"), x -> x.setVipChannelEnabled(false));
        Message m1 = msg(topic, "TagV", "vip-1");
        Message m2 = msg(topic, "TagV", "plain-1");
        SendResult r1 = vip.send(m1);
        SendResult r2 = plain.send(m2);
        checkSendResult(c, r1, topic);
        checkSendResult(c, r2, topic);
        List<String> vc = Ctx.connections(vip);
        List<String> pcn = Ctx.connections(plain);
        check(vc.contains(c.vipAddr()), "VIP producer connections %s lack %s", vc, c.vipAddr());
        check(!pcn.contains(c.vipAddr()), "plain producer connections %s include the VIP port", pcn);
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        c.checkMessage(pullAt(pc, r1.getMessageQueue(), r1.getQueueOffset()), m1, r1, 0);
        c.checkMessage(pullAt(pc, r2.getMessageQueue(), r2.getQueueOffset()), m2, r2, 0);
    }
}
