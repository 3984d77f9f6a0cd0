#!/usr/bin/env bash
# Installs the Debian packages Suite needs, only when something is missing. Used by `make` and CI.
set -euo pipefail

need=()
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
[ -x /usr/bin/sqlite3 ] || need+=(sqlite3)  # the index verify test damages a store with it
[ -f /usr/include/hiredis/hiredis.h ] || need+=(libhiredis-dev)  # the RedisCache plugin is written on hiredis
[ -x /usr/bin/redis-server ] || need+=(redis-server)  # its tests and benchmark start a throwaway server
[ -x /usr/sbin/nginx ] || need+=(nginx-light)  # the Cache tests run a real HTTP server on loopback
[ -x /usr/bin/timew ] || need+=(timewarrior)  # the work tests compare their totals with Timewarrior's
[ -x /usr/bin/wrk ] || need+=(wrk)  # suite-bench sync loads suite serve and a bare Hummingbird route with it
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)  # gzip for the analytics uploader (compress-nio links zlib)
# The PostgresDocuments tests and benchmark start their own throwaway cluster (initdb, as an unprivileged user).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# The web console's tests drive headless Chromium through chromedriver (Selenium comes from PyPI, in a venv).
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
[ -x /usr/sbin/nft ] || need+=(nftables)  # the replica fault test drops and duplicates packets with it
[ -x /usr/sbin/ip ] || [ -x /usr/bin/ip ] || need+=(iproute2)  # … in network namespaces (ip netns, veth)
[ -x /usr/bin/openssl ] || need+=(openssl)  # the Firestore protocol's TLS test makes a certificate with it
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)

if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
