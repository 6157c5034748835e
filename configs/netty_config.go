package configs

import "runtime"

// NettyServerConfig is Java's org.apache.rocketmq.remoting.netty.NettyServerConfig
// (4.9.8): the listening side of both servers. Skyrocket's remoting is not Netty; the
// fields it has no use for are kept so that Java config files load, print and round-trip.
// Tags as on BrokerConfig.
type NettyServerConfig struct {
	// The listening port (NameServer 9876, broker 10911; the class default is 8888).
	ListenPort int32 `prop:"listenPort"`
	// Netty worker threads.
	ServerWorkerThreads int32 `prop:"serverWorkerThreads"`
	// Public executor threads (0: 4).
	ServerCallbackExecutorThreads int32 `prop:"serverCallbackExecutorThreads"`
	// Selector threads.
	ServerSelectorThreads int32 `prop:"serverSelectorThreads"`
	// Concurrent oneway requests the server sends.
	ServerOnewaySemaphoreValue int32 `prop:"serverOnewaySemaphoreValue"`
	// Concurrent async requests the server sends.
	ServerAsyncSemaphoreValue int32 `prop:"serverAsyncSemaphoreValue"`
	// Seconds of silence after which a connection is closed.
	ServerChannelMaxIdleTimeSeconds int32 `prop:"serverChannelMaxIdleTimeSeconds"`
	// SO_SNDBUF (0: system default).
	ServerSocketSndBufSize int32 `prop:"serverSocketSndBufSize"`
	// SO_RCVBUF (0: system default).
	ServerSocketRcvBufSize int32 `prop:"serverSocketRcvBufSize"`
	// Netty write buffer high water mark (0: Netty default).
	WriteBufferHighWaterMark int32 `prop:"writeBufferHighWaterMark"`
	// Netty write buffer low water mark (0: Netty default).
	WriteBufferLowWaterMark int32 `prop:"writeBufferLowWaterMark"`
	// Listen backlog.
	ServerSocketBacklog int32 `prop:"serverSocketBacklog"`
	// Pooled Netty buffers.
	ServerPooledByteBufAllocatorEnable bool `prop:"serverPooledByteBufAllocatorEnable"`
	// Epoll transport on Linux.
	UseEpollNativeSelector bool `prop:"useEpollNativeSelector"`
}

// DefaultNettyServerConfig returns the Java class defaults: listenPort 8888, which
// NewNamesrv changes to 9876 and NewBroker to 10911 as NamesrvStartup and BrokerStartup do.
func DefaultNettyServerConfig() NettyServerConfig {
	return NettyServerConfig{
		ListenPort:                         8888,
		ServerWorkerThreads:                8,
		ServerSelectorThreads:              3,
		ServerOnewaySemaphoreValue:         256,
		ServerAsyncSemaphoreValue:          64,
		ServerChannelMaxIdleTimeSeconds:    120,
		ServerSocketBacklog:                1024,
		ServerPooledByteBufAllocatorEnable: true,
	}
}

// NettyClientConfig is Java's org.apache.rocketmq.remoting.netty.NettyClientConfig (4.9.8):
// the broker's outbound side (registration with NameServers, slave to master). broker.conf
// sets it with the same keys. Note writeBufferHighWaterMark and writeBufferLowWaterMark
// exist on both Netty configs; one property sets both, as in Java.
type NettyClientConfig struct {
	// Client worker threads.
	ClientWorkerThreads int32 `prop:"clientWorkerThreads"`
	// Client callback threads: CPUs.
	ClientCallbackExecutorThreads int32 `prop:"clientCallbackExecutorThreads"`
	// Concurrent oneway requests.
	ClientOnewaySemaphoreValue int32 `prop:"clientOnewaySemaphoreValue"`
	// Concurrent async requests.
	ClientAsyncSemaphoreValue int32 `prop:"clientAsyncSemaphoreValue"`
	// Connect timeout.
	ConnectTimeoutMillis int32 `prop:"connectTimeoutMillis"`
	// Ms between inactive channel scans.
	ChannelNotActiveInterval int64 `prop:"channelNotActiveInterval"`
	// Seconds of silence after which a client connection is closed.
	ClientChannelMaxIdleTimeSeconds int32 `prop:"clientChannelMaxIdleTimeSeconds"`
	// SO_SNDBUF (0: system default).
	ClientSocketSndBufSize int32 `prop:"clientSocketSndBufSize"`
	// SO_RCVBUF (0: system default).
	ClientSocketRcvBufSize int32 `prop:"clientSocketRcvBufSize"`
	// Pooled Netty buffers.
	ClientPooledByteBufAllocatorEnable bool `prop:"clientPooledByteBufAllocatorEnable"`
	// Close a connection whose request timed out.
	ClientCloseSocketIfTimeout bool `prop:"clientCloseSocketIfTimeout"`
	// TLS to the NameServer and master.
	UseTLS bool `prop:"useTLS"`
	// Netty write buffer high water mark (0: Netty default).
	WriteBufferHighWaterMark int32 `prop:"writeBufferHighWaterMark"`
	// Netty write buffer low water mark (0: Netty default).
	WriteBufferLowWaterMark int32 `prop:"writeBufferLowWaterMark"`
}

// DefaultNettyClientConfig returns Java's defaults (clientCallbackExecutorThreads: CPUs).
func DefaultNettyClientConfig() NettyClientConfig {
	return NettyClientConfig{
		ClientWorkerThreads:             4,
		ClientCallbackExecutorThreads:   int32(runtime.NumCPU()),
		ClientOnewaySemaphoreValue:      65535,
		ClientAsyncSemaphoreValue:       65535,
		ConnectTimeoutMillis:            3000,
		ChannelNotActiveInterval:        60000,
		ClientChannelMaxIdleTimeSeconds: 120,
		ClientCloseSocketIfTimeout:      true,
	}
}
