#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/evidence.sh TSMCTL SIM RUNS: the bench's device-evidence row (make
# bench runs it). On a live mount of the devsec sample rig (the kernel's own
# test sizes: 16 MiB in certs, 4 KiB in transcript), "tsmctl evidence -t
# cert0,measurements -o DIR" against "cat" of a 16 MiB file into a file, in
# one run, interleaved: median wall time, peak RSS, and the netlink
# messages and syscalls per MiB tsmctl needed. Prints a Markdown section.
# The files live in $TMPDIR (make bench: its tmpfs), so the safe writer's fsync
# is not timed against cat's none; the floor of the two digests every object
# gets (openssl dgst, the same libcrypto) is printed beside them.
set -eu
tsmctl=$1 sim=$2 runs=$3
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-evidence.XXXXXX")
mnt=$work/mnt
mkdir "$mnt"
# never remove what may still be mounted: rm would walk the simulator's tree
trap 'fusermount3 -u "$mnt" 2>/dev/null; mountpoint -q "$mnt" || rm -rf "$work"' EXIT

"$sim" mount "$top/tests/topologies/devsec-staging.json" "$mnt"
for m in devsec_bus devsec_link_tsm devsec_tsm; do echo "modprobe $m" > "$mnt/tsm-sim-control"; done
head -c $((16 << 20)) /dev/urandom > "$work/big"
dd if="$work/big" of="$mnt/sys/devices/faux/devsec_link_tsm/certs" bs=1M status=none
head -c 4096 /dev/urandom > "$mnt/sys/devices/faux/devsec_link_tsm/transcript"
echo tsm0 > "$mnt/sys/bus/pci/devices/10000:01:00.0/tsm/connect"
export TSMCTL_EVIDENCE_SOCKET
TSMCTL_EVIDENCE_SOCKET=$(cat "$mnt/tsm-sim-evidence")
ev=("$tsmctl" --sysroot "$mnt" evidence 10000:01:00.0 -t cert0,measurements -o "$work/out")

# wall seconds and peak RSS KiB of one run
once() {
	local t0 t1 m
	t0=$EPOCHREALTIME
	m=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1)
	t1=$EPOCHREALTIME
	echo "$(echo "scale=4; ($t1 - $t0) / 1" | bc) $m"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ew="" er="" cw="" cr="" hw=""
for ((i = 0; i < runs; i++)); do
	read -r w r < <(once "${ev[@]}")
	ew+="$w " er+="$r "
	read -r w r < <(once sh -c 'cat "$1" > "$2"' cat "$work/big" "$work/cat.out")
	cw+="$w " cr+="$r "
	read -r w _ < <(once sh -c 'openssl dgst -sha384 "$1" && openssl dgst -sha256 "$1"' digests "$work/big")
	hw+="$w "
done
cmp "$work/out/cert0.spdm-chain" "$work/big"
stats=$("${ev[@]}" -v 2>&1 >/dev/null | sed -n 's/.*dumps\{0,1\}, \([0-9]*\) datagrams, \([0-9]*\) messages, \([0-9]*\) bytes.*/\1 \2 \3/p')
read -r dgrams msgs bytes <<< "$stats"
sys=$(strace -f -c -o "$work/strace" "${ev[@]}" >/dev/null 2>&1; awk '/ total$/ {print $4}' "$work/strace")
mib=$(echo "scale=4; $bytes / 1048576" | bc)
ewm=$(echo "$ew" | median) cwm=$(echo "$cw" | median) erm=$(echo "$er" | median) hwm=$(echo "$hw" | median)
echo "## Device evidence (devsec sample: 16 MiB cert0 + 4 KiB measurements)"
echo
echo "| command | wall s (median of $runs) | peak RSS KiB |"
echo "| --- | --- | --- |"
echo "| tsmctl evidence -t cert0,measurements -o DIR | $ewm | $erm |"
echo "| cat 16 MiB file > file | $cwm | $(echo "$cr" | median) |"
echo "| openssl dgst -sha384, then -sha256, of the file (the digests' floor, libcrypto as tsmctl's) | $hwm | - |"
echo
echo "- wall time: $(echo "scale=2; $ewm / $cwm" | bc)x cat's (target within 3x: $([ "$(echo "$ewm <= 3 * $cwm" | bc)" = 1 ] && echo met || echo "NOT MET"))"
echo "- the two digests every object gets, on their own (openssl dgst, two processes): $(echo "scale=2; $hwm / $cwm" | bc)x cat's"
echo "- peak RSS: $erm KiB (target under 8192 KiB, the object streamed: $([ "$erm" -lt 8192 ] && echo met || echo "NOT MET"))"
echo "- per MiB received: $(echo "scale=1; $msgs / $mib" | bc) netlink messages in $(echo "scale=1; $dgrams / $mib" | bc) datagrams, $(echo "scale=1; $sys / $mib" | bc) syscalls ($msgs messages, $sys syscalls in all)"
echo
