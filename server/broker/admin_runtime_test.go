package broker

import (
	"fmt"
	"testing"
)

func TestHumanReadableBytes_JavaFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := humanReadableBytes(n); got != want {
			t.Errorf("humanReadableBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBroker_DiskUtil_JavaText: SendMessageProcessor#diskUtil's text, with the three
// partitions the store measures (the index one was always 0.00 before store.DiskUsage).
func TestBroker_DiskUtil_JavaText(t *testing.T) {
	b := newTestBroker(t, nil)
	var cl, cq, index float64
	if n, err := fmt.Sscanf(b.diskUtil(), "CL: %f CQ: %f INDEX: %f", &cl, &cq, &index); n != 3 || err != nil {
		t.Fatalf("diskUtil %q: %v", b.diskUtil(), err)
	}
	d := b.store.DiskUsage()
	if fmt.Sprintf("%5.2f %5.2f %5.2f", cl, cq, index) != fmt.Sprintf("%5.2f %5.2f %5.2f", d.CommitLog, d.ConsumeQueue, d.Index) {
		t.Errorf("diskUtil %q, store reports %+v", b.diskUtil(), d)
	}
	if cl <= 0 || cl > 1 {
		t.Errorf("commit log partition used ratio %v, want in (0, 1]", cl)
	}
}
