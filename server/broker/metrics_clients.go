package broker

// The rocketmq_client_* families of /metrics: each online consumer's ConsumerRunningInfo
// status table (consume and pull RT/TPS, failed messages per topic), fetched with
// GET_CONSUMER_RUNNING_INFO (307) as rocketmq-exporter fetches it, from a background
// goroutine every period (a scrape never waits for a client). Off by default, as it
// costs a request to every consumer (metricsClientStatsEnable). The last round's rows
// replace the previous ones, so a client that went away is gone at the next round.

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
)

// clientStatus is one entry of ConsumerRunningInfo.statusTable (Java: ConsumeStatus).
type clientStatus struct {
	PullRT            float64 `json:"pullRT"`
	PullTPS           float64 `json:"pullTPS"`
	ConsumeRT         float64 `json:"consumeRT"`
	ConsumeOKTPS      float64 `json:"consumeOKTPS"`
	ConsumeFailedTPS  float64 `json:"consumeFailedTPS"`
	ConsumeFailedMsgs int64   `json:"consumeFailedMsgs"`
}

// EnableClientMetrics starts polling every online consumer's running info every period
// (at least 1 s) until Shutdown; the rows feed the rocketmq_client_* families.
func (b *Broker) EnableClientMetrics(period time.Duration) {
	period = max(period, time.Second)
	empty := []metrics.ClientConsume{}
	b.clientRows.Store(&empty)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.pollClients()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.pollClients()
			}
		}
	}()
}

// pollClients asks each online consumer for its running info, one at a time. A consumer
// that does not answer this round (busy, slow network) keeps its rows of the last round,
// so its series do not flicker out of a scrape; a consumer gone is gone at once.
func (b *Broker) pollClients() {
	type key struct{ clientID, group string }
	last := map[key][]metrics.ClientConsume{}
	if p := b.clientRows.Load(); p != nil {
		for _, r := range *p {
			k := key{r.ClientID, r.Group}
			last[k] = append(last[k], r)
		}
	}
	var rows []metrics.ClientConsume
	for _, group := range b.consumers.Groups() {
		g := b.consumers.Group(group)
		if g == nil {
			continue
		}
		for conn, ch := range g.Channels {
			if ch.Version < protocol.VersionV3_1_8_Snapshot {
				continue
			}
			req := protocol.NewRequest(protocol.CodeGetConsumerRunningInfo)
			(&protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: ch.ClientID}).Encode(&req.Ext)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			resp, err := conn.Invoke(ctx, req, 3*time.Second)
			cancel()
			if err != nil || resp.Code != int32(protocol.ResSuccess) {
				b.log.Debug().Err(err).Str("group", group).Str("client", ch.ClientID).Msg("client metrics: running info not answered")
				rows = append(rows, last[key{ch.ClientID, group}]...)
				continue
			}
			var info struct {
				StatusTable map[string]clientStatus `json:"statusTable"`
			}
			std, err := compat.NormalizeJSON(resp.Body)
			if err == nil {
				err = json.Unmarshal(std, &info)
			}
			if err != nil {
				b.log.Debug().Err(err).Str("group", group).Str("client", ch.ClientID).Msg("client metrics: running info does not parse")
				rows = append(rows, last[key{ch.ClientID, group}]...)
				continue
			}
			for topic, st := range info.StatusTable {
				rows = append(rows, metrics.ClientConsume{ClientAddr: conn.RemoteAddr(), ClientID: ch.ClientID, Group: group, Topic: topic,
					FailedMsgs: st.ConsumeFailedMsgs, FailedTPS: st.ConsumeFailedTPS, OKTPS: st.ConsumeOKTPS,
					ConsumeRT: st.ConsumeRT, PullRT: st.PullRT, PullTPS: st.PullTPS})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, c := &rows[i], &rows[j]
		if a.ClientAddr != c.ClientAddr {
			return a.ClientAddr < c.ClientAddr
		}
		if a.ClientID != c.ClientID {
			return a.ClientID < c.ClientID
		}
		if a.Group != c.Group {
			return a.Group < c.Group
		}
		return a.Topic < c.Topic
	})
	b.clientRows.Store(&rows)
}

// visitClients reports the last round's rows.
func (b *Broker) visitClients(s *metrics.Scrape) {
	p := b.clientRows.Load()
	if p == nil {
		return
	}
	for i := range *p {
		s.Client(&(*p)[i])
	}
}
