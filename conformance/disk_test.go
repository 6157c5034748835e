package conformance

// Issue 10, the disk a broker takes: a fresh store with Java's default file sizes (1 GiB
// CommitLog files, 6,000,000-byte ConsumeQueue files, 420 MB IndexFiles) that has received
// a few thousand messages over 1024 queues. It used to hold ~7 GB of real disk (every
// ConsumeQueue file and the IndexFile fallocated whole, a second CommitLog file made at
// once); Java's holds tens of MB (sparse files). Real blocks are counted with stat
// (st_blocks), as du does.

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// diskUsage sums real blocks (st_blocks × 512) and apparent sizes under root, and the
// real blocks of ConsumeQueue and IndexFile files.
func diskUsage(t *testing.T, root string) (real, apparent, cqIndex int64) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		real += st.Blocks * 512
		apparent += st.Size
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, "consumequeue"+string(filepath.Separator)) || strings.HasPrefix(rel, "index"+string(filepath.Separator)) {
			cqIndex += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return real, apparent, cqIndex
}

func TestConformance_Disk_FreshBroker1024Queues(t *testing.T) {
	def := broker.MustOptionsFrom(broker.DefaultConfig(t.TempDir())).Store
	c := startCluster(t, func(o *broker.Options) {
		// Java's default file sizes, not the cluster helper's small ones.
		o.Store.MappedFileSizeCommitLog = def.MappedFileSizeCommitLog
		o.Store.MappedFileSizeConsumeQueue = def.MappedFileSizeConsumeQueue
		o.Store.MaxHashSlotNum = def.MaxHashSlotNum
		o.Store.MaxIndexNum = def.MaxIndexNum
	})
	if c.opts.Store.MappedFileSizeCommitLog != 1<<30 || c.opts.Store.MaxIndexNum != 20_000_000 {
		t.Fatalf("defaults: commitlog %d, index %d", c.opts.Store.MappedFileSizeCommitLog, c.opts.Store.MaxIndexNum)
	}
	const topic, queues, messages = "DiskTopic", 1024, 4096
	w := newWire(t, c.opts.ListenAddr)
	if r := w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
		ReadQueueNums: queues, WriteQueueNums: queues, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic: %v %q", r.ResponseCode(), r.Remark)
	}
	p := newProducer(t, c.nsAddr())
	var wg sync.WaitGroup
	perQueue := make([]int, queues)
	var mu sync.Mutex
	errs := make(chan error, messages)
	start := time.Now()
	for g := 0; g < 8; g++ { // 8 senders: the Go client spreads them over the queues
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < messages; i += 8 {
				m := primitive.NewMessage(topic, []byte(fmt.Sprintf("disk-%d-%s", i, strings.Repeat("x", 200))))
				m.WithKeys([]string{fmt.Sprintf("k%d", i)}) // two index entries: UNIQ_KEY and the key
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				r, err := p.SendSync(ctx, m)
				cancel()
				if err != nil || r.Status != primitive.SendOK {
					errs <- fmt.Errorf("send %d: %v %v", i, r, err)
					continue
				}
				mu.Lock()
				perQueue[r.MessageQueue.QueueId]++
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	t.Logf("%d sends in %v", messages, time.Since(start))
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	used := 0
	for _, n := range perQueue {
		if n > 0 {
			used++
		}
	}
	if used < queues {
		t.Fatalf("the sends reached %d of %d queues", used, queues)
	}
	st := c.broker.Store()
	var n int64
	// Each new ConsumeQueue costs a mkdir, a create and a first write fault, journal-bound
	// metadata operations (3-25 ms each on a busy shared disk): 1024 of them take a while.
	eventually(t, 90*time.Second, "every message in its ConsumeQueue", func() bool {
		n = 0
		for q := int32(0); q < queues; q++ {
			n += st.MaxOffsetInQueue(topic, q)
		}
		return n >= messages // >=: a send the client retried may be stored twice
	})
	t.Logf("%d units", n)
	root := filepath.Join(c.root, "store")
	// Measured while the broker runs (what a volume holds under load) and after a clean
	// stop (Java deletes its pre-created CommitLog file; so do we).
	real, apparent, cqIndex := diskUsage(t, root)
	t.Logf("running: %d MiB real (%d MiB apparent), ConsumeQueue + IndexFile %d MiB real", real>>20, apparent>>20, cqIndex>>20)
	if real > 1200<<20 || cqIndex > 64<<20 {
		t.Fatalf("store uses %d MiB of real disk (want <= 1.2 GiB), ConsumeQueue + IndexFile %d MiB (want <= 64 MiB)", real>>20, cqIndex>>20)
	}
	c.stopBroker()
	real, apparent, cqIndex = diskUsage(t, root)
	t.Logf("stopped: %d MiB real (%d MiB apparent), ConsumeQueue + IndexFile %d MiB real", real>>20, apparent>>20, cqIndex>>20)
	if real > 1200<<20 || cqIndex > 64<<20 {
		t.Fatalf("stopped store uses %d MiB of real disk, ConsumeQueue + IndexFile %d MiB", real>>20, cqIndex>>20)
	}
	// And the sparse files read back: the restarted broker serves every queue's end.
	c.startBroker()
	before := n
	n = 0
	for q := int32(0); q < queues; q++ {
		n += c.broker.Store().MaxOffsetInQueue(topic, q)
	}
	if n != before {
		t.Fatalf("after restart the ConsumeQueues hold %d units, want %d", n, before)
	}
}
