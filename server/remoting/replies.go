package remoting

import (
	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Replies gathers answers given together (the SYNC_FLUSH sends one flush releases) and
// writes each connection's with one write instead of one per answer. Not safe for
// concurrent use; the zero value is ready.
type Replies struct {
	bufs map[*Conn]*[]byte
}

// Add encodes resp as the answer to x's request; it is written at the next Flush. Like
// Context.Reply it is a no-op for a oneway request.
func (r *Replies) Add(x *Context, resp *protocol.Command) {
	if x.flag&protocol.FlagOneway != 0 || resp == nil {
		return
	}
	resp.Opaque = x.opaque
	resp.Flag |= protocol.FlagResponse
	resp.Serialize = x.serialize
	if r.bufs == nil {
		r.bufs = make(map[*Conn]*[]byte)
	}
	b := r.bufs[x.Conn]
	if b == nil {
		b = getBuf()
		*b = (*b)[:0]
		r.bufs[x.Conn] = b
	}
	*b = codec.AppendFrame(*b, resp)
	protocol.ReleaseCommand(resp) // encoded: an answer is not used after it is sent
}

// Flush writes what Add gathered, one write per connection, without waiting. Answers to
// a connection closed meanwhile are dropped, as Context.Reply drops them.
func (r *Replies) Flush() {
	for c, b := range r.bufs {
		delete(r.bufs, c)
		if c.closed.Load() {
			putBuf(b)
			continue
		}
		if err := c.asyncWrite(*b, b, nil); err != nil {
			putBuf(b)
		}
	}
}
