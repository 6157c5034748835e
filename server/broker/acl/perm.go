package acl

import (
	"fmt"
	"strings"
)

// Perm is a permission bit set (Java: acl/common/Permission).
type Perm byte

// Java's permission bits.
const (
	PermDeny Perm = 1
	PermAny  Perm = 2
	PermPub  Perm = 4
	PermSub  Perm = 8
)

// retryPrefix marks a consumer group's resource (Java: MixAll.RETRY_GROUP_TOPIC_PREFIX).
const retryPrefix = "%RETRY%"

// traceTopic is the default trace topic, whose PUB skips the permission check (Java:
// TopicValidator.RMQ_SYS_TRACE_TOPIC).
const traceTopic = "RMQ_SYS_TRACE_TOPIC"

// ParsePerm reads "PUB", "SUB", "PUB|SUB", "SUB|PUB" or "DENY"; anything else (and an
// absent value) is DENY (Java: Permission#parsePermFromString).
func ParsePerm(s string) Perm {
	switch strings.TrimSpace(s) {
	case "PUB":
		return PermPub
	case "SUB":
		return PermSub
	case "PUB|SUB", "SUB|PUB":
		return PermPub | PermSub
	default:
		return PermDeny
	}
}

// checkPermission is Java's Permission#checkPermission.
func checkPermission(needed, owned Perm) bool {
	if owned&PermDeny != 0 {
		return false
	}
	if needed&PermAny != 0 {
		return owned&(PermPub|PermSub) != 0
	}
	return needed&owned != 0
}

// adminCode reports the codes only admin accounts may send (Java: Permission.ADMIN_CODE):
// UPDATE_AND_CREATE_TOPIC, UPDATE_BROKER_CONFIG, DELETE_TOPIC_IN_BROKER,
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, DELETE_SUBSCRIPTIONGROUP.
func adminCode(code int32) bool {
	switch code {
	case 17, 25, 215, 200, 207:
		return true
	}
	return false
}

// splitNonEmpty splits s on sep and drops empty tokens (commons-lang StringUtils#split).
func splitNonEmpty(s string, sep byte) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			out = append(out, s)
			break
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		s = s[i+1:]
	}
	return out
}

// javaError carries the text of a Java AclException message verbatim (capitals and
// trailing punctuation included: users' scripts match on it).
type javaError string

func (e javaError) Error() string { return string(e) }

func javaErrorf(format string, args ...any) error {
	return javaError(fmt.Sprintf(format, args...))
}
