package ha

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"
)

// Hostile or broken clients on the HA port: each is closed with its reason logged,
// while a real slave goes on replicating.
func TestMaster_HostileClients(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 50)
	lb := &logBuf{}
	cfg := haConfig(lb)
	cfg.HousekeepingInterval = 500 * time.Millisecond
	cfg.HeartbeatInterval = 100 * time.Millisecond
	m := startMaster(t, ms, cfg)
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	scfg := haConfig(nil)
	scfg.HeartbeatInterval = 100 * time.Millisecond
	startSlave(t, ss, scfg, m.Addr())
	waitFollowing(t, m, 1)

	be := func(vs ...int64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.BigEndian.AppendUint64(b, uint64(v))
		}
		return b
	}
	end := func(d int64) int64 { return ms.MaxPhyOffset() + d } // at send time: puts go on
	cases := []struct {
		name  string
		send  func() []byte
		close bool // close our side after sending
		log   string
	}{
		{"http garbage", func() []byte { return []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n") }, false, "'s first report"},
		{"negative offset", func() []byte { return be(-1) }, false, "negative offset -1"},
		{"first report beyond the end", func() []byte { return be(end(1)) }, false, "beyond the local commitlog end"},
		{"later report beyond the end", func() []byte { return be(1 << 40) }, false, "greater than local commitlog offset"},
		{"negative later report", func() []byte { return be(-5) }, false, "negative offset -5"},
		{"partial report then EOF", func() []byte { return []byte{0, 0, 0} }, true, "in the middle of a report (3 of 8 bytes)"},
		{"partial report then silence", func() []byte { return []byte{0, 0, 0, 0, 0} }, false, "with 5 bytes of a report pending"},
		{"silence", func() []byte { return nil }, false, "nothing read for 500ms"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			before := lb.count(c.log)
			f := dialFake(t, m.Addr())
			if strings.Contains(c.name, "later") { // a valid first report, read on its own
				n := lb.count("slave requests offset")
				f.report(end(0))
				eventually(t, 5*time.Second, "the first report", func() bool { return lb.count("slave requests offset") > n })
			}
			if b := c.send(); len(b) > 0 {
				f.write(b)
			}
			if c.close {
				_ = f.nc.(*net.TCPConn).CloseWrite()
			}
			if !f.closedWithin(5 * time.Second) {
				t.Fatal("the master kept the connection")
			}
			eventually(t, 5*time.Second, "the reason in the log", func() bool { return lb.count(c.log) > before })
			putN(t, ms, "TopicHA", 1000, 5) // the real slave goes on
			m.WakeTransfer()
			waitCaughtUp(t, ms, ss)
		})
	}
	// Meanwhile the slave's connection stayed up: it is the only one left, and it has
	// been there since before the hostile ones.
	eventually(t, 5*time.Second, "hostile connections to go", func() bool { return len(m.Slaves()) == 1 })
	if n := lb.count(`"message":"ha: slave connected"`); n != 1+len(cases) {
		t.Fatalf("%d connections logged, want %d", n, 1+len(cases))
	}
	if n := lb.count("ha: closing slave connection") + lb.count("ha: slave connection closed"); n != len(cases) {
		t.Fatalf("%d closes logged, want %d:\n%s", n, len(cases), lb)
	}
	sameCommitLog(t, mdir, sdir, 0, ms.MaxPhyOffset())
}

// Several slaves at once (a second slave, or one the same broker opened twice: there is
// no identity on the wire to tell): each is served from where it asked.
func TestMaster_SeveralSlaves(t *testing.T) {
	mdir := t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	m := startMaster(t, ms, haConfig(nil))
	var dirs []string
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		ss := openStore(t, storeConfig(d, true))
		defer ss.Close()
		startSlave(t, ss, haConfig(nil), m.Addr())
		dirs = append(dirs, d)
		defer func() { waitCaughtUp(t, ms, ss) }()
	}
	waitFollowing(t, m, 3)
	putN(t, ms, "TopicHA", 0, 300)
	f := dialFake(t, m.Addr()) // and a raw one that starts in the middle
	f.report(1000)
	off, b, err := f.frame(5 * time.Second)
	if err != nil || off != 1000 || len(b) == 0 {
		t.Fatalf("raw slave: %d, %d bytes, %v", off, len(b), err)
	}
	eventually(t, 15*time.Second, "all slaves to ack the end", func() bool {
		n := 0
		for _, si := range m.Slaves() {
			if si.AckedOffset == ms.MaxPhyOffset() {
				n++
			}
		}
		return n == 3
	})
	for _, d := range dirs {
		sameCommitLog(t, mdir, d, 0, ms.MaxPhyOffset())
	}
}
