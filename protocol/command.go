package protocol

import (
	"sync"
	"unsafe"
)

// Flag bits of a RemotingCommand (Java: RemotingCommand RPC_TYPE / RPC_ONEWAY).
const (
	FlagResponse int32 = 1 << 0 // set on every response
	FlagOneway   int32 = 1 << 1 // the receiver sends no response
)

// SerializeType is the header serialization, the high byte of the second frame word.
type SerializeType uint8

const (
	SerializeJSON     SerializeType = 0
	SerializeRocketMQ SerializeType = 1
)

func (s SerializeType) String() string {
	switch s {
	case SerializeJSON:
		return "JSON"
	case SerializeRocketMQ:
		return "ROCKETMQ"
	}
	return "UNKNOWN"
}

// KV is one extFields entry. Values are always strings on the wire.
type KV struct {
	Key, Value string
}

// Ext is the extFields map of a command, kept as an ordered list: headers have a
// handful of fields, so a linear scan beats a map and allocates nothing.
type Ext []KV

// Get returns the value of key and whether it is present.
func (e Ext) Get(key string) (string, bool) {
	for i := range e {
		if e[i].Key == key {
			return e[i].Value, true
		}
	}
	return "", false
}

// Value returns the value of key, or "" when absent.
func (e Ext) Value(key string) string {
	v, _ := e.Get(key)
	return v
}

// Set replaces the value of key or appends it.
func (e *Ext) Set(key, value string) {
	for i := range *e {
		if (*e)[i].Key == key {
			(*e)[i].Value = value
			return
		}
	}
	*e = append(*e, KV{key, value})
}

// Delete removes key, keeping the order of the others.
func (e *Ext) Delete(key string) {
	for i := range *e {
		if (*e)[i].Key == key {
			*e = append((*e)[:i], (*e)[i+1:]...)
			return
		}
	}
}

// Command is a RemotingCommand: a request or a response. A decoded Command owns all of
// its bytes (strings and Body point into one buffer the decoder allocated), so it may
// outlive the network buffer it came from.
type Command struct {
	Code      int32 // RequestCode for requests, ResponseCode for responses
	Language  LanguageCode
	Version   int32
	Opaque    int32
	Flag      int32
	Remark    string
	HasRemark bool // false: Java's null remark (omitted in JSON)
	Ext       Ext
	Body      []byte
	Serialize SerializeType

	extInline [16]KV
}

var commandPool = sync.Pool{New: func() any { return new(Command) }}

// AcquireCommand returns an empty command from a pool (the decoder's and NewResponse's
// source). Whoever owns a command when it is no longer referenced may ReleaseCommand it;
// nobody has to.
func AcquireCommand() *Command {
	c := commandPool.Get().(*Command)
	c.Ext = c.extInline[:0]
	return c
}

// ReleaseCommand zeroes c and returns it to the pool. c, its Ext and anything that
// referenced them must not be used afterwards (its strings and Body are not touched: they
// belong to buffers the command does not own).
func ReleaseCommand(c *Command) {
	if c == nil {
		return
	}
	*c = Command{}
	commandPool.Put(c)
}

// NewRequest returns a request command with our version and language.
func NewRequest(code RequestCode) *Command {
	c := &Command{Code: int32(code), Language: LanguageJava, Version: CurrentVersion}
	c.Ext = c.extInline[:0]
	return c
}

// NewResponse returns a response with the given code and remark for req: same opaque
// and serialize type, the response flag set (Java: RemotingCommand#createResponseCommand
// plus NettyRemotingAbstract's opaque/markResponseType/setSerializeTypeCurrentRPC).
func NewResponse(req *Command, code ResponseCode, remark string) *Command {
	c := AcquireCommand()
	c.Code = int32(code)
	c.Language = LanguageJava
	c.Version = CurrentVersion
	c.Flag = FlagResponse
	c.Remark = remark
	// Java leaves remark null unless given.
	c.HasRemark = remark != ""
	if req != nil {
		c.Opaque = req.Opaque
		c.Serialize = req.Serialize
	}
	return c
}

// ResetExt points Ext at the command's inline storage, for decoders that fill it.
func (c *Command) ResetExt() {
	c.Ext = c.extInline[:0]
}

// IsResponse reports whether the response flag is set.
func (c *Command) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports whether the oneway flag is set (the receiver must not answer).
func (c *Command) IsOneway() bool { return c.Flag&FlagOneway != 0 }

// RequestCode returns Code as a request code.
func (c *Command) RequestCode() RequestCode { return RequestCode(c.Code) }

// ResponseCode returns Code as a response code.
func (c *Command) ResponseCode() ResponseCode { return ResponseCode(c.Code) }

// SetRemark sets a (non-null) remark.
func (c *Command) SetRemark(r string) {
	c.Remark = r
	c.HasRemark = true
}

// Clone returns a deep copy of c whose strings and body live in one new buffer, for a
// command decoded in place from a buffer that is about to be reused.
func (c *Command) Clone() *Command {
	n := len(c.Remark) + len(c.Body)
	for _, kv := range c.Ext {
		n += len(kv.Key) + len(kv.Value)
	}
	buf := make([]byte, 0, n)
	str := func(s string) string {
		if s == "" {
			return ""
		}
		start := len(buf)
		buf = append(buf, s...)
		return unsafe.String(&buf[start], len(s))
	}
	out := &Command{Code: c.Code, Language: c.Language, Version: c.Version, Opaque: c.Opaque, Flag: c.Flag,
		HasRemark: c.HasRemark, Serialize: c.Serialize}
	out.Remark = str(c.Remark)
	if len(c.Ext) <= len(out.extInline) {
		out.Ext = out.extInline[:0]
	} else {
		out.Ext = make(Ext, 0, len(c.Ext))
	}
	for _, kv := range c.Ext {
		out.Ext = append(out.Ext, KV{Key: str(kv.Key), Value: str(kv.Value)})
	}
	if c.Body != nil {
		start := len(buf)
		buf = append(buf, c.Body...)
		out.Body = buf[start:len(buf):len(buf)]
	}
	return out
}
