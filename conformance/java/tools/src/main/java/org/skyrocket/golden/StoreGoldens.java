package org.skyrocket.golden;

import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicFilterType;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageId;
import org.apache.rocketmq.store.ConsumeQueue;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.MessageExtBrokerInner;
import org.apache.rocketmq.store.StoreCheckpoint;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.index.IndexFile;

/**
 * Store-level goldens from the 4.9.8 classes: stored message records (MessageDecoder#encode),
 * ConsumeQueue units written by a real ConsumeQueue, a small IndexFile written by a real
 * IndexFile, a checkpoint written by StoreCheckpoint, and the tags/index-key hashes.
 */
public final class StoreGoldens {
    private StoreGoldens() {
    }

    private static Json.Obj decoded(byte[] rec) {
        MessageExt m = MessageDecoder.decode(ByteBuffer.wrap(rec), true, false);
        Json.Obj props = Json.obj();
        if (m.getProperties() != null) {
            for (Map.Entry<String, String> e : new TreeMap<>(m.getProperties()).entrySet()) {
                props.put(e.getKey(), e.getValue());
            }
        }
        InetSocketAddress born = (InetSocketAddress) m.getBornHost();
        InetSocketAddress store = (InetSocketAddress) m.getStoreHost();
        return Json.obj()
            .with("storeSize", m.getStoreSize())
            .with("bodyCRC", m.getBodyCRC())
            .with("queueId", m.getQueueId())
            .with("flag", m.getFlag())
            .with("queueOffset", m.getQueueOffset())
            .with("commitLogOffset", m.getCommitLogOffset())
            .with("sysFlag", m.getSysFlag())
            .with("bornTimestamp", m.getBornTimestamp())
            .with("bornHost", born.getAddress().getHostAddress())
            .with("bornPort", born.getPort())
            .with("storeTimestamp", m.getStoreTimestamp())
            .with("storeHost", store.getAddress().getHostAddress())
            .with("storePort", store.getPort())
            .with("reconsumeTimes", m.getReconsumeTimes())
            .with("preparedTransactionOffset", m.getPreparedTransactionOffset())
            .with("body", new String(m.getBody(), java.nio.charset.StandardCharsets.UTF_8))
            .with("topic", m.getTopic())
            .with("properties", props)
            .with("msgId", m.getMsgId());
    }

    public static void write(Path dir) throws Exception {
        Out out = new Out(dir);
        Path tmp = Files.createTempDirectory("skyrocket-golden-store");
        try {
            records(out);
            consumeQueue(out, tmp);
            indexFile(out, tmp);
            checkpoint(out, tmp);
            hashes(out);
            ids(out);
        } finally {
            deleteTree(tmp);
        }
        out.finish("org.skyrocket.golden.StoreGoldens (RocketMQ 4.9.8 rocketmq-common/rocketmq-store)", null);
    }

    private static void records(Out out) throws Exception {
        Object[][] variants = {
            {"message_v4_props.bin", false, false, true, "IPv4 born and store hosts, with properties (TAGS, KEYS, UNIQ_KEY, CLUSTER, color)"},
            {"message_v4_noprops.bin", false, false, false, "IPv4 born and store hosts, no properties (properties length 0)"},
            {"message_v6_props.bin", true, true, true, "IPv6 born host (sysFlag 0x10) and IPv6 store host (0x20), with properties"},
            {"message_bornv6_storev4.bin", true, false, true, "IPv6 born host, IPv4 store host"},
        };
        for (Object[] v : variants) {
            MessageExt m = Samples.messageExt((Boolean) v[1], (Boolean) v[2], (Boolean) v[3]);
            byte[] rec = MessageDecoder.encode(m, false);
            out.write((String) v[0], rec, Json.obj()
                .with("javaMethod", "MessageDecoder#encode(MessageExt, false); bodyCRC set to UtilAll.crc32(body) as the broker does")
                .with("description", v[4])
                .with("propertiesString", MessageDecoder.messageProperties2String(m.getProperties()))
                .with("decoded", decoded(rec)));
        }
    }

    private static byte[] readAll(Path p) throws Exception {
        return Files.readAllBytes(p);
    }

