// Package compat holds the Java-isms Skyrocket must reproduce byte for byte:
// String.hashCode over UTF-16 code units, Double.toString, fastjson's JSON dialect
// (unquoted numeric keys, object-keyed maps, omitted nulls, its string escapes and
// PrettyFormat layout), java.util.Properties parsing and printing, Java's time formats,
// UtilAll.crc32, RemotingUtil.getLocalAddress, and MixAll.string2File's config-file
// writes (made crash-safe).
//
// It is a leaf: it imports nothing from this module. Everything here is pure except the
// file helpers (String2File, File2String, LoadConfigFile) and the host lookups
// (LocalAddress, LocalIPv4, LocalHostName).
//
// # fastjson's dialect
//
// Java writes JSON with fastjson 1.2.69: keys of beans in alphabetical order, null fields
// omitted, and map keys that are not Strings written bare:
//
//	consumerOffset.json   {"offsetTable":{"TopicA@GroupA":{0:120,1:98}}}
//	ResetOffsetBody       {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:100}}
//
// NormalizeJSON turns that into standard JSON (bare keys quoted; an object key becomes a
// string holding its compact text, read back with ParseMessageQueueKey). The config
// files are written with JSON.toJSONString(obj, true); PrettyFastJSON reproduces that
// layout from compact text (tabs; fastjson's quirk for non-String-keyed maps):
//
//	{
//	→"offsetTable":{
//	→→"TopicA@GroupA":{0:120,1:98
//	→→}
//	→}
//	}
//
// (→ is a tab). Goldens under testdata/fastjson were printed by the real fastjson from the
// real RocketMQ classes (testdata/java/CompatGolden.java) and are never edited by hand.
//
// # Config files on disk
//
// String2File writes <path>.tmp, fsyncs it, copies the previous content to <path>.bak,
// renames the temp file over <path> and fsyncs the directory. LoadConfigFile reads
// <path>, falling back to <path>.bak when <path> is missing, empty or fails the caller's
// parse check (Java: ConfigManager#load / #loadBak).
package compat
