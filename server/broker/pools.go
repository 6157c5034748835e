package broker

import (
	"runtime"

	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// pools are the broker's bounded executors (Java: BrokerController's sendMessageExecutor,
// pullMessageExecutor, adminBrokerExecutor, ...). Requests that never block run inline on
// the event loop instead.
type pools struct {
	pull  *remoting.Pool // PULL_MESSAGE and re-run held pulls
	query *remoting.Pool // QUERY_MESSAGE, VIEW_MESSAGE_BY_ID
	admin *remoting.Pool // admin scans, broker→client relays
	send  *remoting.Pool // sends that must wait (consumer send-back, transactions)
	// client serves HEART_BEAT, UNREGISTER_CLIENT and CHECK_CLIENT_CONFIG (Java:
	// heartbeatExecutor, min(32, cores) threads, and clientManageExecutor): a heartbeat
	// may declare thousands of groups, each creating a group and its %RETRY% topic, and a
	// client config check compiles an SQL92 selector.
	client *remoting.Pool
}

func newPools(o *Options) pools {
	pullThreads := o.PullThreads
	if pullThreads <= 0 {
		pullThreads = 20
	}
	adminThreads := o.AdminThreads
	if adminThreads <= 0 {
		adminThreads = 16
	}
	return pools{
		pull:   &remoting.Pool{Name: "pull", Workers: pullThreads, Queue: o.PullThreadPoolQueueCapacity, MaxWait: o.WaitTimeInPullQueue},
		query:  &remoting.Pool{Name: "query", Workers: 8, Queue: 20000},
		admin:  &remoting.Pool{Name: "admin", Workers: adminThreads, Queue: 10000},
		send:   &remoting.Pool{Name: "send", Workers: 4, Queue: o.SendThreadPoolQueueCapacity, MaxWait: o.WaitTimeInSendQueue},
		client: &remoting.Pool{Name: "client", Workers: min(32, runtime.NumCPU()), Queue: 50000},
	}
}

func (p *pools) stop() {
	for _, pl := range []*remoting.Pool{p.pull, p.query, p.admin, p.send, p.client} {
		pl.Stop()
	}
}

func (p *pools) start() {
	for _, pl := range []*remoting.Pool{p.pull, p.query, p.admin, p.send, p.client} {
		pl.Start()
	}
}
