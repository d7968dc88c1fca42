#!/usr/bin/env bats
# gen-large's options for hosts shaped unlike its own: deeper switches, more
# Selective blocks and associations, faulty streams and dangling links, IDE on
# idle ports, long extended-capability chains, dependents with contexts.

load helper

teardown() {
	teardown_sim
}

# shape OPTS...: a small host with OPTS, built in $T
shape() {
	J=$(mktemp --suffix=.json)
	"$SIM" gen-large --functions 600 --host-bridges 4 --streams 32 "$@" "$J"
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
}

# links: "name target" of every stream link
links() {
	for l in "$T"/sys/devices/pci*/stream*; do echo "${l##*/} $(readlink "$l")"; done
}

@test "gen shapes: switches in a row, blocks pinned, associations, counts exact" {
	shape --switch-depth 3 --sel-blocks 4 --addr-assoc 2
	[ "$(ls "$T/sys/bus/pci/devices" | wc -l)" -eq 600 ]
	[ "$(links | wc -l)" -eq 32 ]
	# root port / (upstream / downstream) x 3 / NIC
	links | awk '{ n = split($2, p, "/"); if (n != 8) { print; bad = 1 } } END { exit bad }'
	# the j-th stream of a host bridge is on NIC block j mod 4, every block used
	[ "$(links | sed 's/^stream[0-9]*\.[0-9]*\.\([0-9]*\) .*/\1/' | sort -u | tr '\n' ' ')" = "0 1 2 3 " ]
	links | awk '{ split($1, h, "[m.]"); if (h[4] != h[2] % 4) { print; bad = 1 } } END { exit bad }'
	local ep=$T/sys/devices/pci0000:00/$(readlink "$T/sys/devices/pci0000:00/stream1.1.1")
	ide=$(ext_cap "$ep/config" 0x30)
	[ $(((16#$(u32 "$ep/config" $((ide + 4))) >> 16 & 0xff) + 1)) -eq 4 ]
	[ $((16#$(sel_reg "$ep/config" 1 cap) & 15)) -eq 2 ]
	# the stream is enabled and secure on the pinned block, the others idle
	[ $((16#$(sel_reg "$ep/config" 1 ctl) & 1)) -eq 1 ]
	[ $((16#$(sel_reg "$ep/config" 1 sts) & 15)) -eq 2 ]
	[ $((16#$(sel_reg "$ep/config" 0 ctl) & 1)) -eq 0 ]
}

@test "gen shapes: faulty streams and as many dangling links" {
	shape --faulty 8
	[ "$(links | wc -l)" -eq 40 ]
	# dangling: to a device that is not there, or to a switch port nothing connected
	local missing=0 stale=0 bad=0 name target ep rp r e
	while read -r name target; do
		[[ $name =~ ^stream2[0-9][0-9]\. ]] || continue
		if [ -e "$T/sys/devices/pci0000:00/$target" ] || [ -e "$T/sys/devices/pci0000:40/$target" ] ||
			[ -e "$T/sys/devices/pci0000:80/$target" ] || [ -e "$T/sys/devices/pci0000:c0/$target" ]; then
			stale=$((stale + 1))
		else
			missing=$((missing + 1))
		fi
	done < <(links)
	[ "$missing" -eq 4 ] && [ "$stale" -eq 4 ]
	# eight real streams with a partner INSECURE or IDE_FAIL
	for l in "$T"/sys/devices/pci*/stream*; do
		[[ ${l##*/} =~ ^stream2[0-9][0-9]\. ]] && continue
		ep=$(readlink -f "$l")
		rp=$(dirname "$l")/$(readlink "$l" | cut -d/ -f1)
		r=$(echo "${l##*/}" | cut -d. -f2)
		e=$(echo "${l##*/}" | cut -d. -f3)
		for s in "$(sel_reg "$ep/config" "$e" sts)" "$(sel_reg "$rp/config" "$r" sts)"; do
			if [ $((16#$s & 15)) -ne 2 ] || [ $((16#$s >> 31)) -eq 1 ]; then bad=$((bad + 1)); break; fi
		done
	done
	[ "$bad" -eq 8 ]
}

@test "gen shapes: long extended chains ahead of IDE; IDE on idle ports" {
	shape --ext-caps 7 --port-ide
	local nic=$T/sys/bus/pci/devices/0000:03:00.0 usp=$T/sys/bus/pci/devices/0000:01:00.0
	# AER first, seven headers before DOE, SR-IOV and IDE
	[ "$(u32 "$nic/config" 0x100 | cut -c5-8)" = 0001 ]
	local off=256 n=0 hdr
	while [ "$off" -ne 0 ]; do
		hdr=$((16#$(u32 "$nic/config" $off)))
		n=$((n + 1))
		[ $((hdr & 0xffff)) -eq $((0x30)) ] && break
		off=$((hdr >> 20))
	done
	[ "$n" -eq 10 ]
	ext_cap "$usp/config" 0x30 >/dev/null
	# a filler root port (no stream) has IDE too; a VF has no extra capabilities
	run ext_cap "$T/sys/bus/pci/devices/0000:03:01.0/config" 0x01
	[ "$status" -ne 0 ]
}

@test "gen shapes: --dependents gives a stream NIC's VFs contexts (generic provider)" {
	shape --dependents
	[ -d "$T/sys/bus/pci/devices/0000:03:01.0/tsm" ]
	[ "$(cat "$T/sys/bus/pci/devices/0000:03:01.0/tsm/dsm")" = 0000:03:00.0 ]
	shape
	[ ! -e "$T/sys/bus/pci/devices/0000:03:01.0/tsm" ]
}

@test "gen shapes: out-of-range options are refused" {
	J=$(mktemp --suffix=.json)
	for o in "--switch-depth 0" "--switch-depth 6" "--sel-blocks 0" "--sel-blocks 257" \
		"--addr-assoc 16" "--faulty 2000" "--ext-caps 65"; do
		# shellcheck disable=SC2086
		run "$SIM" gen-large $o "$J"
		[ "$status" -eq 1 ] || { echo "$o: $status"; return 1; }
		[[ "$output" == *"--switch-depth must be 1..5"* ]]
	done
	run "$SIM" gen-large --port-ide=1 "$J"
	[ "$status" -eq 2 ]
}
