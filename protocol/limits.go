package protocol

// Bounds on counts that arrive on the wire. Java 4.9.8 sets none of them: it sizes
// nothing by an announced count either, but it accepts any queue count and builds
// answers proportional to it, which a JVM survives as an OutOfMemoryError answer and a
// Go process does not survive at all. Each limit is far above any real deployment;
// conformance/UNSUPPORTED.md lists them as deliberate differences.
const (
	// MaxQueueNums is the most read or write queues a topic may have (64 Ki). Java's
	// BenchmarkTest topic has 1024; TBW102 and the clients' defaults have 4-16.
	// UPDATE_AND_CREATE_TOPIC above it is refused; a count above it arriving any other way
	// (a send's defaultTopicQueueNums, a retry group's retryQueueNums, topics.json, a
	// broker's registration at the NameServer) is lowered to it.
	MaxQueueNums = 64 << 10

	// MaxRegisterTopics is the most topics a compressed REGISTER_BROKER body may announce
	// (1 Mi); a body announcing more is refused before any entry is read.
	MaxRegisterTopics = 1 << 20

	// MaxRegisterInflated is the most bytes a compressed REGISTER_BROKER body may inflate
	// to (64 MiB: about a million topics of 40-character names); a larger one is refused.
	MaxRegisterInflated = 64 << 20
)

// ClampQueueNums lowers n to MaxQueueNums.
func ClampQueueNums(n int32) int32 {
	if n > MaxQueueNums {
		return MaxQueueNums
	}
	return n
}
