// JavaConfigDump prints, for each RocketMQ 4.9.8 config class named on the command line,
// what the configs tests compare against (java_config_dump.txt, never edited by hand):
//
//	F <field> <type> <I if @ImportantField, else -> <default value, "null" for null>
//	    one line per non-static declared field, in declaration order: the order and the
//	    values MixAll.printObjectProperties prints for `mqbroker -p`;
//	S <key> [<parameter types>]
//	    one line per setter, keyed as MixAll.properties2Object derives property names.
//
// Run on Java 17 (the dump records the machine it ran on: 2 CPUs, user.home /root,
// address 192.0.2.2, host name vm; the tests substitute those):
//
//	R=~/.m2/repository/org/apache/rocketmq
//	CP=$R/rocketmq-common/4.9.8/rocketmq-common-4.9.8.jar:$R/rocketmq-store/4.9.8/rocketmq-store-4.9.8.jar
//	CP=$CP:$R/rocketmq-remoting/4.9.8/rocketmq-remoting-4.9.8.jar:$R/rocketmq-logging/4.9.8/rocketmq-logging-4.9.8.jar
//	CP=$CP:~/.m2/repository/com/alibaba/fastjson/1.2.69_noneautotype/fastjson-1.2.69_noneautotype.jar
//	CP=$CP:~/.m2/repository/io/netty/netty-all/4.1.65.Final/netty-all-4.1.65.Final.jar
//	javac -d /tmp/jcd -cp "$CP" java/JavaConfigDump.java
//	env -u ROCKETMQ_HOME -u NAMESRV_ADDR java -cp "$CP:/tmp/jcd" JavaConfigDump \
//	  org.apache.rocketmq.common.BrokerConfig org.apache.rocketmq.remoting.netty.NettyServerConfig \
//	  org.apache.rocketmq.remoting.netty.NettyClientConfig org.apache.rocketmq.store.config.MessageStoreConfig \
//	  org.apache.rocketmq.common.namesrv.NamesrvConfig > java_config_dump.txt

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class JavaConfigDump {
    public static void main(String[] args) throws Exception {
        for (String className : args) {
            Class<?> c = Class.forName(className);
            Object o = c.getDeclaredConstructor().newInstance();
            System.out.println("## " + c.getSimpleName());
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                boolean important = false;
                for (java.lang.annotation.Annotation a : f.getAnnotations()) {
                    important |= a.annotationType().getSimpleName().equals("ImportantField");
                }
                System.out.println("F\t" + f.getName() + "\t" + f.getType().getSimpleName() + "\t" + (important ? "I" : "-") + "\t" + f.get(o));
            }
            Map<String, List<String>> setters = new TreeMap<>();
            for (Method m : c.getMethods()) {
                String mn = m.getName();
                if (!mn.startsWith("set") || mn.length() < 4 || m.getParameterTypes().length == 0) {
                    continue;
                }
                String key = mn.substring(3, 4).toLowerCase() + mn.substring(4);
                setters.computeIfAbsent(key, k -> new ArrayList<>()).add(m.getParameterTypes()[0].getSimpleName());
            }
            for (Map.Entry<String, List<String>> e : setters.entrySet()) {
                System.out.println("S\t" + e.getKey() + "\t" + e.getValue());
            }
        }
    }
}
