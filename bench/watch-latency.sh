#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/watch-latency.sh TSMCTL SIM TOPOLOGY N: the bench's watch latency row
# (make bench runs it). On a live mount of TOPOLOGY, "tsmctl watch -i 1"
# runs in the root network namespace, where the simulator's uevents do not
# reach it (tests/sim/README.md), so only its looks can see a change. Then N
# times each: a stream's endpoint drops to INSECURE, an endpoint reports IDE
# Fail, and a DSM is disconnected through tsm/disconnect, each on a stream
# not touched before. Latency is the time from the change's write returning
# (the simulator makes it visible only then: it rewrites its tree under its
# lock, seconds on this size, printed apart) to watch's line for it. Prints
# a Markdown section.
set -eu
tsmctl=$1 sim=$2 topology=$3 n=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-watch.XXXXXX")
mnt=$work/mnt
mkdir "$mnt"
wpid=
# never remove what may still be mounted: rm would walk the simulator's tree
cleanup() {
	if [ -n "$wpid" ]; then
		kill "$wpid" 2>/dev/null || true
		wait "$wpid" 2>/dev/null || true
	fi
	if mountpoint -q "$mnt" && ! fusermount3 -u "$mnt"; then
		echo "bench: $mnt is still mounted: left in place" >&2
		return
	fi
	rm -rf "$work"
}
trap cleanup EXIT

"$sim" mount "$topology" "$mnt"
# the DSMs with a stream: each link's endpoint, function 0 only (drop and disconnect take a DSM)
mapfile -t dsms < <(for l in "$mnt"/sys/devices/pci*/stream*; do basename "$(readlink "$l")"; done |
	grep '\.0$' | sort -u)
if [ "${#dsms[@]}" -lt $((3 * n)) ]; then
	echo "bench: watch latency needs $((3 * n)) DSMs with a stream, the topology has ${#dsms[@]}" >&2
	exit 1
fi

# what a new snapshot costs on this mount: a watch that takes one and looks once (0.1 s later)
t0=$EPOCHREALTIME
"$tsmctl" --sysroot "$mnt" watch -i 0.1 --count 1 >/dev/null
snap=$(echo "scale=3; ($EPOCHREALTIME - $t0) / 1" | bc)

coproc WATCH { exec "$tsmctl" --sysroot "$mnt" -v watch -i 1 2>"$work/err"; }
wpid=$WATCH_PID
for ((i = 0; i < 600; i++)); do
	grep -q "checking every" "$work/err" 2>/dev/null && break
	sleep 0.1
done
grep -q "checking every" "$work/err" || { echo "bench: watch did not start: $(head -1 "$work/err")" >&2; exit 1; }

# latency EVENT CHANGE... → "seconds the change's write took" and "seconds
# from its return to watch's first EVENT line"
latency() {
	local event=$1 t0 t1 line
	shift
	t0=$EPOCHREALTIME
	"$@"
	t1=$EPOCHREALTIME
	while read -t 120 -r line <&"${WATCH[0]}"; do
		if [[ "$line" == *" $event "* ]]; then
			echo "$(echo "scale=3; ($t1 - $t0) / 1" | bc) $(echo "scale=3; ($EPOCHREALTIME - $t1) / 1" | bc)"
			return 0
		fi
	done
	echo "bench: watch said no $event within 120 s" >&2
	return 1
}
ctl() { echo "$*" > "$mnt/tsm-sim-control"; }
disconnect() { cat "$mnt/sys/bus/pci/devices/$1/tsm/connect" > "$mnt/sys/bus/pci/devices/$1/tsm/disconnect"; }

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
worst() { tr ' ' '\n' | grep . | sort -g | tail -1; }
drop="" fail="" disc="" writes=""
for ((i = 0; i < n; i++)); do
	read -r w l < <(latency stream-insecure ctl drop "${dsms[3 * i]}" ep)
	drop+="$l " writes+="$w "
	read -r w l < <(latency stream-ide-fail ctl ide-fail "${dsms[3 * i + 1]}" ep)
	fail+="$l " writes+="$w "
	read -r w l < <(latency device-disconnected disconnect "${dsms[3 * i + 2]}")
	disc+="$l " writes+="$w "
done

echo "## watch latency ($(basename "$topology" .json) on a live mount, -i 1, no uevents: the looks alone)"
echo
echo "| change | median s ($n each) | worst s |"
echo "| --- | ---: | ---: |"
echo "| \`drop DSM ep\` → stream-insecure | $(echo "$drop" | median) | $(echo "$drop" | worst) |"
echo "| \`ide-fail DSM ep\` → stream-ide-fail | $(echo "$fail" | median) | $(echo "$fail" | worst) |"
echo "| tsm/disconnect → device-disconnected | $(echo "$disc" | median) | $(echo "$disc" | worst) |"
echo
all=$(echo "$drop $fail" | worst)
echo "- a change the look reads (the Status registers): at most $all s (target within one interval and a look, 1 s plus the look: $([ "$(echo "$all <= 1.5" | bc)" = 1 ] && echo met || echo "NOT MET"))"
echo "- the simulator holds its lock through its write, and a look that starts meanwhile waits on it and reads the change as soon as it is made: so these figures are mostly the rest of one look, and the wait for the next look (at most the interval) seldom shows in them"
echo "- a disconnect moves the structure: the look sees tsm/connect change, then watch takes a new snapshot of the whole mount over FUSE, whose time is in these figures (a snapshot and a look on this mount: $snap s)"
echo "- the simulator's own write (its tree rewritten under its lock, before the change can be seen): median $(echo "$writes" | median) s, not counted above"
echo
