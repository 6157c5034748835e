package org.skyrocket.scenarios.v49;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.skyrocket.scenarios.Ctx;

/** Reads one message by queue offset with a throw-away pull consumer. */
final class SendScenarioAccess {
    private SendScenarioAccess() {
    }

    static MessageExt pullAt(Ctx c, MessageQueue mq, long offset) throws Exception {
        DefaultMQPullConsumer pc = c.pull(c.name("reader"));
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            PullResult pr = pc.pull(mq, "*", offset, 1);
            if (pr.getPullStatus() == PullStatus.FOUND) {
                return pr.getMsgFoundList().get(0);
            }
            Ctx.check(System.currentTimeMillis() < deadline, "pull %s at %d: %s", mq, offset, pr.getPullStatus());
            Thread.sleep(50);
        }
    }
}
