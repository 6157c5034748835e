package configs

import "embed"

// Samples holds the sample configuration files shipped in this directory, so binaries can
// print or install them: broker.conf, namesrv.conf and the cluster layouts Java ships
// under distribution/conf (2m-2s-sync, 2m-2s-async, 2m-noslave; each with
// broker-a.properties, broker-b.properties and the slaves' -s files).
//
//go:embed broker.conf namesrv.conf 2m-2s-sync 2m-2s-async 2m-noslave
var Samples embed.FS
