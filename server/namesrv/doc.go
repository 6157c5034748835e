// Package namesrv is Skyrocket's NameServer: the route table that brokers register with
// and clients query, broker liveness, and the KV config store (Java: namesrv module,
// RouteInfoManager, KVConfigManager, DefaultRequestProcessor).
//
// It serves every request code of the 4.9.8 DefaultRequestProcessor (handlers.go holds
// the table). Where Java returns no response for a code it does not know (the caller then
// times out), Skyrocket answers REQUEST_CODE_NOT_SUPPORTED, as the broker does.
//
// Lock order: Server.routes.mu before KVStore.mu is never needed; each is taken alone.
package namesrv
