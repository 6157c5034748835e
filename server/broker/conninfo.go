package broker

import (
	"net/netip"

	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// connInfo is what the broker caches per connection.
type connInfo struct {
	bornHost netip.AddrPort
}

// bornHost returns the peer address of conn as stored in BORNHOST (Java:
// ctx.channel().remoteAddress()), parsed once per connection.
func bornHost(c *remoting.Conn) netip.AddrPort {
	if v, ok := c.Attachment.Load().(*connInfo); ok {
		return v.bornHost
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr())
	if err != nil {
		ap = netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	c.Attachment.Store(&connInfo{bornHost: ap})
	return ap
}
