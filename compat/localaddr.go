package compat

import (
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// localIface is one network interface with its addresses, in the order Java sees them.
type localIface struct {
	name   string
	bridge bool
	addrs  []net.IP
}

// LocalAddress is Java's RemotingUtil.getLocalAddress, the default of brokerIP1 and
// brokerIP2: over all interfaces except Linux bridges, skipping loopback addresses, the
// first IPv4 address that does not start with "127.0" or "192.168"; else the last IPv4
// address; else the first IPv6 address in brackets, in Java's text form
// ("[fd00:0:0:0:0:0:0:2%eth0]"); else "127.0.0.1" (Java asks the resolver for the
// host's own address there).
func LocalAddress() string {
	if a := pickLocalAddress(javaOrderedInterfaces(), false); a != "" {
		return a
	}
	return "127.0.0.1"
}

// LocalIPv4 is LocalAddress restricted to IPv4: the same choice among IPv4 addresses,
// "127.0.0.1" when the host has no non-loopback IPv4 address.
func LocalIPv4() string {
	if a := pickLocalAddress(javaOrderedInterfaces(), true); a != "" {
		return a
	}
	return "127.0.0.1"
}

// LocalHostName is Java's BrokerConfig.localHostName, the default brokerName: the host
// name, or "DEFAULT_BROKER" when it cannot be had.
func LocalHostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "DEFAULT_BROKER"
	}
	return h
}

// javaOrderedInterfaces lists interfaces as the JDK on Linux enumerates them: last
// interface first, and within one interface the addresses last first (seen on JDK 17:
// eth0 before lo, and eth0's IPv6 addresses before its IPv4 one).
func javaOrderedInterfaces() []localIface {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	out := make([]localIface, 0, len(ifs))
	for i := len(ifs) - 1; i >= 0; i-- {
		ifc := ifs[i]
		li := localIface{name: ifc.Name, bridge: isBridge(ifc.Name)}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for j := len(addrs) - 1; j >= 0; j-- {
			if n, ok := addrs[j].(*net.IPNet); ok {
				li.addrs = append(li.addrs, n.IP)
			}
		}
		out = append(out, li)
	}
	return out
}

// isBridge is Java's RemotingUtil.isBridge: on Linux, /sys/class/net/<name>/bridge exists.
func isBridge(name string) bool {
	if runtime.GOOS != "linux" {
		return false
	}
	_, err := os.Stat("/sys/class/net/" + name + "/bridge")
	return err == nil
}

// pickLocalAddress applies getLocalAddress's preference to interfaces in Java order;
// "" when nothing qualifies.
func pickLocalAddress(ifs []localIface, ipv4Only bool) string {
	var v4, v6 []string
	for _, ifc := range ifs {
		if ifc.bridge {
			continue
		}
		for _, ip := range ifc.addrs {
			if ip.IsLoopback() {
				continue
			}
			if ip4 := ip.To4(); ip4 != nil {
				v4 = append(v4, ip4.String())
			} else {
				v6 = append(v6, "["+javaIPv6Text(ip)+"%"+ifc.name+"]")
			}
		}
	}
	for _, ip := range v4 {
		if strings.HasPrefix(ip, "127.0") || strings.HasPrefix(ip, "192.168") {
			continue
		}
		return ip
	}
	if len(v4) > 0 {
		return v4[len(v4)-1]
	}
	if len(v6) > 0 && !ipv4Only {
		return v6[0]
	}
	return ""
}

// javaIPv6Text is Inet6Address#getHostAddress without the scope: eight groups in lower
// case hex without leading zeros, never compressed with "::".
func javaIPv6Text(ip net.IP) string {
	var b strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(ip[i])<<8|uint64(ip[i+1]), 16))
	}
	return b.String()
}
