// Package configs holds Skyrocket's typed configurations with Java's property names and
// RocketMQ 4.9.8's defaults, the sample config files, and Java's rules for loading,
// printing and updating them.
//
// # The objects
//
//	NamesrvConfig       Java NamesrvConfig          (mqnamesrv)
//	NettyServerConfig   Java NettyServerConfig      (both; listenPort 9876 / 10911)
//	NettyClientConfig   Java NettyClientConfig      (broker, outbound)
//	BrokerConfig        Java BrokerConfig           (broker)
//	MessageStoreConfig  Java MessageStoreConfig     (broker; paths in paths.go)
//
// Each struct has one field per Java field, in Java's declaration order, tagged
// `prop:"<property name>[,important][,nullable][,field=<Java field name>]"`. The property
// name is what Java's MixAll.properties2Object derives from the setter (the Java field
// name except for isEnableBatchPush, whose property is enableBatchPush); "important" is
// Java's @ImportantField (`-m`); "nullable" marks String fields whose Java default is
// null, which "" stands for. DefaultXxx returns Java's defaults; defaults_test.go checks
// every one against testdata/java_config_dump.txt, printed by the real Java classes.
//
// Broker and Namesrv bundle the objects of one process with what Java's Configuration
// keeps beside them (the file's properties, the persist path), and give:
//
//	LoadFile / Load      -c file: Apply + remember the file's keys (unknown keys returned)
//	Resolve (broker)     BrokerStartup's rules after loading (brokerId, haListenPort, -n check)
//	Print / PrintImportant   -p / -m text: "name=value" lines
//	AllProperties / PropertiesText   GET_BROKER_CONFIG / GET_NAMESRV_CONFIG body
//	Update               UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG (black list, copy-on-write)
//
// # Parsing values
//
// Apply follows properties2Object: a property sets every target field of that name;
// ints and longs are decimal, booleans are true only for "true" (any case), enums take
// the Java constant names. Unlike Java, values are trimmed, and values that do not parse
// are reported (ErrInvalidValue) instead of silently ignored.
//
// # Samples
//
// broker.conf (Java's distribution sample plus enablePropertyFilter=true), namesrv.conf,
// and the cluster layouts Java ships: 2m-2s-sync, 2m-2s-async, 2m-noslave. They are
// embedded as Samples; a test loads each and fails on any unknown key, and checks the
// 2m-2s-* files against Java's 4.9.8 samples key by key.
//
// run-ha/ is `make run-ha`'s local pair (namesrv.conf, broker-a.properties for a
// SYNC_MASTER, broker-a-s.properties for its SLAVE, run.sh starting the three): not
// embedded; a test loads the files and checks their ports against each other, `make
// run`'s and run.sh's.
package configs
