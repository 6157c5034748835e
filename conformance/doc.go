// Package conformance holds Skyrocket's conformance tests, in layers: raw wire, the
// unmodified rocketmq-client-go, the Java client and mqadmin (conformance/java), and
// differential runs against Java's broker. It also enforces DESIGN.md's import rules
// (layering_test.go). Nothing imports it.
package conformance
