// Package server wires Skyrocket's pieces into processes: it maps the Java configuration
// objects of package configs (broker.conf, namesrv.conf, with Java's property names and
// defaults) onto the runtime options of server/broker, server/namesrv and store, and
// starts and stops a NameServer, a Broker, or both in one process (Node). The binaries
// in cmd/ are thin: flags, logging, signals, then this package.
//
// # From properties to options
//
//	broker.conf ──configs.Broker.LoadFile──▶ configs.Broker ──Resolve──▶ BrokerOptions ──▶ broker.Options
//	                                         (BrokerConfig, NettyServerConfig,  (broker.OptionsFrom)  (store.Config inside,
//	                                          NettyClientConfig, MessageStoreConfig)                   Config: the snapshot)
//
//	namesrv.conf ──configs.Namesrv.LoadFile──▶ configs.Namesrv ──NamesrvOptions──▶ namesrv.Options
//	                                                           └─NamesrvConfiguration (GET/UPDATE_NAMESRV_CONFIG)
//
// Every Java property is either mapped (server/broker's options_from.go and
// namesrv_options.go say onto what) or listed in ineffective.go with the reason it has no effect in Skyrocket; a test
// fails when configs grows a property that is in neither list. Properties that would
// change what a client can rely on and that Skyrocket does not implement (DLedger, ACL,
// the address server, multi-path CommitLogs) are refused with ErrUnsupported rather than
// ignored.
//
// # Units
//
// Java keeps durations as int/long milliseconds (fileReservedTime in hours); the options
// use time.Duration. Java's pool sizes and queue capacities map to the broker's bounded
// pools; brokerFastFailureEnable=false turns the queue wait limits off (zero).
//
// # Shutdown order
//
// Node.Shutdown stops the broker first (it unregisters from the NameServers, answers held
// pulls, persists consumer offsets and closes the store, which removes the abort file),
// then the NameServer, so that in the all-in-one process the broker's UNREGISTER_BROKER
// still finds its NameServer.
package server
