// Package transaction is the broker's transactional-message work on the store, 4.3+
// semantics (Java: TransactionalMessageServiceImpl, TransactionalMessageBridge,
// TransactionalMessageCheckService, AbstractTransactionalMessageCheckListener,
// DefaultTransactionalMessageCheckListener, and the record building of
// EndTransactionProcessor).
//
// It owns:
//   - the records, built field by field as Java builds them, quirks included
//     (records.go): the committed message of a half message, the op message that marks a
//     half message done, the re-put half message of a check, the discard to
//     TRANS_CHECK_MAX_TIME_TOPIC and the CHECK_TRANSACTION_STATE request;
//   - the half message lookup by CommitLog offset (LookHalf);
//   - the check round (check.go): walking RMQ_SYS_TRANS_HALF_TOPIC against
//     RMQ_SYS_TRANS_OP_HALF_TOPIC from CID_RMQ_SYS_TRANS's offsets, re-putting the half
//     messages old enough and asking one of their producers about the new copy.
//
// It does not own the requests: storing a TRAN_MSG send as a half message,
// END_TRANSACTION (37) and RESUME_CHECK_HALF_MESSAGE (323) stay handlers of package
// broker (transactions.go, admin_half.go), which also runs Check every
// transactionCheckInterval on a master. The service gets what it needs from the broker
// through Config — the store, the topic and offset tables as the small Topics and
// Offsets interfaces, a producer connection lookup, the callbacks that announce a new
// topic and apply DELAY, the store host and the settings — and never imports the broker
// (conformance/layering_test.go).
//
// Lock order: the package has no locks of its own. A check round calls Topics, Offsets
// and Producer, each taking its table's leaf lock for the call only, and the store; it
// holds nothing across those calls.
package transaction
