#!/usr/bin/env bats
# Live mount of the devsec rig with the proposed ABI.

load helper

setup() {
	mount_topo devsec-proposed
	S=$M/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	HB1=$S/devices/faux/devsec_bus/pci10001:02
	PF0=$HB0/10000:00:00.0/10000:01:00.0
	PF1=$HB0/10000:00:00.0/10000:01:00.1
	PF0B=$HB1/10001:02:00.0/10001:03:00.0
	TSM0=$S/class/tsm/tsm0
}

teardown() {
	teardown_sim
}

@test "tsmN/pciDDDD:BB links follow the streams (devsec.sh multi-connect)" {
	[ -z "$(ls "$TSM0/" | grep '^pci[0-9a-f]')" ]
	echo tsm0 > "$PF0/tsm/connect"
	echo tsm0 > "$PF0B/tsm/connect"
	[ "$(readlink -f "$TSM0/pci10000:00")" = "$(readlink -f "$HB0")" ]
	[ "$(readlink -f "$TSM0/pci10000:00/stream0.0.0")" = "$(readlink -f "$PF0")" ]
	[ "$(readlink -f "$TSM0/pci10001:02/stream0.0.0")" = "$(readlink -f "$PF0B")" ]
	[ -z "$(ls "$S/class/tsm/tsm1/" | grep '^pci[0-9a-f]')" ]
	echo tsm0 > "$PF0/tsm/disconnect"
	[ ! -e "$TSM0/pci10000:00" ]
	[ -L "$TSM0/pci10001:02" ]
	echo tsm0 > "$PF0B/tsm/disconnect"
	[ ! -e "$TSM0/pci10001:02" ]
}

@test "connect to the devsec TSM is ENXIO" {
	try_write tsm1 "$PF0/tsm/connect"
	expect_errno "$ENXIO"
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
}

@test "lock reads the context holder; a dependent's link context makes lock EBUSY" {
	[ "$(cat "$PF0/tsm/lock")" = "" ]
	echo tsm0 > "$PF0/tsm/connect"
	[ "$(cat "$PF0/tsm/lock")" = tsm0 ]
	[ "$(cat "$PF1/tsm/dsm")" = 10000:01:00.0 ]
	try_write tsm1 "$PF1/tsm/lock"
	expect_errno "$EBUSY"
	# accept on a link context calls the link TSM's missing accept op (the kernel
	# oopses; EFAULT here); unlock with another name than the holder's is EINVAL
	try_write 1 "$PF1/tsm/accept"
	expect_errno "$EFAULT"
	try_write tsm1 "$PF1/tsm/unlock"
	expect_errno "$EINVAL"
	[ "$(cat "$PF1/tsm/accept")" = 0 ]
	echo tsm0 > "$PF0/tsm/disconnect"
	echo tsm1 > "$PF1/tsm/lock"
	[ "$(cat "$PF1/tsm/lock")" = tsm1 ]
	[ "$(cat "$PF0/tsm/lock")" = "" ]
}
