package protocol

import "fmt"

// Error is a response code with Java's remark. Handlers return it; the dispatcher turns
// it into the response frame in one place.
type Error struct {
	Code   ResponseCode
	Remark string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Remark)
}

// Errorf returns an *Error with a formatted remark.
func Errorf(code ResponseCode, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Remark: format}
	}
	return &Error{Code: code, Remark: fmt.Sprintf(format, args...)}
}

// Remarks written by Java's remoting layer (NettyRemotingAbstract#processRequestCommand).
const (
	RemarkRejectRequest = "[REJECTREQUEST]system busy, start flow control for a while"
	RemarkOverload      = "[OVERLOAD]system busy, start flow control for a while"
)

// NotSupported is Java's answer to an unknown request code.
func NotSupported(code int32) *Error {
	return &Error{Code: ResRequestCodeNotSupported, Remark: fmt.Sprintf(" request type %d not supported", code)}
}

// MissingFieldError answers a request whose @CFNotNull header field is absent, with the
// text of the RemotingCommandException RemotingCommand#decodeCommandCustomHeader builds
// for it. Java ≤ 4.9.3 answered exactly this (SYSTEM_ERROR); 4.9.4+ catches its own
// exception (the throw sits inside the per-field try/catch), so the field stays null and
// the request fails later with a NullPointerException, or not at all. Skyrocket keeps the
// clear answer on purpose (conformance/diff_compare_test.go lists where 4.9.8 differs).
func MissingFieldError(field string) *Error {
	return &Error{
		Code: ResSystemError,
		Remark: "org.apache.rocketmq.remoting.exception.RemotingCommandException: the custom field <" + field +
			"> is null, org.apache.rocketmq.remoting.protocol.RemotingCommand.decodeCommandCustomHeader(RemotingCommand.java:281)",
	}
}
