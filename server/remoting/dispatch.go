package remoting

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Handler serves one request. It returns the response, or an error that Dispatch turns
// into one (a *protocol.Error keeps its code and remark; anything else is SYSTEM_ERROR).
// (nil, nil) sends nothing now: the handler kept ctx and answers later with ctx.Reply,
// or the request needs no answer (Java processors returning null).
type Handler func(ctx *Context, req *protocol.Command) (*protocol.Command, error)

// Route binds a request code to its handler. A nil Pool runs the handler inline on the
// event loop: only for handlers that never block.
type Route struct {
	Code    protocol.RequestCode
	Handler Handler
	Pool    *Pool
	// Borrow lets an inline handler see the request decoded in place in the event loop's
	// read buffer, saving a copy of the frame. The handler must not keep the request, its
	// strings or its body after it returns (Context.Reply stays usable: it needs only the
	// request's opaque, flag and serialize type). Ignored for pooled routes.
	Borrow bool
}

// Context is what a handler knows about its request's connection. It keeps the request's
// opaque, flag and serialize type (what an answer needs), not the request, so it stays
// usable after a Borrow handler's request has been recycled.
type Context struct {
	Conn      *Conn
	opaque    int32
	flag      int32
	serialize protocol.SerializeType
	log       *zerolog.Logger
}

func newContext(c *Conn, req *protocol.Command, log *zerolog.Logger) *Context {
	return &Context{Conn: c, opaque: req.Opaque, flag: req.Flag, serialize: req.Serialize, log: log}
}

// Reply answers the request later (long polling). It is a no-op for oneway requests.
func (x *Context) Reply(resp *protocol.Command) {
	x.ReplyParts(resp, nil, nil)
}

// ReplyParts answers with a body made of parts written after resp.Body without copying
// them (pull and query bodies taken from mapped files); done runs once they are written
// or copied, and always runs exactly once.
func (x *Context) ReplyParts(resp *protocol.Command, parts [][]byte, done func()) {
	if x.flag&protocol.FlagOneway != 0 || resp == nil {
		if done != nil {
			done()
		}
		return
	}
	resp.Opaque = x.opaque
	resp.Flag |= protocol.FlagResponse
	resp.Serialize = x.serialize
	if err := x.Conn.sendParts(resp, parts, done); err != nil {
		x.log.Debug().Err(err).Int32("opaque", x.opaque).Msg("reply not written")
	}
}

// finish makes resp the answer to req (Java: NettyRemotingAbstract's callback).
func finish(req, resp *protocol.Command) {
	resp.Opaque = req.Opaque
	resp.Flag |= protocol.FlagResponse
	resp.Serialize = req.Serialize
}

// errorResponse turns a handler error into the response Java would send.
func errorResponse(req *protocol.Command, err error, log *zerolog.Logger) *protocol.Command {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return protocol.NewResponse(req, pe.Code, pe.Remark)
	}
	log.Error().Err(err).Int32("code", req.Code).Str("name", req.RequestCode().String()).Msg("request failed")
	return protocol.NewResponse(req, protocol.ResSystemError, err.Error())
}

// run calls the handler, recovering a panic into SYSTEM_ERROR so one bad request cannot
// take the server down.
func run(h Handler, ctx *Context, req *protocol.Command) (resp *protocol.Command) {
	defer func() {
		if r := recover(); r != nil {
			ctx.log.Error().Interface("panic", r).Bytes("stack", debug.Stack()).Int32("code", req.Code).Msg("handler panicked")
			resp = protocol.NewResponse(req, protocol.ResSystemError, fmt.Sprint(r))
		}
	}()
	resp, err := h(ctx, req)
	if err != nil {
		resp = errorResponse(req, err, ctx.log)
	}
	if resp != nil {
		finish(req, resp)
	}
	return resp
}

// table is the dispatch table, indexed by request code.
type table struct {
	routes  map[protocol.RequestCode]*Route
	unknown Handler
}

func newTable(routes []Route, unknown Handler) *table {
	t := &table{routes: make(map[protocol.RequestCode]*Route, len(routes)), unknown: unknown}
	for i := range routes {
		r := routes[i]
		if _, dup := t.routes[r.Code]; dup {
			panic(fmt.Sprintf("remoting: duplicate route for %v", r.Code))
		}
		if r.Pool != nil {
			r.Pool.Start()
		}
		t.routes[r.Code] = &r
	}
	return t
}
