# Skyrocket: mqnamesrv, mqbroker and the all-in-one skyrocket, static, on busybox (which
# brings /bin/sh, cat, mkdir, chmod: rocketmq-operator's PostStart hook runs a shell).
# The layout follows apache/rocketmq's image: user rocketmq (uid 3000), store and logs
# under /home/rocketmq as volumes, Java's ports. `make image` builds it, or, without a
# docker daemon, the same files as bin/skyrocket-rootfs.tar.gz (.ci/rootfs.sh).
#
#   docker run -d --name ns IMAGE namesrv
#   docker run -d --name broker -e NAMESRV_ADDR=ns:9876 --stop-timeout 90 IMAGE broker
#
# SIGTERM (docker stop) drains the broker for 35 s (mqbroker -drain) before it stops:
# give it a stop timeout (--stop-timeout, Kubernetes terminationGracePeriodSeconds) of
# at least 60 s, or pass -drain 0.
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN apk add --no-cache tar && ./.ci/rootfs.sh /rootfs

FROM busybox:1.37
COPY --from=build /rootfs/ /
RUN chown -R 3000:3000 /home/rocketmq
USER rocketmq
ENV HOME=/home/rocketmq
WORKDIR /home/rocketmq
# Java's: NameServer, broker VIP (listenPort-2), broker, HA (listenPort+1).
EXPOSE 9876 10909 10911 10912
VOLUME ["/home/rocketmq/store", "/home/rocketmq/logs"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["broker"]
