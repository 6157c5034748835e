package protocol

import "strconv"

// MQVersion ordinals (Java: MQVersion.Version). The enum starts at V3_0_0_SNAPSHOT = 0
// and lists X_SNAPSHOT then X for every release; for 4.a.b the ordinal of V4_a_b is
// 213 + 20a + 2b and the snapshot is one less.
const (
	VersionV3_0_7_Snapshot = 14  // reset-offset push to clients needs at least this
	VersionV3_0_11         = 37  // REGISTER_BROKER body is a RegisterBrokerBody from here
	VersionV3_1_8_Snapshot = 55  // broker-to-client relays need at least this
	VersionV3_4_9          = 153 // header maxReconsumeTimes honoured from here
	VersionV4_1_0_Snapshot = 232 // Java clients need a broker at least this for SQL92
	VersionV4_2_0          = 253
	VersionV4_5_2          = 317 // the Go client's fixed version
	VersionV4_9_4          = 401 // standard route JSON from here
	VersionV4_9_8          = 409

	// CurrentVersion is the version Skyrocket reports: it behaves as 4.9.8.
	CurrentVersion = VersionV4_9_8
)

// VersionOrdinal returns the MQVersion ordinal of release 4.a.b.
func VersionOrdinal(minor, patch int) int32 { return int32(213 + 20*minor + 2*patch) }

// VersionDesc returns Java's MQVersion.getVersionDesc text ("V4_9_8") for an ordinal of
// a 4.x release, and "V<n>" for anything it cannot name.
func VersionDesc(v int32) string {
	if v >= 212 && v < 413 {
		n := v - 213
		snap := n%2 != 0
		if snap {
			n++
		}
		s := "V4_" + strconv.Itoa(int(n/20)) + "_" + strconv.Itoa(int(n%20/2))
		if snap {
			s += "_SNAPSHOT"
		}
		return s
	}
	return "V" + strconv.Itoa(int(v))
}
