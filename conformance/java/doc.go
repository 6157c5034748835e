// Package java starts and stops Apache RocketMQ's own NameServer and Broker (4.9.7 from
// Maven Central; 4.9.8 of these two artifacts is not served there) on loopback ports, for
// differential tests and the side-by-side benchmark. It drives javaservers.sh, which sits
// next to this file with the rest of the Java tooling (a Maven project: goldens, the
// Java-written store fixture, Java client checks; see README.md and GOLDEN.md).
//
// Both JVMs get the same explicit settings (-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g and the
// Java 17 --add-opens/--add-exports flags; override with Options.Heap); state them next to any
// comparison. Each server is stopped by its PID: Stop sends SIGTERM (Java's shutdown hooks
// stop the store cleanly, removing the abort file), Kill sends SIGKILL.
//
// Java and Maven must be installed (.ci/run installs them); Available reports whether they are.
package java
