#!/usr/bin/env bash
# Install and start the reference PCP 6.0.3 (Debian's packages), idempotently:
# packages, pmcd running, the sample PMDA installed. Safe to run again; exits
# non-zero if the reference cannot be had, which fails CI.
#
# Debian's pcp package calls systemctl while configuring; machines without
# systemd get a stand-in that succeeds (on PATH for this script only).
set -euo pipefail

want_version=6.0.3
packages="pcp libpcp3-dev python3-pcp pcp-testsuite libpcp-pmda3-dev"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
printf '#!/bin/sh\nexit 0\n' > "$shim/systemctl"
chmod +x "$shim/systemctl"
export PATH="$shim:$PATH" DEBIAN_FRONTEND=noninteractive

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    $sudo apt-get update -qq
    # the configure step of pcp may fail on systemd bits: finish it below
    $sudo apt-get install -y -qq $packages >/dev/null || true
    $sudo dpkg --configure -a
fi
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || {
        echo "setup: package $p is not installed" >&2
        exit 1
    }
done
have=$(dpkg-query -W -f='${Version}' pcp)
case "$have" in
    "$want_version"-*) ;;
    *) echo "setup: pcp $have installed, the reference is $want_version" >&2; exit 1 ;;
esac

if ! pminfo -h localhost pmcd.version >/dev/null 2>&1; then
    echo "setup: starting pmcd"
    $sudo /etc/init.d/pmcd start >/dev/null
    for _ in $(seq 1 30); do
        pminfo -h localhost pmcd.version >/dev/null 2>&1 && break
        sleep 1
    done
fi
pminfo -h localhost pmcd.version >/dev/null || { echo "setup: pmcd is not answering" >&2; exit 1; }

# pmproxy, for host specifications that name a proxy (host@proxy)
if ! pminfo -h localhost@localhost pmcd.version >/dev/null 2>&1; then
    echo "setup: starting pmproxy"
    $sudo /etc/init.d/pmproxy start >/dev/null
    for _ in $(seq 1 30); do
        pminfo -h localhost@localhost pmcd.version >/dev/null 2>&1 && break
        sleep 1
    done
fi
pminfo -h localhost@localhost pmcd.version >/dev/null || { echo "setup: pmproxy is not relaying" >&2; exit 1; }

if ! pminfo -h localhost sample.control >/dev/null 2>&1; then
    echo "setup: installing the sample PMDA"
    (cd /var/lib/pcp/pmdas/sample && $sudo ./Install </dev/null >/dev/null)
fi
pminfo -h localhost sample.control >/dev/null || { echo "setup: sample PMDA missing" >&2; exit 1; }
echo "setup: reference PCP $(pminfo -f pmcd.version | sed -n 's/.*value "\(.*\)"/\1/p') ready"