    private static void consumeQueue(Out out, Path tmp) throws Exception {
        MessageStoreConfig cfg = new MessageStoreConfig();
        cfg.setStorePathRootDir(tmp.resolve("store").toString());
        cfg.setStorePathCommitLog(tmp.resolve("store").resolve("commitlog").toString());
        DefaultMessageStore store = new DefaultMessageStore(cfg, null, null, new BrokerConfig());
        String cqDir = tmp.resolve("store").resolve("consumequeue").toString();
        Method put = ConsumeQueue.class.getDeclaredMethod("putMessagePositionInfo", long.class, int.class, long.class, long.class);
        put.setAccessible(true);

        long tags = MessageExtBrokerInner.tagsString2tagsCode(TopicFilterType.SINGLE_TAG, "TagA");
        ConsumeQueue cq = new ConsumeQueue(Samples.TOPIC, 1, cqDir, 20 * 5, store);
        put.invoke(cq, 4096L, 183, tags, 0L);
        put.invoke(cq, 4279L, 150, 0L, 1L);
        cq.flush(0);
        byte[] file = readAll(tmp.resolve("store/consumequeue/TopicTest/1/00000000000000000000"));
        out.write("cq_unit.bin", Arrays.copyOfRange(file, 0, 20), Json.obj()
            .with("javaMethod", "ConsumeQueue#putMessagePositionInfo(offset=4096, size=183, tagsCode=\"TagA\".hashCode(), cqOffset=0) via reflection; first 20 bytes of the file")
            .with("commitLogOffset", 4096).with("size", 183).with("tagsCode", tags));
        out.write("cq_file_two_units.bin", file, Json.obj()
            .with("javaMethod", "the whole ConsumeQueue file (mappedFileSize 5 units = 100 bytes) after units cqOffset 0 (4096,183,TagA) and 1 (4279,150, no tags = 0)")
            .with("mappedFileSize", 100));

        ConsumeQueue cq2 = new ConsumeQueue(Samples.TOPIC, 2, cqDir, 20 * 5, store);
        put.invoke(cq2, 8192L, 200, tags, 3L);
        cq2.flush(0);
        byte[] file2 = readAll(tmp.resolve("store/consumequeue/TopicTest/2/00000000000000000000"));
        out.write("cq_file_preblank.bin", file2, Json.obj()
            .with("javaMethod", "ConsumeQueue whose first unit arrives at cqOffset 3 in a fresh file: ConsumeQueue#fillPreBlank writes units (0, Integer.MAX_VALUE, 0) before it")
            .with("mappedFileSize", 100)
            .with("commitLogOffset", 8192).with("size", 200).with("tagsCode", tags).with("cqOffset", 3));
    }

    private static void indexFile(Out out, Path tmp) throws Exception {
        Path f = tmp.resolve("20231114221320000");
        IndexFile idx = new IndexFile(f.toString(), 8, 16, 0, 0);
        long t = Samples.TIMESTAMP;
        String[][] puts = {
            {"TopicTest#" + Samples.UNIQ_KEY, "0", "0"},
            {"TopicTest#KEY1", "0", "0"},
            {"TopicTest#KEY2", "0", "0"},
            {"TopicTest#7F000001303900000000000000000002", "183", "3500"},
            {"TopicTest#KEY1", "183", "3500"},
            {"TopicB#order-1", "333", "61000"},
        };
        List<Object> entries = Json.arr();
        for (String[] p : puts) {
            long off = Long.parseLong(p[1]);
            long ts = t + Long.parseLong(p[2]);
            if (!idx.putKey(p[0], off, ts)) {
                throw new IllegalStateException("putKey failed " + p[0]);
            }
            int h = idx.indexKeyHashMethod(p[0]);
            entries.add(Json.obj().with("key", p[0]).with("phyOffset", off).with("storeTimestamp", ts)
                .with("keyHash", h).with("slot", h % 8));
        }
        idx.flush();
        out.write("indexfile_small.bin", readAll(f), Json.obj()
            .with("javaMethod", "new IndexFile(name, hashSlotNum=8, indexNum=16, endPhyOffset=0, endTimestamp=0), putKey for each entry in order, flush()")
            .with("hashSlotNum", 8).with("indexNum", 16).with("puts", entries));
        idx.destroy(0);
    }

    private static void checkpoint(Out out, Path tmp) throws Exception {
        Path f = tmp.resolve("checkpoint");
        StoreCheckpoint cp = new StoreCheckpoint(f.toString());
        cp.setPhysicMsgTimestamp(Samples.TIMESTAMP + 3);
        cp.setLogicsMsgTimestamp(Samples.TIMESTAMP + 2);
        cp.setIndexMsgTimestamp(Samples.TIMESTAMP + 1);
        cp.flush();
        cp.shutdown();
        out.write("checkpoint.bin", readAll(f), Json.obj()
            .with("javaMethod", "StoreCheckpoint: set physic/logics/index timestamps, flush(), shutdown()")
            .with("physicMsgTimestamp", Samples.TIMESTAMP + 3)
            .with("logicsMsgTimestamp", Samples.TIMESTAMP + 2)
            .with("indexMsgTimestamp", Samples.TIMESTAMP + 1));
    }

