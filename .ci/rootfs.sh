#!/bin/sh
# .ci/rootfs.sh OUT: the files the Skyrocket image adds to its base (Dockerfile: a busybox
# root, which brings /bin/sh), as a directory OUT or, when OUT ends in .tar.gz, a tarball
# (make image without a docker daemon). The Dockerfile's build stage runs this same
# script, so both have one layout:
#
#   usr/local/bin/{mqnamesrv,mqbroker,skyrocket}   static (CGO_ENABLED=0), stripped
#   usr/local/bin/{mqshutdown,docker-entrypoint.sh}
#   etc/passwd, etc/group                          root, nobody and rocketmq (uid/gid 3000,
#                                                  as apache/rocketmq's image)
#   home/rocketmq/{store,logs}                     owned by rocketmq: the volumes
#   etc/skyrocket/broker.conf                      the sample configs/broker.conf
set -eu
out=${1:?usage: rootfs.sh OUT[.tar.gz]}
here=$(cd "$(dirname "$0")/.." && pwd)
case $out in
*.tar.gz) root=$(mktemp -d) tarball=$out ;;
*) root=$out tarball= ;;
esac
mkdir -p "$root/usr/local/bin" "$root/etc/skyrocket" "$root/home/rocketmq/store" "$root/home/rocketmq/logs"
cd "$here"
CGO_ENABLED=0 ${GO:-go} build -trimpath -buildvcs=false -ldflags='-s -w' -o "$root/usr/local/bin/" \
	./cmd/mqnamesrv ./cmd/mqbroker ./cmd/skyrocket
install -m 0755 cmd/mqshutdown/mqshutdown "$root/usr/local/bin/mqshutdown"
install -m 0755 configs/docker/docker-entrypoint.sh "$root/usr/local/bin/docker-entrypoint.sh"
install -m 0644 configs/broker.conf "$root/etc/skyrocket/broker.conf"
cat >"$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
rocketmq:x:3000:3000:rocketmq:/home/rocketmq:/bin/sh
PASSWD
cat >"$root/etc/group" <<GROUP
root:x:0:
nobody:x:65534:
rocketmq:x:3000:
GROUP
if [ -n "$tarball" ]; then
	mkdir -p "$(dirname "$tarball")"
	# Owners as in the image: root for everything, rocketmq for its home.
	tar --sort=name --owner=0 --group=0 --numeric-owner -C "$root" -cf "$tarball.tmp" etc usr
	tar --owner=0 --group=0 --numeric-owner --no-recursion -C "$root" -rf "$tarball.tmp" home
	tar --owner=3000 --group=3000 --numeric-owner -C "$root" -rf "$tarball.tmp" home/rocketmq
	gzip -9n <"$tarball.tmp" >"$tarball"
	rm -f "$tarball.tmp"
	rm -rf "$root"
	echo "root filesystem of the image's layer: $tarball (extract onto a root with /bin/sh, e.g. busybox)"
fi
