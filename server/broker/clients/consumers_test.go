package clients

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func heartbeat(group, model string, topics ...string) *protocol.ConsumerData {
	d := &protocol.ConsumerData{GroupName: group, MessageModel: model}
	for _, t := range topics {
		d.SubscriptionDataSet = append(d.SubscriptionDataSet, protocol.SubscriptionData{Topic: t, SubString: "TagA",
			TagsSet: []string{"TagA"}, SubVersion: 7})
	}
	return d
}

func TestConsumerManager_FindSubscription_OneEntry(t *testing.T) {
	m := NewConsumerManager(zerolog.Nop(), nil)
	if _, ok := m.FindSubscription("G", "T"); ok {
		t.Fatal("a group nobody registered is online")
	}
	m.Register(heartbeat("G", "BROADCASTING", "T", "U"), Channel{Conn: &remoting.Conn{}, ClientID: "c1"}, false)
	gs, ok := m.FindSubscription("G", "T")
	if !ok || !gs.Subscribed || gs.MessageModel != "BROADCASTING" || gs.Subscription.Topic != "T" || gs.Subscription.SubVersion != 7 {
		t.Fatalf("FindSubscription(G, T) = %+v, %v", gs, ok)
	}
	if gs, ok := m.FindSubscription("G", "V"); !ok || gs.Subscribed || gs.MessageModel != "BROADCASTING" {
		t.Fatalf("a topic the group does not subscribe: %+v, %v (want online, not subscribed)", gs, ok)
	}
	// What Group reports, FindSubscription reports.
	g := m.Group("G")
	if want := g.Subscriptions["T"]; want.Topic != gs.Subscription.Topic || want.SubString != gs.Subscription.SubString {
		t.Fatalf("Group has %+v, FindSubscription %+v", want, gs.Subscription)
	}
	if s, ok := m.Subscription("G", "U"); !ok || s.Topic != "U" {
		t.Fatalf("Subscription(G, U) = %+v, %v", s, ok)
	}
	if _, ok := m.Subscription("G", "V"); ok {
		t.Fatal("Subscription of a topic the group does not subscribe")
	}
	// The copy handed out does not change when the group does.
	m.Register(heartbeat("G", "CLUSTERING", "U"), Channel{Conn: &remoting.Conn{}, ClientID: "c2"}, false)
	if gs.Subscription.Topic != "T" || gs.MessageModel != "BROADCASTING" {
		t.Fatalf("an earlier answer changed: %+v", gs)
	}
	if gs, _ := m.FindSubscription("G", "T"); gs.Subscribed {
		t.Fatal("T still subscribed after a heartbeat without it")
	}
}

func TestLockTable_TryLock_ExpiresAfterMaxLiveTime(t *testing.T) {
	now := time.Unix(1000, 0)
	lt := NewLockTable()
	lt.now = func() time.Time { return now }
	mq := []protocol.MessageQueue{{Topic: "T", BrokerName: "b", QueueID: 1}}
	if got := lt.TryLock("G", "c1", mq); len(got) != 1 {
		t.Fatalf("c1 could not lock a free queue: %v", got)
	}
	if got := lt.TryLock("G", "c2", mq); len(got) != 0 {
		t.Fatal("c2 took a queue c1 holds")
	}
	if got := lt.TryLock("G2", "c2", mq); len(got) != 1 {
		t.Fatal("a lock of group G kept group G2 out")
	}
	now = now.Add(LockMaxLiveTime + time.Millisecond)
	if got := lt.TryLock("G", "c2", mq); len(got) != 1 {
		t.Fatal("c2 could not take over an expired lock")
	}
	lt.Unlock("G", "c1", mq) // not its lock any more: no effect
	if got := lt.TryLock("G", "c1", mq); len(got) != 0 {
		t.Fatal("c1 released c2's lock")
	}
	lt.Unlock("G", "c2", mq)
	if got := lt.TryLock("G", "c1", mq); len(got) != 1 {
		t.Fatal("unlock kept the lock")
	}
}

// BenchmarkConsumerManager_PullLookup compares what a pull without FLAG_SUBSCRIPTION
// pays to find its subscription: copying the group (Group, the former path) against
// looking up the one entry (FindSubscription), for a group of 20 consumers
// subscribing 10 topics.
func BenchmarkConsumerManager_PullLookup(b *testing.B) {
	m := NewConsumerManager(zerolog.Nop(), nil)
	topics := make([]string, 10)
	for i := range topics {
		topics[i] = fmt.Sprintf("Topic%d", i)
	}
	for i := 0; i < 20; i++ {
		m.Register(heartbeat("G", "CLUSTERING", topics...), Channel{Conn: &remoting.Conn{}, ClientID: fmt.Sprintf("c%d", i)}, false)
	}
	b.Run("Group", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				g := m.Group("G")
				if _, ok := g.Subscriptions["Topic3"]; !ok || g.MessageModel == "" {
					b.Fatal("not found")
				}
			}
		})
	})
	b.Run("FindSubscription", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if gs, ok := m.FindSubscription("G", "Topic3"); !ok || !gs.Subscribed {
					b.Fatal("not found")
				}
			}
		})
	})
}