    private static void hashes(Out out) throws Exception {
        IndexFile probe = null;
        String[] strings = {"", "TagA", "TagB", "*", "TagA || TagB", "标签", "Tag😀", "ÄÖÜ",
            "polygenelubricants", "TopicTest#KEY1", "TopicTest#" + Samples.UNIQ_KEY, "Aa", "BB"};
        List<Object> rows = Json.arr();
        for (String s : strings) {
            int h = s.hashCode();
            int keyHash = Math.abs(h);
            if (keyHash < 0) {
                keyHash = 0; // IndexFile#indexKeyHashMethod, checked below against the real method
            }
            rows.add(Json.obj()
                .with("string", s)
                .with("utf8Hex", Hex.of(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .with("javaHashCode", h)
                .with("tagsCode", MessageExtBrokerInner.tagsString2tagsCode(TopicFilterType.SINGLE_TAG, s))
                .with("indexKeyHash", keyHash)
                .with("indexSlotDefault", keyHash % 5000000));
        }
        // Verify the index-key hash against the real IndexFile method on a throwaway file.
        Path tmp = Files.createTempDirectory("skyrocket-golden-hash");
        try {
            probe = new IndexFile(tmp.resolve("0").toString(), 1, 1, 0, 0);
            for (Object r : rows) {
                Json.Obj o = (Json.Obj) r;
                int real = probe.indexKeyHashMethod((String) o.get("string"));
                if (real != (Integer) o.get("indexKeyHash")) {
                    throw new IllegalStateException("indexKeyHash mismatch for " + o.get("string"));
                }
            }
            probe.destroy(0);
        } finally {
            deleteTree(tmp);
        }
        out.write("hashes.json", Json.bytes(Json.obj()
            .with("javaMethods", "String#hashCode (UTF-16 code units); MessageExtBrokerInner.tagsString2tagsCode(SINGLE_TAG, s) (sign-extended to long; \"\" gives 0); IndexFile#indexKeyHashMethod = abs(hashCode), 0 when abs overflows; slot = keyHash % 5000000 (default maxHashSlotNum)")
            .with("rows", rows)), Json.obj().with("javaMethod", "see the file's javaMethods"));
    }

    private static void ids(Out out) throws Exception {
        List<Object> rows = Json.arr();
        Object[][] hosts = {{"127.0.0.1", 10911, 0L}, {"10.1.2.3", 10911, 4096L}, {"::1", 10911, 1073741824L},
            {"fe80::1:2:3:4", 10922, 123456789L}};
        for (Object[] h : hosts) {
            InetSocketAddress a = new InetSocketAddress(java.net.InetAddress.getByName((String) h[0]), (Integer) h[1]);
            String id = MessageDecoder.createMessageId(a, (Long) h[2]);
            MessageId back = MessageDecoder.decodeMessageId(id);
            rows.add(Json.obj().with("host", h[0]).with("port", h[1]).with("offset", h[2]).with("offsetMsgId", id)
                .with("decodedAddress", ((InetSocketAddress) back.getAddress()).getAddress().getHostAddress())
                .with("decodedPort", ((InetSocketAddress) back.getAddress()).getPort())
                .with("decodedOffset", back.getOffset()));
        }
        List<Object> uniq = Json.arr();
        for (String id : new String[] {Samples.UNIQ_KEY, "0A0102030D8018B4AAC2024E3F1C0007",
            "FE800000000000000001000200030004303918B4AAC2024E3F1C0007"}) {
            uniq.add(Json.obj().with("uniqKey", id)
                .with("ip", MessageClientIDSetter.getIPStrFromID(id))
                .with("pid", MessageClientIDSetter.getPidFromID(id)));
        }
        out.write("ids.json", Json.bytes(Json.obj()
            .with("offsetMsgIds", rows)
            .with("offsetMsgIdMethod", "MessageDecoder.createMessageId(InetSocketAddress, offset) / decodeMessageId (upper-case hex of ip ‖ int32 port ‖ int64 offset)")
            .with("uniqKeys", uniq)
            .with("uniqKeyMethod", "MessageClientIDSetter.getIPStrFromID / getPidFromID (createUniqID itself depends on time, pid and class loader: not reproducible)")),
            Json.obj().with("javaMethod", "see the file"));
    }

    static void deleteTree(Path p) throws Exception {
        if (!Files.exists(p)) {
            return;
        }
        try (java.util.stream.Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }
}
