package compat

import (
	"net"
	"strings"
	"testing"
)

func TestPickLocalAddress_JavaPreference(t *testing.T) {
	ip := net.ParseIP
	lo := localIface{name: "lo", addrs: []net.IP{ip("::1"), ip("127.0.0.1")}}
	cases := []struct {
		name     string
		ifs      []localIface
		want     string
		wantIPv4 string
	}{
		{"public before loopback", []localIface{{name: "eth0", addrs: []net.IP{ip("fe80::fc:ff:fe00:1"), ip("192.0.2.2")}}, lo}, "192.0.2.2", "192.0.2.2"},
		{"10.x is preferred over 192.168", []localIface{{name: "wlan0", addrs: []net.IP{ip("192.168.1.5")}}, {name: "eth0", addrs: []net.IP{ip("10.0.0.7")}}}, "10.0.0.7", "10.0.0.7"},
		{"only 192.168: the last one", []localIface{{name: "a", addrs: []net.IP{ip("192.168.1.5")}}, {name: "b", addrs: []net.IP{ip("192.168.2.6")}}}, "192.168.2.6", "192.168.2.6"},
		{"bridges are skipped", []localIface{{name: "docker0", bridge: true, addrs: []net.IP{ip("172.17.0.1")}}, {name: "eth0", addrs: []net.IP{ip("192.168.0.3")}}}, "192.168.0.3", "192.168.0.3"},
		{"IPv6 only", []localIface{{name: "eth0", addrs: []net.IP{ip("fd00::2")}}, lo}, "[fd00:0:0:0:0:0:0:2%eth0]", ""},
		{"nothing", []localIface{lo}, "", ""},
	}
	for _, c := range cases {
		if got := pickLocalAddress(c.ifs, false); got != c.want {
			t.Errorf("%s: pickLocalAddress = %q, want %q", c.name, got, c.want)
		}
		if got := pickLocalAddress(c.ifs, true); got != c.wantIPv4 {
			t.Errorf("%s: pickLocalAddress(ipv4Only) = %q, want %q", c.name, got, c.wantIPv4)
		}
	}
}

func TestLocalAddress_ThisHost(t *testing.T) {
	a := LocalAddress()
	if a == "" || strings.HasPrefix(a, "127.0") && a != "127.0.0.1" {
		t.Errorf("LocalAddress() = %q", a)
	}
	v4 := LocalIPv4()
	if net.ParseIP(v4).To4() == nil {
		t.Errorf("LocalIPv4() = %q, not an IPv4 address", v4)
	}
	if !strings.HasPrefix(a, "[") && a != v4 {
		t.Errorf("LocalAddress() = %q but LocalIPv4() = %q", a, v4)
	}
	if LocalHostName() == "" {
		t.Error("LocalHostName() is empty")
	}
}
