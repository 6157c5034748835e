package protocol

import "strconv"

// Java's Integer.parseInt / Long.parseLong / Boolean.parseBoolean semantics for extFields.

func parseInt32(s string) (int32, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err == nil
}

func parseInt64(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// parseBool is Boolean.parseBoolean: "true" in any case is true, anything else false.
func parseBool(s string) (bool, bool) {
	if len(s) == 4 && (s[0]|0x20) == 't' && (s[1]|0x20) == 'r' && (s[2]|0x20) == 'u' && (s[3]|0x20) == 'e' {
		return true, true
	}
	return false, true
}

//lint:ignore U1000 called by zz_generated_headers.go once a header in spec/headers.txt has a float64 field
func parseFloat64(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func formatInt(v int64) string {
	if v >= 0 && v < int64(len(smallInts)) {
		return smallInts[v]
	}
	return strconv.FormatInt(v, 10)
}

func formatBool(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

//lint:ignore U1000 called by zz_generated_headers.go once a header in spec/headers.txt has a float64 field
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// smallInts avoids allocating for the queue ids, flags and counts that fill most headers.
var smallInts = func() [256]string {
	var a [256]string
	for i := range a {
		a[i] = strconv.Itoa(i)
	}
	return a
}()

// NumberFormatRemark is what Java answers (SYSTEM_ERROR, RemotingHelper#exceptionSimpleDesc
// without the stack frame) when Integer.parseInt / Long.parseLong refuse s.
func NumberFormatRemark(s string) string {
	return `java.lang.NumberFormatException: For input string: "` + s + `"`
}

func numberFormatError(s string) error {
	return &Error{Code: ResSystemError, Remark: NumberFormatRemark(s)}
}
