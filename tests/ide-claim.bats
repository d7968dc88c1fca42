#!/usr/bin/env bats
# A Stream ID enabled at boot that the kernel cannot claim (ABI.md §2.4):
# pci_ide_init() returns before it records the IDE capability, so the
# function has no usable IDE. devices -v, audit and connect say why, from
# the registers and the kernel's enumeration order (tests/topologies/ide-claim.json).

load lib/helpers

teardown() {
	unmount_live
}

TAKEN="its Selective block 0 was enabled at boot with Stream ID 5, which 0000:40:03.1's Selective block 1 had claimed first (one claim per ID and host bridge), and the kernel stops at a failed claim"
RESERVED="its Selective block 0 was enabled at boot with the reserved Stream ID 255, which the kernel cannot claim, and the kernel stops at a failed claim"

# status / message / hint of the result of check ID about OBJECT in audit -J's $output
field_of() {
	printf '%s' "$output" | jq -r --arg id "$2" --arg obj "$3" \
		"[.checks[] | select(.id == \$id and .object == \$obj) | .$1] | if length == 1 then .[0] else \"\(length) results\" end"
}

@test "devices -v: the endpoint that lost Stream ID 5 to a root port enumerated before it" {
	ROOT=$(static_tree ide-claim)
	run --separate-stderr t devices -v 41:00.0
	expect_status 0
	[[ "$output" == *"        No usable IDE in the kernel: $TAKEN"$'\n'* ]]
	[[ "$output" == *"    Connect: would fail: the kernel gave it no usable IDE ($TAKEN), so no IDE stream can be set up for it"* ]]
	run --separate-stderr t devices -v -J 41:00.0 42:00.0
	json_is '[.devices[].detail.ide_unusable]' "[\"$TAKEN\",null]"
	# the root port that claimed it first is well: its block 1 is enabled, the rest stamped 255
	run --separate-stderr t devices -v --all -J 40:03.1
	json_is '.devices[0].detail | [.ide_unusable, .ide_registers.selective[1].control]' '[null,83886081]'
}

@test "devices -v: the reserved Stream ID 255, and an endpoint below a root port without usable IDE" {
	ROOT=$(static_tree ide-claim)
	run --separate-stderr t devices -v --all -J 43:00.0 40:07.1 44:00.0
	json_is '[.devices[] | [.bdf, .detail.ide_unusable]]' "[[\"0000:40:07.1\",\"$RESERVED\"],[\"0000:43:00.0\",\"$RESERVED\"],[\"0000:44:00.0\",\"its root port 0000:40:07.1 has none ($RESERVED), and an endpoint's IDE counts only with its root port's\"]]"
}

@test "audit: ide.untracked fails where the claim failed and says why; device.connected points there" {
	ROOT=$(static_tree ide-claim)
	run --separate-stderr t audit -J
	expect_status 1
	[ "$(field_of status ide.untracked 0000:41:00.0)" = fail ]
	[ "$(field_of message ide.untracked 0000:41:00.0)" = "enabled with no stream link: Selective block 0 (Stream ID 5, secure); no usable IDE in the kernel: $TAKEN" ]
	[[ "$(field_of hint ide.untracked 0000:41:00.0)" == "the kernel cannot use this function's IDE until the stream enabled at boot is disabled"* ]]
	[ "$(field_of status ide.untracked 0000:40:07.1)" = fail ]
	# the root port claimed Stream ID 5 first: untracked, but its IDE is the kernel's
	[ "$(field_of status ide.untracked 0000:40:03.1)" = warn ]
	[ "$(field_of status device.connected 0000:41:00.0)" = skip ]
	[[ "$(field_of message device.connected 0000:41:00.0)" == "TEE-IO capable (DEVCAP.TEE), but the kernel gave it no usable IDE ($TAKEN)"* ]]
	[[ "$(field_of hint device.connected 0000:44:00.0)" == "see ide.untracked of it or its root port"* ]]
	# a device whose IDE is the kernel's is only not connected
	[ "$(field_of status device.connected 0000:42:00.0)" = warn ]
}

@test "connect: SEV-TIO's EFAULT is told as the failed claim, nothing left behind" {
	mount_live ide-claim
	run --separate-stderr t connect 41:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:41:00.0: tsm0 could not set up an IDE stream: the kernel gave the device no usable IDE: $TAKEN; nothing is left behind (tsm/connect reads empty, no stream) (EFAULT)" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = "" ]
	[ "$(avail pci0000:40)" = 256 ]
	run t connect 42:00.0 tsm0
	expect_status 0
}
