package org.skyrocket.scenarios;

import static org.skyrocket.scenarios.Ctx.check;
import static org.skyrocket.scenarios.Ctx.eventually;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The transaction scenario's plan and checks, shared by the 4.9.x (TransactionListener) and
 * 4.2.0 (LocalTransactionExecuter + TransactionCheckListener) variants. Bodies say the outcome:
 * "commit-i" and "rollback-i" are decided by the local transaction; "check-commit-i" and
 * "check-rollback-i" answer UNKNOW there and are decided by the broker's check-back (the broker
 * runs with transactionCheckInterval and transactionTimeOut of about a second).
 */
public final class Tx {
    public static final String[] KINDS = {"commit", "rollback", "check-commit", "check-rollback"};
    public final Map<String, Message> sent = new HashMap<>();
    public final Map<String, TransactionSendResult> results = new HashMap<>();
    /** Check-backs the producer answered, by body. */
    public final Map<String, MessageExt> checked = new ConcurrentHashMap<>();
    public final List<String> errors = new java.util.ArrayList<>();

    public static LocalTransactionState local(Message m) {
        String b = new String(m.getBody(), java.nio.charset.StandardCharsets.UTF_8);
        if (b.startsWith("commit")) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }
        if (b.startsWith("rollback")) {
            return LocalTransactionState.ROLLBACK_MESSAGE;
        }
        return LocalTransactionState.UNKNOW;
    }

    public LocalTransactionState checkBack(MessageExt m) {
        String b = Received.body(m);
        checked.put(b, m);
        if (b.startsWith("check-commit")) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }
        if (b.startsWith("check-rollback")) {
            return LocalTransactionState.ROLLBACK_MESSAGE;
        }
        synchronized (errors) {
            errors.add("check-back for " + b + ", which the local transaction decided");
        }
        return LocalTransactionState.UNKNOW;
    }

    /** Sends 2 messages of each kind through send (the version's sendMessageInTransaction). */
    public interface Sender {
        TransactionSendResult send(Message m) throws Exception;
    }

    public void sendAll(Ctx c, String topic, Sender s) throws Exception {
        for (String kind : KINDS) {
            for (int i = 0; i < 2; i++) {
                String body = kind + "-" + i;
                Message m = Ctx.msg(topic, "TagTx", body);
                TransactionSendResult r = s.send(m);
                check(r.getSendStatus() == SendStatus.SEND_OK, "%s: half message status %s", body, r.getSendStatus());
                check(r.getLocalTransactionState() == local(m), "%s: local state %s", body, r.getLocalTransactionState());
                sent.put(body, m);
                results.put(body, r);
            }
        }
    }

    public void verify(Ctx c, String topic, Received r) throws Exception {
        Set<String> want = new HashSet<>();
        Set<String> wantChecks = new HashSet<>();
        for (String b : sent.keySet()) {
            if (b.startsWith("commit") || b.startsWith("check-commit")) {
                want.add(b);
            }
            if (b.startsWith("check-")) {
                wantChecks.add(b);
            }
        }
        eventually("check-backs for " + wantChecks, 45_000, () -> checked.keySet().containsAll(wantChecks));
        eventually("committed messages " + want, 30_000, () -> r.distinct() >= want.size());
        Thread.sleep(1000); // a rolled-back message, if delivered by mistake, would come now
        check(errors.isEmpty(), "%s", errors);
        check(new HashSet<>(r.bodies()).equals(want), "consumer received %s, want %s", r.bodies(), want);
        check(wantChecks.equals(checked.keySet()), "checked %s, want %s", checked.keySet(), wantChecks);
        for (String b : want) {
            MessageExt got = r.first(b);
            c.checkMessage(got, sent.get(b), null, 0);
            check(got.getMsgId().equals(results.get(b).getMsgId()), "%s: msgId %s, send returned %s", b, got.getMsgId(),
                results.get(b).getMsgId());
            // Java stores the half message's properties string as it was, TRAN_MSG included
            // (EndTransactionProcessor#endMessageTransaction clears it from the map only).
            check("true".equals(got.getProperty("TRAN_MSG")), "%s: committed message TRAN_MSG %s", b, got.getProperty("TRAN_MSG"));
        }
        for (String b : wantChecks) {
            MessageExt m = checked.get(b);
            check(topic.equals(m.getTopic()), "check-back of %s carries topic %s", b, m.getTopic());
            check("TagTx".equals(m.getTags()) && ("key-" + b).equals(m.getKeys()), "check-back of %s: tags %s keys %s", b,
                m.getTags(), m.getKeys());
            check(results.get(b).getMsgId().equals(m.getProperty("UNIQ_KEY")), "check-back of %s: UNIQ_KEY %s, send returned %s",
                b, m.getProperty("UNIQ_KEY"), results.get(b).getMsgId());
            check("true".equals(m.getProperty("TRAN_MSG")), "check-back of %s: TRAN_MSG %s", b, m.getProperty("TRAN_MSG"));
        }
    }
}
