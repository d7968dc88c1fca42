#!/usr/bin/env bats
# Stream IDs enabled at boot that pci_ide_init() cannot claim
# (tests/topologies/ide-claim.json; ABI.md §2.4): the kernel's enumeration
# order decides who claims an ID first, and a failed claim returns before
# ide_cap is set, so that function has no usable IDE.

load helper

paths() {
	HB=$1/sys/devices/pci0000:40
	RP1=$HB/0000:40:01.1
	RP3=$HB/0000:40:03.1
	RP7=$HB/0000:40:07.1
	EP1=$RP1/0000:41:00.0
	EP2=$RP3/0000:42:00.0
	EP3=$HB/0000:40:05.1/0000:43:00.0
	EP4=$RP7/0000:44:00.0
}

teardown() {
	teardown_sim
}

@test "the bus is enumerated before the buses below it: the root port claims Stream ID 5, the endpoint fails" {
	build_tree ide-claim
	paths "$T"
	# 40:03.1 (bus 0x40) claimed Stream ID 5 and went on: its idle blocks got the 255 stamp
	[ "$(sel_reg "$RP3/config" 1 ctl)" = 05000001 ]
	[ "$(sel_reg "$RP3/config" 0 ctl)" = ff000000 ]
	# 41:00.0 (bus 0x41) came later: its claim of 5 failed, pci_ide_init() returned before
	# stamping anything, and its tsm/ group is there for DEVCAP.TEE alone
	[ "$(sel_reg "$EP1/config" 0 ctl)" = 05000001 ]
	[ "$(sel_reg "$EP1/config" 1 ctl)" = 00000000 ]
	[ -e "$EP1/tsm/connect" ]
	# below the root port that won, all is well
	[ "$(sel_reg "$EP2/config" 0 ctl)" = ff000000 ]
}

@test "the reserved Stream ID 255 enabled at boot: no usable IDE; without TEE no tsm/ group" {
	build_tree ide-claim
	paths "$T"
	[ "$(sel_reg "$EP3/config" 0 ctl)" = ff000001 ]
	[ "$(sel_reg "$EP3/config" 1 ctl)" = 00000000 ]
	[ ! -e "$EP3/tsm" ]
	# a root port that failed its claim: the endpoint below it has no usable IDE either
	[ "$(sel_reg "$RP7/config" 1 ctl)" = 00000000 ]
	[ "$(sel_reg "$EP4/config" 0 ctl)" = 00000000 ]
	[ -e "$EP4/tsm/connect" ]
}

@test "live: SEV-TIO cannot allocate a stream for a function without usable IDE (EFAULT), the others connect" {
	mount_topo ide-claim
	paths "$M"
	for ep in "$EP1" "$EP4"; do
		try_write tsm0 "$ep/tsm/connect"
		expect_errno "$EFAULT"
		[ "$(cat "$ep/tsm/connect")" = "" ]
	done
	[ "$(cat "$HB/available_secure_streams")" = 256 ]
	echo tsm0 > "$EP2/tsm/connect"
	# H 0; Stream ID = H = 0, free: the boot streams hold 5 and (reserved) 255
	[ "$(readlink -f "$HB/stream0.0.0")" = "$(readlink -f "$EP2")" ]
	[ "$(sel_reg "$EP2/config" 0 ctl)" = 00c00001 ]
}
