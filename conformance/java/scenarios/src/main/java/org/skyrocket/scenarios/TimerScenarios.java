package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;
import static org.skyrocket.scenarios.Ctx.msg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Timer messages, a Skyrocket extension (README "Timer messages"): the unmodified Java client
 * sets the 5.x properties TIMER_DELAY_MS, TIMER_DELAY_SEC or TIMER_DELIVER_MS as user
 * properties. A Java 4.x broker ignores them, so clients.sh runs this scenario against
 * Skyrocket only (and in one client run: it lasts a minute).
 */
final class TimerScenarios {
    private TimerScenarios() {
    }

    static List<Scenario> all() {
        return List.of(Scenario.of("timer-properties", TimerScenarios::timer));
    }

    private static final class Sent {
        final Message msg;
        final SendResult sr;
        final long due;

        Sent(Message msg, SendResult sr, long due) {
            this.msg = msg;
            this.sr = sr;
            this.due = due;
        }
    }

    static void timer(Ctx c) throws Exception {
        String topic = c.name("TimerT");
        c.createTopic(topic, 2);
        Received r = new Received();
        Map<String, Long> at = new ConcurrentHashMap<>();
        c.push(c.name("CG"), topic, "*", (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                at.putIfAbsent(Received.body(m), System.currentTimeMillis());
            }
            r.add(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }, x -> { });
        DefaultMQProducer p = c.producer(c.name("PG"));
        // A plain send first: the route lookup and the connection are then behind us, so
        // the broker's clock starts each delay within a ms or two of the client's.
        SendResult warm = p.send(msg(topic, "TagTimer", "timer-warm-up"));
        check(warm.getSendStatus() == SendStatus.SEND_OK, "warm-up send status %s", warm.getSendStatus());
        Map<String, Sent> sent = new HashMap<>();
        String[][] cases = {
            {"timer-ms1500", "TIMER_DELAY_MS", "1500"},
            {"timer-sec7", "TIMER_DELAY_SEC", "7"},
            {"timer-sec61", "TIMER_DELAY_SEC", "61"},
            {"timer-abs3300", "TIMER_DELIVER_MS", "3300"},
        };
        for (String[] cs : cases) {
            Message m = msg(topic, "TagTimer", cs[0]);
            long t0 = System.currentTimeMillis();
            long due;
            if (cs[1].equals("TIMER_DELIVER_MS")) {
                due = t0 + Long.parseLong(cs[2]);
                m.putUserProperty(cs[1], Long.toString(due));
            } else {
                due = t0 + Long.parseLong(cs[2]) * (cs[1].equals("TIMER_DELAY_SEC") ? 1000 : 1);
                m.putUserProperty(cs[1], cs[2]);
            }
            SendResult sr = p.send(m);
            check(sr.getSendStatus() == SendStatus.SEND_OK, "%s: send status %s", cs[0], sr.getSendStatus());
            sent.put(cs[0], new Sent(m, sr, due));
        }
        // A bad value is refused with MESSAGE_ILLEGAL (13) and 5.x's remark, nothing stored.
        for (String[] bad : new String[][] {{"TIMER_DELAY_SEC", "abc"}, {"TIMER_DELAY_MS", "-1"}, {"TIMER_DELAY_SEC", "999999999"}}) {
            Message m = msg(topic, "TagTimer", "timer-bad");
            m.putUserProperty(bad[0], bad[1]);
            try {
                p.send(m);
                check(false, "%s=%s accepted", bad[0], bad[1]);
            } catch (MQBrokerException e) {
                check(e.getResponseCode() == 13 && e.getErrorMessage().startsWith("timer message illegal"),
                    "%s=%s: code %d remark %s", bad[0], bad[1], e.getResponseCode(), e.getErrorMessage());
            }
        }
        eventually("the four timer messages", 75_000, () -> r.distinct() >= 5);
        List<String> bodies = new ArrayList<>(r.bodies());
        check(!bodies.contains("timer-bad"), "a refused timer message was delivered");
        for (Map.Entry<String, Sent> e : sent.entrySet()) {
            String body = e.getKey();
            Sent s = e.getValue();
            MessageExt got = r.first(body);
            c.checkMessage(got, s.msg, null, 0);
            check(got.getMsgId().equals(s.sr.getMsgId()), "%s: msgId %s, sent %s", body, got.getMsgId(), s.sr.getMsgId());
            long late = got.getStoreTimestamp() - s.due;
            check(late >= 0, "%s stored %d ms before its time", body, -late);
            check(late <= 1100, "%s stored %d ms after its time, want within precision + 100 ms", body, late);
            check(at.get(body) >= s.due, "%s consumed %d ms before its time", body, s.due - at.get(body));
            check(got.getProperty("TIMER_OUT_MS") != null, "%s: TIMER_OUT_MS missing: %s", body, got.getProperties());
        }
        // Exactly once: the 61 s one arrives last, long after any copy of the others would have.
        check(r.total() == 5, "%d deliveries, want 5 (4 timers and the warm-up): %s", r.total(), r.bodies());
    }
}
