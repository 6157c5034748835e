package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/** Pull consumer, offsets (consume-from positions, commits, consumer restart) and message queries. */
final class OffsetScenarios {
    private OffsetScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
            Scenario.of("pull-consumer", OffsetScenarios::pull),
            Scenario.of("consume-from-positions", OffsetScenarios::consumeFrom),
            Scenario.of("offsets-consumer-restart", OffsetScenarios::consumerRestart),
            Scenario.of("query-view-message", OffsetScenarios::queryView));
    }

    static void pull(Ctx c) throws Exception {
        String topic = c.name("PullT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        String brokerName = p.fetchPublishMessageQueues(topic).get(0).getBrokerName();
        MessageQueue q0 = new MessageQueue(topic, brokerName, 0);
        MessageQueue q1 = new MessageQueue(topic, brokerName, 1);
        List<Message> sent = new ArrayList<>();
        List<SendResult> res = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Message m = msg(topic, i % 2 == 0 ? "TagA" : "TagB", "pull-" + i);
            SendResult sr = p.send(m, q0);
            check(sr.getQueueOffset() == i, "send %d to queue 0 got offset %d", i, sr.getQueueOffset());
            sent.add(m);
            res.add(sr);
        }
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        SendScenarios.pullAt(pc, q0, 5); // dispatched
        PullResult all = pc.pull(q0, "*", 0, 32);
        check(all.getPullStatus() == PullStatus.FOUND && all.getMsgFoundList().size() == 6, "pull * from 0: %s", all);
        check(all.getNextBeginOffset() == 6 && all.getMinOffset() == 0 && all.getMaxOffset() == 6,
            "pull * from 0: next %d min %d max %d", all.getNextBeginOffset(), all.getMinOffset(), all.getMaxOffset());
        for (int i = 0; i < 6; i++) {
            c.checkMessage(all.getMsgFoundList().get(i), sent.get(i), res.get(i), 0);
        }
        PullResult a = pc.pull(q0, "TagA", 0, 32);
        check(a.getPullStatus() == PullStatus.FOUND && a.getMsgFoundList().size() == 3, "pull TagA: %s", a);
        for (MessageExt m : a.getMsgFoundList()) {
            check("TagA".equals(m.getTags()), "pull TagA returned %s", m.getTags());
        }
        check(a.getNextBeginOffset() == 6, "pull TagA nextBeginOffset %d", a.getNextBeginOffset());
        PullResult part = pc.pull(q0, "*", 2, 2);
        check(part.getPullStatus() == PullStatus.FOUND && part.getMsgFoundList().size() == 2
            && part.getMsgFoundList().get(0).getQueueOffset() == 2 && part.getNextBeginOffset() == 4, "pull 2 from 2: %s", part);
        PullResult end = pc.pull(q0, "*", 6, 32);
        check(end.getPullStatus() == PullStatus.NO_NEW_MSG && end.getNextBeginOffset() == 6, "pull at the end: %s", end);
        PullResult past = pc.pull(q0, "*", 100, 32);
        check(past.getPullStatus() == PullStatus.OFFSET_ILLEGAL && past.getNextBeginOffset() == 6, "pull past the end: %s", past);
        PullResult empty = pc.pull(q1, "*", 0, 32);
        check(empty.getPullStatus() == PullStatus.NO_NEW_MSG && empty.getNextBeginOffset() == 0, "pull an empty queue: %s", empty);
        // offsets: commit synchronously, read back from the broker
        pc.updateConsumeOffset(q0, 4);
        pc.getOffsetStore().updateConsumeOffsetToBroker(q0, 4, false);
        check(pc.fetchConsumeOffset(q0, true) == 4, "committed offset read back %d", pc.fetchConsumeOffset(q0, true));
        check(pc.maxOffset(q0) == 6 && pc.minOffset(q0) == 0, "max %d min %d", pc.maxOffset(q0), pc.minOffset(q0));
        long first = all.getMsgFoundList().get(0).getStoreTimestamp();
        check(pc.earliestMsgStoreTime(q0) == first, "earliestMsgStoreTime %d, first stored %d", pc.earliestMsgStoreTime(q0), first);
    }

    static void consumeFrom(Ctx c) throws Exception {
        String topic = c.name("FromT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            p.send(msg(topic, "TagF", "old-" + i));
            bodies.add("old-" + i);
        }
        Thread.sleep(1200);
        long between = System.currentTimeMillis();
        Thread.sleep(1200);
        List<SendResult> fresh = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            fresh.add(p.send(msg(topic, "TagF", "new-" + i)));
            bodies.add("new-" + i);
            Thread.sleep(5);
        }
        // A new group on a queue whose first message is still in memory starts at 0 whatever
        // consumeFromWhere says (Java: ConsumerManageProcessor#queryConsumerOffset answers 0).
        String ts = new SimpleDateFormat("yyyyMMddHHmmss").format(new Date(between));
        ConsumeFromWhere[] wheres = {ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET, ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
            ConsumeFromWhere.CONSUME_FROM_TIMESTAMP};
        List<Received> rs = new ArrayList<>();
        for (ConsumeFromWhere w : wheres) {
            Received r = new Received();
            rs.add(r);
            c.push(c.name("CG"), topic, "*", r.listener(), x -> {
                x.setConsumeFromWhere(w);
                x.setConsumeTimestamp(ts);
            });
        }
        for (int i = 0; i < wheres.length; i++) {
            Received r = rs.get(i);
            eventually(wheres[i] + " on a young topic receives all 12", 30_000, () -> r.distinct() == 12);
        }
        // A group with a committed offset resumes there.
        // (The committing pull consumer leaves the group before the push consumer joins, or
        // the push consumer's rebalance would share the queues with it.)
        String group = c.name("CG");
        MessageQueue q0 = fresh.get(0).getMessageQueue();
        MessageQueue q1 = new MessageQueue(topic, q0.getBrokerName(), 1 - q0.getQueueId());
        DefaultMQPullConsumer committer = new DefaultMQPullConsumer(group);
        committer.setNamesrvAddr(c.namesrv);
        committer.setInstanceName(c.name("committer"));
        committer.start();
        try {
            for (MessageQueue mq : List.of(q0, q1)) {
                committer.getOffsetStore().updateConsumeOffsetToBroker(mq, 4, false);
                check(committer.fetchConsumeOffset(mq, true) == 4, "committed 4, read %d", committer.fetchConsumeOffset(mq, true));
            }
        } finally {
            committer.shutdown();
        }
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        Received resumed = new Received();
        DefaultMQPushConsumer pr = c.push(group, topic, "*", resumed.listener(),
            x -> x.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET));
        eventually("the resumed group receives offsets 4 and 5 of both queues", 30_000, () -> resumed.distinct() >= 4);
        Thread.sleep(300);
        for (String b : resumed.bodies()) {
            check(resumed.first(b).getQueueOffset() >= 4, "resumed group received %s at offset %d", b,
                resumed.first(b).getQueueOffset());
        }
        check(resumed.distinct() == 4, "resumed group received %s", resumed.bodies());
        pr.shutdown();
        // SEARCH_OFFSET_BY_TIMESTAMP: an exact store time finds its message.
        for (SendResult sr : fresh) {
            MessageExt m = SendScenarios.pullAt(pc, sr.getMessageQueue(), sr.getQueueOffset());
            long found = pc.searchOffset(sr.getMessageQueue(), m.getStoreTimestamp());
            check(found == sr.getQueueOffset(), "searchOffset(%d) in queue %d = %d, want %d", m.getStoreTimestamp(),
                sr.getMessageQueue().getQueueId(), found, sr.getQueueOffset());
        }
    }

    static void consumerRestart(Ctx c) throws Exception {
        String topic = c.name("RestartT");
        c.createTopic(topic, 2);
        String group = c.name("CG");
        DefaultMQProducer p = c.producer(c.name("PG"));
        Received first = new Received();
        DefaultMQPushConsumer c1 = c.push(group, topic, "*", first.listener(), x -> { });
        Ctx.waitAssigned(c1, topic, 2);
        for (int i = 0; i < 10; i++) {
            p.send(msg(topic, "TagX", "first-" + i));
        }
        eventually("10 consumed", 30_000, () -> first.distinct() == 10);
        Thread.sleep(200);
        c1.shutdown(); // persists the offsets (Java: persistConsumerOffset, then UNREGISTER_CLIENT)
        DefaultMQPullConsumer pc = c.pull(c.name("CG"));
        for (MessageQueue mq : p.fetchPublishMessageQueues(topic)) {
            long max = pc.maxOffset(mq);
            eventually("committed offset of " + mq + " reaches " + max, 10_000, () -> {
                try {
                    return readOffset(c, group, mq) == max;
                } catch (Exception e) {
                    return false;
                }
            });
        }
        Set<String> second = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            p.send(msg(topic, "TagX", "second-" + i));
            second.add("second-" + i);
        }
        Received again = new Received();
        c.push(group, topic, "*", again.listener(), x -> { });
        eventually("5 new messages after the consumer restart", 30_000, () -> again.distinct() >= 5);
        Thread.sleep(300);
        check(new HashSet<>(again.bodies()).equals(second), "after restart received %s", again.bodies());
    }

    /** The group's committed offset of mq as the broker has it (QUERY_CONSUMER_OFFSET). */
    static long readOffset(Ctx c, String group, MessageQueue mq) throws Exception {
        DefaultMQPullConsumer reader = new DefaultMQPullConsumer(group);
        reader.setNamesrvAddr(c.namesrv);
        reader.setInstanceName(c.name("reader"));
        reader.start();
        try {
            return reader.fetchConsumeOffset(mq, true);
        } finally {
            reader.shutdown();
        }
    }

    static void queryView(Ctx c) throws Exception {
        String topic = c.name("QueryT");
        c.createTopic(topic, 2);
        DefaultMQProducer p = c.producer(c.name("PG"));
        String common = c.name("qkey");
        List<Message> sent = new ArrayList<>();
        List<SendResult> res = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Message m = new Message(topic, "TagQ", "", Ctx.bytes("query-" + i));
            m.setKeys(List.of(common, common + "-" + i));
            m.putUserProperty("i", Integer.toString(i));
            sent.add(m);
            res.add(p.send(m));
        }
        long begin = System.currentTimeMillis() - 60_000;
        long end = System.currentTimeMillis() + 60_000;
        eventually("QUERY_MESSAGE by key finds 3", 15_000, () -> {
            try {
                return p.queryMessage(topic, common, 32, begin, end).getMessageList().size() == 3;
            } catch (Exception e) {
                return false;
            }
        });
        QueryResult qr = p.queryMessage(topic, common, 32, begin, end);
        check(qr.getIndexLastUpdateTimestamp() > 0, "indexLastUpdateTimestamp %d", qr.getIndexLastUpdateTimestamp());
        Set<String> got = new HashSet<>();
        for (MessageExt m : qr.getMessageList()) {
            got.add(Received.body(m));
        }
        check(got.equals(Set.of("query-0", "query-1", "query-2")), "query by %s: %s", common, got);
        for (int i = 0; i < 3; i++) {
            QueryResult one = p.queryMessage(topic, common + "-" + i, 32, begin, end);
            check(one.getMessageList().size() == 1, "query by key %s-%d found %d", common, i, one.getMessageList().size());
            c.checkMessage(one.getMessageList().get(0), sent.get(i), res.get(i), 0);
            // VIEW_MESSAGE_BY_ID with the offset msgId
            c.checkMessage(p.viewMessage(res.get(i).getOffsetMsgId()), sent.get(i), res.get(i), 0);
            // QUERY_MESSAGE with _UNIQUE_KEY_QUERY (the client's unique id). Not through
            // viewMessage(topic, id): that first tries the id as an offset msgId and dials the
            // address it decodes, which for a client id is the client machine's.
            MessageExt u = p.getDefaultMQProducerImpl().queryMessageByUniqKey(topic, res.get(i).getMsgId());
            c.checkMessage(u, sent.get(i), res.get(i), 0);
        }
        QueryResult none = null;
        try {
            none = p.queryMessage(topic, common + "-absent", 32, begin, end);
        } catch (Exception e) {
            // Java's client throws "query message by key finished, but no message." when nothing matches
        }
        check(none == null || none.getMessageList().isEmpty(), "query by an absent key found %s", none);
    }
}
