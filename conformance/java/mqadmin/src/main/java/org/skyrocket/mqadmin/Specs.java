package org.skyrocket.mqadmin;

import java.util.ArrayList;
import java.util.List;

/**
 * The matrix: one spec per mqadmin 4.9.8 sub-command, in the order they run. Scratch
 * names (MatrixScratch*) keep the destructive commands away from the fixture's topic and
 * groups; commands that change shared state come in pairs (wipeWritePerm then
 * addWritePerm) or run last (long-running monitors).
 */
final class Specs {
    private Specs() {
    }


    static List<Spec> all() {
        List<Spec> l = new ArrayList<>();

        // Cluster, broker and NameServer views.
        l.add(Spec.works("clusterList").run("clusterList", "-n", "{ns}")
            .line("^\\{cluster\\}\\s+\\{brokerName\\}\\s+0\\s+\\{broker\\}\\s+V4_9_\\d+\\s").clean());
        l.add(Spec.works("brokerStatus").run("brokerStatus", "-n", "{ns}", "-b", "{broker}")
            .line("^brokerVersionDesc\\s*: V4_9_\\d+$").line("^msgPutTotalTodayNow\\s*: [1-9]")
            .line("^putTps\\s*:").line("^commitLogDirCapacity\\s*: Total : ").clean());
        l.add(Spec.works("topicList").run("topicList", "-n", "{ns}").line("^\\{topic\\}$").clean());
        l.add(Spec.works("topicRoute").run("topicRoute", "-n", "{ns}", "-t", "{topic}")
            .line("\"brokerName\"\\s*:\\s*\"\\{brokerName\\}\"").line("\"writeQueueNums\"\\s*:\\s*4").clean());
        l.add(Spec.works("topicStatus").run("topicStatus", "-n", "{ns}", "-t", "{topic}")
            .line("^#Broker Name\\s+#QID\\s+#Min Offset\\s+#Max Offset").line("^\\{brokerName\\}\\s+\\d+\\s+0\\s+\\d+").clean());
        l.add(Spec.works("topicClusterList").run("topicClusterList", "-n", "{ns}", "-t", "{topic}")
            .line("^\\{cluster\\}$").clean());
        l.add(Spec.works("allocateMQ").run("allocateMQ", "-n", "{ns}", "-t", "{topic}", "-i", "127.0.0.1,127.0.0.2")
            .line("\"127.0.0.1\"").line("\"queueId\"").clean());
        l.add(Spec.works("getNamesrvConfig").run("getNamesrvConfig", "-n", "{ns}")
            .line("kvConfigPath\\s*=").clean());
        l.add(Spec.works("updateNamesrvConfig").run("updateNamesrvConfig", "-n", "{ns}", "-k", "clusterTest", "-v", "false")
            .line("update name server config success").clean());
        l.add(Spec.works("getBrokerConfig").run("getBrokerConfig", "-n", "{ns}", "-b", "{broker}")
            .line("brokerName\\s*=\\s*\\{brokerName\\}").line("storePathRootDir\\s*=").clean());
        l.add(Spec.works("updateBrokerConfig")
            .run("updateBrokerConfig", "-n", "{ns}", "-b", "{broker}", "-k", "flushConsumerOffsetInterval", "-v", "5001")
            .line("update broker config success").clean()
            .run("getBrokerConfig", "-n", "{ns}", "-b", "{broker}").line("flushConsumerOffsetInterval\\s*=\\s*5001").clean()
            .note("checked by reading the value back with getBrokerConfig"));

        // Key-value config and write permission (NameServer).
        l.add(Spec.works("updateKvConfig").run("updateKvConfig", "-n", "{ns}", "-s", "MatrixNamespace", "-k", "k1", "-v", "v1")
            .line("create or update kv config to namespace success").clean());
        l.add(Spec.works("deleteKvConfig").run("deleteKvConfig", "-n", "{ns}", "-s", "MatrixNamespace", "-k", "k1")
            .line("delete kv config from namespace success").clean());
        l.add(Spec.works("updateOrderConf")
            .run("updateOrderConf", "-n", "{ns}", "-t", "MatrixScratchOrder", "-m", "put", "-v", "{brokerName}:4")
            .line("update orderConf success").clean()
            .run("updateOrderConf", "-n", "{ns}", "-t", "MatrixScratchOrder", "-m", "get")
            .line("get orderConf success.*\\{brokerName\\}:4").clean()
            .run("updateOrderConf", "-n", "{ns}", "-t", "MatrixScratchOrder", "-m", "delete")
            .line("delete orderConf success").clean());
        l.add(Spec.works("wipeWritePerm").run("wipeWritePerm", "-n", "{ns}", "-b", "{brokerName}")
            .line("wipe write perm of broker\\[\\{brokerName\\}\\] in name server\\[.*\\] OK, \\d+").clean()
            .run("topicRoute", "-n", "{ns}", "-t", "{topic}").line("\"perm\"\\s*:\\s*4").clean()
            .note("the route read back shows the topic without write permission"));
        l.add(Spec.works("addWritePerm").run("addWritePerm", "-n", "{ns}", "-b", "{brokerName}")
            .line("add write perm of broker\\[\\{brokerName\\}\\] in name server\\[.*\\] OK, \\d+").clean()
            .run("topicRoute", "-n", "{ns}", "-t", "{topic}").line("\"perm\"\\s*:\\s*6").clean()
            .note("the route read back shows write permission again"));

        // Topics and subscription groups.
        l.add(Spec.works("updateTopic").run("updateTopic", "-n", "{ns}", "-c", "{cluster}", "-t", "MatrixScratchTopic", "-r", "2", "-w", "2")
            .line("create topic to .* success").clean());
        l.add(Spec.works("updateTopicPerm").run("updateTopicPerm", "-n", "{ns}", "-c", "{cluster}", "-t", "MatrixScratchTopic", "-p", "4")
            .line("update topic perm from 6 to 4 in .* success").clean()
            .run("topicRoute", "-n", "{ns}", "-t", "MatrixScratchTopic").line("\"perm\"\\s*:\\s*4").clean());
        l.add(Spec.works("deleteTopic").run("deleteTopic", "-n", "{ns}", "-c", "{cluster}", "-t", "MatrixScratchTopic")
            .line("delete topic \\[MatrixScratchTopic\\] from cluster \\[\\{cluster\\}\\] success").clean()
            .run("topicList", "-n", "{ns}").line("^\\{topic\\}$").noLine("^MatrixScratchTopic$").clean());
        l.add(Spec.works("updateSubGroup").run("updateSubGroup", "-n", "{ns}", "-c", "{cluster}", "-g", "MatrixScratchGroup", "-r", "5")
            .line("create subscription group to .* success").clean());
        l.add(Spec.works("getConsumerConfig").run("getConsumerConfig", "-n", "{ns}", "-g", "MatrixScratchGroup")
            .line("^retryMaxTimes\\s+=\\s+5$").clean());
        l.add(Spec.works("deleteSubGroup").run("deleteSubGroup", "-n", "{ns}", "-c", "{cluster}", "-g", "MatrixScratchGroup", "-r", "true")
            .line("delete subscription group \\[MatrixScratchGroup\\] from broker .* success").clean());

        // Messages.
        l.add(Spec.works("sendMessage").run("sendMessage", "-n", "{ns}", "-t", "{topic}", "-p", "hello from mqadmin", "-k", "MatrixSent", "-c", "TagS")
            .line("SEND_OK").clean());
        l.add(Spec.works("queryMsgById").run("queryMsgById", "-n", "{ns}", "-i", "{offsetMsgId}")
            .line("^Topic:\\s+\\{topic\\}$").line("^Keys:\\s+\\[MatrixKey-0\\]$").line("^MessageTrack \\[consumerGroup=\\{group\\}, trackType=CONSUMED").clean());
        l.add(Spec.works("queryMsgByKey").run("queryMsgByKey", "-n", "{ns}", "-t", "{topic}", "-k", "MatrixKey-0")
            .line("^#Message ID").line("^\\{uniqMsgId\\}").clean());
        l.add(Spec.works("queryMsgByUniqueKey").run("queryMsgByUniqueKey", "-n", "{ns}", "-t", "{topic}", "-i", "{uniqMsgId}")
            .line("^Topic:\\s+\\{topic\\}$").line("^Keys:\\s+\\[MatrixKey-0\\]$").clean());
        l.add(Spec.works("queryMsgByOffset").run("queryMsgByOffset", "-n", "{ns}", "-t", "{topic}", "-b", "{brokerName}", "-i", "0", "-o", "0")
            .line("^Topic:\\s+\\{topic\\}$").line("^Queue ID:\\s+0$").clean());
        l.add(Spec.works("queryMsgTraceById").run("queryMsgTraceById", "-n", "{ns}", "-i", "{traceMsgId}")
            .line("Pub").clean());
        l.add(Spec.works("printMsg").run("printMsg", "-n", "{ns}", "-t", "{topic}", "-d", "true")
            .line("MSGID: ").line("matrix message").clean());
        l.add(Spec.works("printMsgByQueue").run("printMsgByQueue", "-n", "{ns}", "-t", "{topic}", "-a", "{brokerName}", "-i", "0", "-p", "true", "-d", "true")
            .line("MSGID: ").clean());
        l.add(Spec.works("consumeMessage").run("consumeMessage", "-n", "{ns}", "-t", "{topic}", "-b", "{brokerName}", "-i", "0", "-o", "0", "-c", "2")
            .line("Consume ok").clean());
        l.add(Spec.works("queryCq").run("queryCq", "-n", "{ns}", "-t", "{topic}", "-q", "0", "-i", "0", "-c", "3", "-b", "{broker}", "-g", "{group}")
            .line("^max: \\d+, min: 0$").line("^ConsumeQueueData\\{physicOffset=\\d+, physicSize=\\d+, tagsCode=").clean());
        l.add(Spec.works("sendMsgStatus").run("sendMsgStatus", "-n", "{ns}", "-b", "{brokerName}", "-c", "3")
            .line("SEND_OK").clean());
        l.add(Spec.works("checkMsgSendRT").run("checkMsgSendRT", "-n", "{ns}", "-t", "{topic}", "-a", "5", "-s", "64")
            .line("true").clean());

        // Producers and consumers.
        l.add(Spec.works("producerConnection").run("producerConnection", "-n", "{ns}", "-g", "{producerGroup}", "-t", "{topic}")
            .line("JAVA").clean());
        l.add(Spec.works("producer").run("producer", "-n", "{ns}", "-b", "{broker}")
            .line("^producer group \\(\\{producerGroup\\}\\) instance : clientId=.*language=JAVA").clean());
        l.add(Spec.works("consumerConnection").run("consumerConnection", "-n", "{ns}", "-g", "{group}")
            .line("\\{clientId\\}").line("CONSUME_PASSIVELY").clean());
        l.add(Spec.works("consumerProgress").run("consumerProgress", "-n", "{ns}", "-g", "{group}")
            .line("^\\{topic\\}\\s+\\{brokerName\\}\\s+0\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d{4}-").line("^Consume TPS: [0-9.]*[1-9]").line("^Diff Total:\\s+\\d+$").clean());
        l.add(Spec.works("consumerStatus").run("consumerStatus", "-n", "{ns}", "-g", "{group}")
            .line("\\{clientId\\}").clean());
        l.add(Spec.works("brokerConsumeStats").run("brokerConsumeStats", "-n", "{ns}", "-b", "{broker}")
            .line("^\\{topic\\}\\s+\\{group\\}\\s+\\{brokerName\\}").line("^Diff Total:").clean());
        l.add(Spec.works("statsAll").run("statsAll", "-n", "{ns}", "-t", "{topic}")
            .line("^\\{topic\\}\\s+\\{group\\}\\s+\\d+\\s+[\\d.]+\\s+[\\d.]+\\s+[1-9]\\d*\\s+[1-9]\\d*$").clean());
        l.add(Spec.works("cloneGroupOffset").run("cloneGroupOffset", "-n", "{ns}", "-s", "{group}", "-d", "MatrixScratchClone", "-t", "{topic}")
            .line("clone group offset success").clean()
            .run("statsAll", "-n", "{ns}", "-t", "{topic}").line("^\\{topic\\}\\s+MatrixScratchClone\\s").clean()
            .note("statsAll read back lists the destination group: it now has offsets on the topic"));
        l.add(Spec.works("resetOffsetByTime").run("resetOffsetByTime", "-n", "{ns}", "-g", "{group}", "-t", "{topic}", "-s", "now")
            .line("rollback consumer offset by specified").clean());
        l.add(Spec.works("skipAccumulatedMessage").run("skipAccumulatedMessage", "-n", "{ns}", "-g", "{group}", "-t", "{topic}")
            .line("^\\{brokerName\\}\\s+0\\s").clean());

        // Store maintenance.
        l.add(Spec.works("cleanExpiredCQ").run("cleanExpiredCQ", "-n", "{ns}", "-b", "{broker}").line("success").clean());
        l.add(Spec.works("deleteExpiredCommitLog").run("deleteExpiredCommitLog", "-n", "{ns}", "-b", "{broker}").line("success").clean());
        l.add(Spec.works("cleanUnusedTopic").run("cleanUnusedTopic", "-n", "{ns}", "-b", "{broker}").line("success").clean());

        // Export.
        l.add(Spec.works("exportMetadata").run("exportMetadata", "-n", "{ns}", "-c", "{cluster}", "-f", "{work}/export")
            .line("export .* success").clean());
        l.add(Spec.works("exportConfigs").run("exportConfigs", "-n", "{ns}", "-c", "{cluster}", "-f", "{work}/export")
            .line("export .* success").clean());
        l.add(Spec.works("exportMetrics").run("exportMetrics", "-n", "{ns}", "-c", "{cluster}", "-f", "{work}/export")
            .line("export .* success").clean());

        // ACL: the broker runs with aclEnable=true and 127.0.0.1 in its global whitelist (matrix.sh),
        // so every command of this matrix passes the ACL; {aclFile} is the broker's plain_acl.yml.
        l.add(Spec.works("updateAclConfig")
            .run("updateAclConfig", "-n", "{ns}", "-b", "{broker}", "-a", "MatrixAK", "-s", "MatrixSK12345", "-t", "MatrixT=PUB")
            .line("create or update plain access config to \\{broker\\} success\\."));
        l.add(Spec.works("clusterAclConfigVersion").run("clusterAclConfigVersion", "-n", "{ns}", "-b", "{broker}")
            .line("^\\{cluster\\}\\s+\\{brokerName\\}\\s+\\{broker\\}\\s+\\S*plain_acl\\.yml\\s+[1-9]\\d*\\s")
            .line("get broker's plain access config version success\\."));
        l.add(Spec.works("deleteAclConfig").run("deleteAclConfig", "-n", "{ns}", "-b", "{broker}", "-a", "MatrixAK")
            .line("delete plain access config account from \\{broker\\} success\\."));
        l.add(Spec.works("updateGlobalWhiteAddr")
            .run("updateGlobalWhiteAddr", "-n", "{ns}", "-b", "{broker}", "-g", "127.0.0.1,10.10.103.*", "-p", "{aclFile}")
            .line("update global white remote addresses to \\{broker\\} success\\."));

        // Monitors: they never return; checked once their first report is out.
        l.add(Spec.works("clusterRT").run("clusterRT", "-n", "{ns}", "-c", "{cluster}", "-a", "3", "-i", "1")
            .longRunning(30_000).line("^\\{cluster\\}\\s+\\{brokerName\\}\\s+[\\d.]+\\s+3\\s+0\\s"));
        l.add(Spec.works("startMonitoring").run("startMonitoring", "-n", "{ns}").longRunning(15_000).clean()
            .run("consumerConnection", "-n", "{ns}", "-g", "__MONITOR_CONSUMER").retryFor(15_000)
            .line("OFFSET_MOVED_EVENT").line("CONSUME_PASSIVELY").clean()
            .note("the monitor's consumer (group __MONITOR_CONSUMER, topic OFFSET_MOVED_EVENT) is read back online; its "
                + "rounds (every 20 s) only log"));
        return l;
    }
}
