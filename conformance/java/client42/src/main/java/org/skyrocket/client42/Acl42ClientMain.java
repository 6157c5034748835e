package org.skyrocket.client42;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The RocketMQ 4.2.0 client with Acl42RPCHook against an ACL broker (conformance/acl_java_test.go
 * TestACLJava_Client42RPCHook, whose plain_acl.yml is conformance/acl_test.go's aclYAML).
 * Usage: Acl42ClientMain NAMESRV TOPIC N OUT. Writes to OUT one line per case:
 * "vectors: ok" (the hook against acl-tls-facts.md A2.5's golden signatures), "allowed: SEND_OK=N",
 * "CASE: <the exception and its causes, one line>" for the refused sends and pulls,
 * "consumed=N" for a pull consumer with the right keys. Exit 0 when it ran.
 */
public final class Acl42ClientMain {
    private static final List<String> RESULTS = new ArrayList<>();

    private Acl42ClientMain() {
    }

    private static void result(String format, Object... args) {
        RESULTS.add(String.format(format, args));
    }

    public static void main(String[] args) {
        int rc = 0;
        try {
            run(args[0], args[1], Integer.parseInt(args[2]));
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 1;
        }
        try {
            java.nio.file.Files.write(java.nio.file.Paths.get(args[3]), RESULTS, StandardCharsets.UTF_8);
        } catch (Exception e) {
            e.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    /** The golden vectors (AK RocketMQ, SK 12345678) computed by the 4.9.8 jars. */
    private static void vectors() {
        Acl42RPCHook h = new Acl42RPCHook("RocketMQ", "12345678");
        Map<String, String> f = new HashMap<>();
        f.put("AccessKey", "RocketMQ");
        f.put("consumerGroup", "CG");
        check(h.sign(f, null), "8wB2JGMC2flyHfgUSd/BFGlpcHs=");
        f.put("SecurityToken", "tok");
        check(h.sign(f, null), "0MmRILLKwECb0Cd3czzoENf9d2o=");
        Map<String, String> hb = new HashMap<>();
        hb.put("AccessKey", "RocketMQ");
        hb.put("Signature", "ignored");
        check(h.sign(hb, "{\"clientID\":\"x\",\"consumerDataSet\":[],\"producerDataSet\":[]}".getBytes(StandardCharsets.UTF_8)),
            "Q8xXL4Qyf89xpDk0yzLRSnUFZ4E=");
        result("vectors: ok");
    }

    private static void check(String got, String want) {
        if (!got.equals(want)) {
            throw new IllegalStateException("signature " + got + ", want " + want);
        }
    }

    private static DefaultMQProducer producer(String ns, String ak, String sk, String name) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("Acl42PG_" + name, new Acl42RPCHook(ak, sk));
        p.setNamesrvAddr(ns);
        p.setInstanceName("acl42_" + name + "_" + System.nanoTime());
        p.setRetryTimesWhenSendFailed(0);
        p.setSendMsgTimeout(10000);
        p.start();
        return p;
    }

    private static DefaultMQPullConsumer consumer(String ns, String ak, String sk, String name) throws Exception {
        DefaultMQPullConsumer c = new DefaultMQPullConsumer("Acl42CG", new Acl42RPCHook(ak, sk));
        c.setNamesrvAddr(ns);
        c.setInstanceName("acl42_" + name + "_" + System.nanoTime());
        c.start();
        return c;
    }

    private static String oneLine(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append(" | ");
        }
        return sb.toString().replace('\n', ' ');
    }

    private static void refusedSend(String ns, String name, String ak, String sk, String topic) throws Exception {
        DefaultMQProducer p = producer(ns, ak, sk, name);
        try {
            SendResult r = p.send(new Message(topic, "refused".getBytes(StandardCharsets.UTF_8)));
            result("%s: accepted %s", name, r.getSendStatus());
        } catch (Exception e) {
            result("%s: %s", name, oneLine(e));
        } finally {
            p.shutdown();
        }
    }

    private static void run(String ns, String topic, int n) throws Exception {
        vectors();
        DefaultMQProducer p = producer(ns, "aclAllowed", "allowedSecret", "allowed");
        int ok = 0;
        MessageQueue sentTo = null;
        for (int i = 0; i < n; i++) {
            SendResult r = p.send(new Message(topic, "TagA", ("acl-42-" + i).getBytes(StandardCharsets.UTF_8)));
            if (r.getSendStatus().name().equals("SEND_OK")) {
                ok++;
                sentTo = r.getMessageQueue();
            }
        }
        p.shutdown();
        result("allowed: SEND_OK=%d", ok);

        refusedSend(ns, "wrong-secret", "aclAllowed", "wrongSecret", topic);
        refusedSend(ns, "unknown-key", "aclNobody", "whatever1", topic);
        refusedSend(ns, "denied-topic", "aclAllowed", "allowedSecret", "AclDenied");

        DefaultMQPullConsumer c = consumer(ns, "aclAllowed", "allowedSecret", "consumer");
        int got = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        Set<MessageQueue> mqs = c.fetchSubscribeMessageQueues(topic);
        Map<MessageQueue, Long> next = new HashMap<>();
        while (got < n && System.currentTimeMillis() < deadline) {
            for (MessageQueue mq : mqs) {
                long from = next.getOrDefault(mq, 0L);
                PullResult pr = c.pull(mq, "*", from, 32);
                next.put(mq, pr.getNextBeginOffset());
                if (pr.getPullStatus() == PullStatus.FOUND) {
                    got += pr.getMsgFoundList().size();
                }
            }
        }
        c.shutdown();
        result("consumed=%d", got);

        if (sentTo != null) {
            DefaultMQPullConsumer bad = consumer(ns, "aclAllowed", "wrongSecret", "pull_wrong");
            try {
                PullResult pr = bad.pull(sentTo, "*", 0, 32);
                result("pull-wrong-secret: accepted %s", pr.getPullStatus());
            } catch (Exception e) {
                result("pull-wrong-secret: %s", oneLine(e));
            } finally {
                bad.shutdown();
            }
        }
    }
}
