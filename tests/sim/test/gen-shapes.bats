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
	[ "$missing" -eq 4 ]
	[ "$stale" -eq 4 ]
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

# bridges: how many functions are PCI-to-PCI bridges (class 0604xx)
bridges() {
	cat "$T"/sys/bus/pci/devices/*/class | grep -c '^0x0604'
}

# empty_buses: buses whose bridge has no function below it
empty_buses() {
	local b d n=0
	for b in "$T"/sys/class/pci_bus/*; do
		d=$(readlink -f "$b")
		d=${d%/pci_bus/*}
		ls "$d" | grep -qE '^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$' || n=$((n + 1))
	done
	echo "$n"
}

@test "gen shapes: --fanout puts a switch port in front of every other function" {
	shape
	[ "$(bridges)" -eq 41 ]
	shape --fanout
	[ "$(ls "$T/sys/bus/pci/devices" | wc -l)" -eq 600 ]
	[ "$(links | wc -l)" -eq 32 ]
	# a root or switch port for about every two functions, each bridge with its bus
	local n
	n=$(bridges)
	[ "$n" -ge 280 ]
	[ "$n" -le 300 ]
	[ "$(ls "$T/sys/class/pci_bus" | wc -l)" -eq $((n + 4)) ]
	# a filler drive alone on its downstream port's bus, a single function
	local dsp
	# (01.0 holds the streams, 01.1 the PSP, the fillers from 01.2)
	dsp=$(ls -d "$T"/sys/devices/pci0000:00/0000:00:01.2/0000:*/0000:*/ | head -1)
	[ "$(cat "$dsp/class")" = 0x060400 ]
	[ "$(ls "$dsp" | grep -cE '^0000:')" -eq 1 ]
}

@test "gen shapes: --empty-slots lays buses with nothing on them" {
	shape
	[ "$(empty_buses)" -eq 0 ]
	shape --empty-slots 40
	[ "$(ls "$T/sys/bus/pci/devices" | wc -l)" -eq 600 ]
	[ "$(links | wc -l)" -eq 32 ]
	[ "$(empty_buses)" -eq 40 ]
	# the empty slot's port still has its secondary bus, as the kernel gives it
	local b
	b=$(readlink -f "$T"/sys/class/pci_bus/* | while read -r d; do
		ls "${d%/pci_bus/*}" | grep -qE '^[0-9a-f]{4}:' || { echo "$d"; break; }; done)
	[ "$(ls "${b%/pci_bus/*}" | grep -c pci_bus)" -eq 1 ]
	[ "$(cat "${b%/pci_bus/*}/class")" = 0x060400 ]
}

@test "gen shapes: --vmd puts every host bridge below a VMD endpoint, domains from 10000" {
	shape --vmd
	[ "$(ls "$T/sys/bus/pci/devices" | wc -l)" -eq 600 ]
	local h vmd n=0
	for h in 0 1 2 3; do
		vmd=$(ls -d "$T"/sys/devices/pci0000:*/0000:*:0e.0/pci1000$h:00)
		[ "$(cat "${vmd%/*}/vendor") $(cat "${vmd%/*}/device")" = "0x8086 0x28c0" ]
		n=$((n + $(ls -d "$vmd"/stream* | wc -l)))
		[ -e "$vmd/available_secure_streams" ]
	done
	[ "$n" -eq 32 ]
	# no stream link directly below sys/devices
	if ls -d "$T"/sys/devices/pci*/stream* 2>/dev/null; then false; fi
}

@test "gen shapes: --crowded puts C streams on the last host bridge, each on a root port of its own" {
	shape --crowded 20
	[ "$(ls "$T/sys/bus/pci/devices" | wc -l)" -eq 600 ]
	[ "$(links | wc -l)" -eq 32 ]
	local hb
	hb=$(ls -d "$T"/sys/devices/pci* | tail -1)
	[ "$(ls -d "$hb"/stream* | wc -l)" -eq 20 ]
	# root port / NIC, every root port a different one, every Stream ID different
	[ "$(for l in "$hb"/stream*; do readlink "$l"; done | awk -F/ 'NF == 2 { print $1 }' | sort -u | wc -l)" -eq 20 ]
	[ "$(ls "$hb" | sed -n 's/^stream\([0-9]*\)\..*/\1/p' | sort -u | wc -l)" -eq 20 ]
	J=$(mktemp --suffix=.json)
	for o in "--crowded 256" "--crowded 40" "--crowded 8 --host-bridges 1" "--crowded 8 --faulty 1"; do
		# shellcheck disable=SC2086
		run "$SIM" gen-large --functions 600 --host-bridges 4 --streams 32 $o "$J"
		[ "$status" -eq 1 ] || { echo "$o: $status"; return 1; }
		[[ "$output" == *"--crowded must be 1..255"* ]]
	done
}
