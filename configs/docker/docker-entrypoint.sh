#!/bin/sh
# The Skyrocket image's entrypoint, as apache/rocketmq-docker's: the first argument (or
# $NODE_ROLE) picks the server, the rest are its flags; anything else runs as given, so
# `docker run IMAGE sh -c '...'` and the operators' shell hooks work.
#
#   namesrv|nameserver [flags]   mqnamesrv (port 9876)
#   broker [flags]               mqbroker (10911, VIP 10909, HA 10912); $NAMESRV_ADDR is
#                                its namesrvAddr unless -n or the config sets one; without
#                                -c it reads /etc/skyrocket/broker.conf
#   all-in-one [flags]           skyrocket (NameServer + Broker in one process)
#
# Store and logs are under $HOME (/home/rocketmq/store, /home/rocketmq/logs: the volumes).
# Java-only variables (JAVA_OPT, JAVA_OPT_EXT, HEAP_OPTS) are accepted and ignored.
set -e
role=${1:-${NODE_ROLE:-broker}}
[ $# -gt 0 ] && shift
case $role in
namesrv | nameserver | mqnamesrv)
	exec mqnamesrv "$@"
	;;
broker | mqbroker)
	case " $* " in
	*" -c "* | *" --configFile "*) exec mqbroker "$@" ;;
	*) exec mqbroker -c /etc/skyrocket/broker.conf "$@" ;;
	esac
	;;
all-in-one | skyrocket)
	exec skyrocket "$@"
	;;
*)
	exec "$role" "$@"
	;;
esac
