// Package meta holds the broker's metadata: topics, subscription groups and committed
// consumer offsets (Java: TopicConfigManager, SubscriptionGroupManager and
// ConsumerOffsetManager over ConfigManager), with the names and rules of TopicValidator
// and MixAll that decide which topics and groups may exist. It never imports the broker:
// the handlers in server/broker call it.
//
// # What it owns
//
//   - config/topics.json (TopicManager), config/subscriptionGroup.json
//     (SubscriptionManager) and config/consumerOffset.json (OffsetManager): loaded at
//     start, falling back to <file>.bak, written atomically in fastjson's pretty layout so
//     a Java broker reads them back (configfile.go).
//   - The in-memory tables and their data versions. Topic configs are an immutable map
//     swapped by writers, so a send or pull reads them with one atomic load; groups and
//     offsets sit behind read-write locks.
//   - Auto-creation: topics from TBW102 for a send (CreateInSend), %RETRY% / %DLQ% and
//     system topics (CreateIfAbsent), groups on first use (SubscriptionManager.Find). The
//     managers refuse names that ValidateTopic / ValidateGroup refuse, whatever the caller.
//     They do not announce new topics: the caller learns that it created one and
//     registers it with the NameServers.
//   - The background writer (laterWriter): topics and groups auto-created on an event
//     loop mark their file and return; one goroutine per file writes the latest content,
//     one write per burst. Admin changes (Update, Delete, ReplaceIfNewer) write before
//     they return. Consumer offsets are written by the broker's timer and at shutdown
//     (OffsetManager.Persist). Close flushes what is still marked.
//
// # Lock order
//
// Each manager's mu is a leaf: no manager lock is held while taking another manager's,
// nor while calling the store or the NameServers. When persisting, the file's lock is
// taken first and the content is produced under it (compat.ConfigFile's lock → manager mu), so of
// two writers the later always writes the later content; a manager never takes its
// file's lock while holding its own mu.
package meta
