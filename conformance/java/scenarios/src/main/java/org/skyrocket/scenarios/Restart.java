package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Offsets and messages across a broker restart, in two JVMs: "broker-restart-before" consumes
 * 10 messages with a group, leaves 6 unconsumed and writes what it did to the state file;
 * run.sh restarts the broker; "broker-restart-after" (--phase after-restart) checks that the
 * group resumes at the 6, and that the old messages are still found by offset msgId and key.
 */
final class Restart {
    private Restart() {
    }

    static Scenario first() {
        return Scenario.of("broker-restart-before", Restart::before);
    }

    static List<Scenario> second() {
        return List.of(Scenario.of("broker-restart-after", Restart::after));
    }

    static void before(Ctx c) throws Exception {
        String topic = c.name("BrokerRestartT");
        c.createTopic(topic, 2);
        String group = c.name("CG");
        DefaultMQProducer p = c.producer(c.name("PG"));
        Received r = new Received();
        DefaultMQPushConsumer pc = c.push(group, topic, "*", r.listener(), x -> { });
        Ctx.waitAssigned(pc, topic, 2);
        List<String> oldIds = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            SendResult sr = p.send(msg(topic, "TagOld", "old-" + i));
            oldIds.add(sr.getOffsetMsgId());
        }
        eventually("10 consumed before the restart", 30_000, () -> r.distinct() == 10);
        Thread.sleep(200);
        pc.shutdown();
        for (MessageQueue mq : p.fetchPublishMessageQueues(topic)) {
            long max = p.maxOffset(mq);
            eventually("committed offset of " + mq, 10_000, () -> {
                try {
                    return OffsetScenarios.readOffset(c, group, mq) == max;
                } catch (Exception e) {
                    return false;
                }
            });
        }
        List<String> fresh = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            p.send(msg(topic, "TagNew", "new-" + i));
            fresh.add("new-" + i);
        }
        c.state.put("topic", topic);
        c.state.put("group", group);
        c.state.put("oldIds", String.join(",", oldIds));
        c.state.put("fresh", String.join(",", fresh));
    }

    static void after(Ctx c) throws Exception {
        String topic = c.state.get("topic");
        String group = c.state.get("group");
        Set<String> fresh = new HashSet<>(List.of(c.state.get("fresh").split(",")));
        Received r = new Received();
        c.push(group, topic, "*", r.listener(), x -> { });
        eventually("the 6 unconsumed messages after the broker restart", 60_000, () -> r.distinct() >= 6);
        Thread.sleep(300);
        check(new HashSet<>(r.bodies()).equals(fresh), "after the broker restart the group received %s, want %s", r.bodies(), fresh);
        DefaultMQProducer p = c.producer(c.name("PG"));
        String[] oldIds = c.state.get("oldIds").split(",");
        for (int i = 0; i < oldIds.length; i++) {
            MessageExt m = p.viewMessage(oldIds[i]);
            check(("old-" + i).equals(Received.body(m)), "view %s after restart: %s", oldIds[i], Received.body(m));
            check("key-old-" + i != null && ("key-old-" + i).equals(m.getKeys()), "keys %s", m.getKeys());
        }
        long now = System.currentTimeMillis();
        List<MessageExt> byKey = p.queryMessage(topic, "key-old-3", 32, now - 3_600_000, now + 60_000).getMessageList();
        check(byKey.size() == 1 && "old-3".equals(Received.body(byKey.get(0))), "query by key after restart: %d found", byKey.size());
        // sends still work on the restarted broker, to the same queues
        Message m = msg(topic, "TagAfter", "after-restart");
        SendResult sr = p.send(m);
        DefaultMQPullConsumer pull = c.pull(c.name("CG"));
        c.checkMessage(SendScenarios.pullAt(pull, sr.getMessageQueue(), sr.getQueueOffset()), m, sr, 0);
    }
}
