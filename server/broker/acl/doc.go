// Package acl is the broker's plain access control, as Apache RocketMQ 4.9.8's "plain"
// ACL serves it (Java: acl/…/plain/PlainAccessValidator, PlainPermissionManager,
// RemoteAddressStrategyFactory, srvutil/AclFileWatchService).
//
// What it does:
//   - Loads ${ROCKETMQ_HOME}/conf/plain_acl.yml (the path relative to the home can be
//     changed, as Java's -Drocketmq.acl.plain.file) and every *.yml / *.yaml under
//     ${ROCKETMQ_HOME}/conf/acl/ (4.9.3+ multi-file ACL), and reloads them when they
//     change: a background goroutine looks at the files' modification times every 5 s,
//     as AclFileWatchService does. A snapshot is swapped atomically; requests never wait
//     for a reload.
//   - Validator.Check runs Java's checks in Java's order (global whitelist, access key,
//     account whitelist, signature, trace-topic shortcut, admin codes, per-resource
//     permissions) and answers a refusal with Java's code (1 SYSTEM_ERROR) and remark
//     (the AclException text plus Java's first stack frame).
//   - The admin codes 50-53 change the files as Java does (Validator.UpdateAccount,
//     DeleteAccount, UpdateGlobalWhiteAddrs, Versions); callers run them off the event
//     loop because they write files.
//
// The signature check allocates nothing per request: the sorted values are appended to a
// pooled buffer and hashed with a pooled HMAC of the account's secret key (sign.go says
// what it costs against the HMAC itself); the client's address is parsed only when a
// whitelist pattern has to be matched.
//
// Deliberate differences from Java (conformance/UNSUPPORTED.md lists them):
//   - a signature computed with the _UNIQUE_KEY_QUERY value is accepted too (Java 4.9.4+
//     clients sign it and Java's broker then refuses their query-by-key, apache/rocketmq#5310);
//   - a file that does not load refuses to start the broker (Java logs the error and runs
//     without any access control); a reload that fails keeps the previous configuration;
//   - a reload re-reads every file (Java re-reads only the changed one); the answers are
//     the same, including "No PlainAccessResource for accessKey=" for an account removed
//     from a file by hand.
package acl
