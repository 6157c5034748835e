package org.skyrocket.scenarios.v42;

import java.util.List;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.skyrocket.scenarios.Ctx;
import org.skyrocket.scenarios.Received;
import org.skyrocket.scenarios.Scenario;
import org.skyrocket.scenarios.Tx;

/**
 * The 4.2.0-only variants. 4.2.0 has no request-reply, lite pull consumer, message trace or
 * TransactionListener; its transactions use LocalTransactionExecuter + TransactionCheckListener.
 */
public final class VersionScenarios {
    private VersionScenarios() {
    }

    public static List<Scenario> all() {
        return List.of(Scenario.of("transaction-check-back", VersionScenarios::transaction));
    }

    static void transaction(Ctx c) throws Exception {
        String topic = c.name("TxT");
        c.createTopic(topic, 2);
        Received r = new Received();
        c.push(c.name("CG"), topic, "*", r.listener(), x -> { });
        Tx tx = new Tx();
        TransactionMQProducer p = c.startProducer(new TransactionMQProducer(c.name("TPG")),
            x -> x.setTransactionCheckListener(tx::checkBack));
        tx.sendAll(c, topic, m -> p.sendMessageInTransaction(m, (msg, arg) -> Tx.local(msg), null));
        tx.verify(c, topic, r);
    }
}
