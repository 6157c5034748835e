package org.skyrocket.client42;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The old-client smoke check: the RocketMQ 4.2.0 producer sends one message and the 4.2.0 pull
 * consumer reads it back. Usage: Smoke42Main NAMESRV_ADDR BROKER_ADDR. Exit 0 and
 * "smoke42: ok ..." on success. The old-client scenarios will grow next to this class.
 */
public final class Smoke42Main {
    private Smoke42Main() {
    }

    public static void main(String[] args) {
        int rc = 0;
        try {
            run(args[0], args[1]);
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    private static void run(String namesrv, String brokerAddr) throws Exception {
        String topic = "Smoke42Topic";
        DefaultMQAdminExt admin = new DefaultMQAdminExt("smoke42_admin");
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName("smoke42_admin");
        admin.start();
        admin.createAndUpdateTopicConfig(brokerAddr, new TopicConfig(topic, 2, 2, 6));
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                TopicRouteData r = admin.examineTopicRouteInfo(topic);
                if (r != null && !r.getQueueDatas().isEmpty()) {
                    break;
                }
            } catch (Exception e) {
                // not routed yet
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("no route for " + topic);
            }
            Thread.sleep(100);
        }

        DefaultMQProducer producer = new DefaultMQProducer("smoke42_producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("smoke42_producer");
        producer.setSendMsgTimeout(10000);
        producer.start();
        String body = "smoke42 " + System.nanoTime();
        SendResult sr = producer.send(new Message(topic, "TagS", "k-smoke42", body.getBytes(StandardCharsets.UTF_8)));
        if (sr.getSendStatus() != SendStatus.SEND_OK) {
            throw new IllegalStateException("send status " + sr.getSendStatus());
        }

        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer("smoke42_consumer");
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("smoke42_consumer");
        consumer.start();
        MessageExt got = null;
        deadline = System.currentTimeMillis() + 30_000;
        while (got == null && System.currentTimeMillis() < deadline) {
            PullResult pr = consumer.pull(sr.getMessageQueue(), "TagS", sr.getQueueOffset(), 1);
            if (pr.getPullStatus() == PullStatus.FOUND) {
                got = pr.getMsgFoundList().get(0);
            } else {
                Thread.sleep(100);
            }
        }
        if (got == null) {
            throw new IllegalStateException("message not pulled back from " + sr.getMessageQueue());
        }
        if (!body.equals(new String(got.getBody(), StandardCharsets.UTF_8)) || !"TagS".equals(got.getTags())
            || !"k-smoke42".equals(got.getKeys()) || !sr.getMsgId().equals(got.getMsgId())) {
            throw new IllegalStateException("pulled message differs: " + got);
        }
        System.out.printf("smoke42: ok sent and pulled msgId=%s offsetMsgId=%s queue=%d offset=%d%n",
            sr.getMsgId(), sr.getOffsetMsgId(), sr.getMessageQueue().getQueueId(), sr.getQueueOffset());
        consumer.shutdown();
        producer.shutdown();
        admin.shutdown();
    }
}
