package org.skyrocket.scenarios;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

/** Collects what a consumer received, keyed by body (every scenario sends distinct bodies). */
public final class Received {
    private final Map<String, List<MessageExt>> byBody = new LinkedHashMap<>();
    private int total;

    public synchronized void add(List<MessageExt> msgs) {
        for (MessageExt m : msgs) {
            byBody.computeIfAbsent(body(m), k -> new ArrayList<>()).add(m);
            total++;
        }
    }

    /** Distinct bodies seen. */
    public synchronized int distinct() {
        return byBody.size();
    }

    /** Deliveries, duplicates included. */
    public synchronized int total() {
        return total;
    }

    /** The first delivery of body, or null. */
    public synchronized MessageExt first(String body) {
        List<MessageExt> l = byBody.get(body);
        return l == null ? null : l.get(0);
    }

    public synchronized List<MessageExt> all(String body) {
        List<MessageExt> l = byBody.get(body);
        return l == null ? List.of() : new ArrayList<>(l);
    }

    public synchronized List<String> bodies() {
        return new ArrayList<>(byBody.keySet());
    }

    /** A concurrent listener that records every message and acknowledges it. */
    public MessageListenerConcurrently listener() {
        return (msgs, ctx) -> {
            add(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
    }

    public static String body(MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }
}
