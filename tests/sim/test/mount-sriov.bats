#!/usr/bin/env bats
# sriov_numvfs on the live mount (drivers/pci/iov.c sriov_numvfs_store()):
# VFs added and removed as the kernel does, each VF's add uevent before
# pci_tsm_init() gives it a context below a connected DSM (its tsm/ group,
# no uevent of its own; ABI.md §2.2, §2.8).

load helper

GPU_JQ='(.. | objects | select(.bdf? == "0000:27:00.0"))'

paths() {
	GPU=$M/sys/devices/pci0000:26/0000:26:01.0/0000:27:00.0
	VF1=$M/sys/devices/pci0000:26/0000:26:01.0/0000:27:00.1
	VF2=$M/sys/devices/pci0000:26/0000:26:01.0/0000:27:00.2
}

teardown() {
	teardown_sim	# a listener a failed test left, too
	[ -n "${NS:-}" ] && umount "$NS" 2>/dev/null
	true
}

@test "sriov_numvfs: ERANGE past sriov_totalvfs, EINVAL for no number, EBUSY to change a count, 0 removes" {
	mount_jq tdx-connect "$GPU_JQ.vfs |= (.count = 0 | .total = 4)"
	paths
	[ "$(cat "$GPU/sriov_totalvfs")" = 4 ]
	[ "$(cat "$GPU/sriov_numvfs")" = 0 ]
	[ ! -e "$VF1" ]
	try_write 5 "$GPU/sriov_numvfs"
	expect_errno "$ERANGE"
	try_write x "$GPU/sriov_numvfs"
	expect_errno "$EINVAL"
	try_write 0x2 "$GPU/sriov_numvfs"
	[ "$status" -eq 0 ]
	[ "$(cat "$GPU/sriov_numvfs")" = 2 ]
	[ "$(readlink -f "$GPU/virtfn1")" = "$(readlink -f "$VF2")" ]
	[ "$(readlink -f "$VF1/physfn")" = "$(readlink -f "$GPU")" ]
	try_write 3 "$GPU/sriov_numvfs"
	expect_errno "$EBUSY"
	try_write 2 "$GPU/sriov_numvfs"
	[ "$status" -eq 0 ]
	try_write 0 "$GPU/sriov_numvfs"
	[ "$status" -eq 0 ]
	[ ! -e "$VF1" ]
	[ ! -e "$GPU/virtfn0" ]
	[ "$(cat "$GPU/sriov_numvfs")" = 0 ]
}

@test "sriov_numvfs: ENOENT without a PF driver" {
	mount_jq tdx-connect "$GPU_JQ |= (del(.driver) | .vfs |= (.count = 0 | .total = 4))"
	paths
	try_write 1 "$GPU/sriov_numvfs"
	expect_errno "$ENOENT"
	[ ! -e "$VF1" ]
}

@test "a VF added below a connected DSM: its add uevent first, its tsm/ group after it, with no uevent" {
	topo_file < <(jq "$GPU_JQ.vfs |= (.count = 0 | .total = 4 | .tsm_init_manually = true)" \
		"$TOPO/tdx-connect.json")
	mount_listening "$J"
	paths
	echo tsm0 > "$GPU/tsm/connect"
	( echo 1 > "$GPU/sriov_numvfs" ) &
	WPID=$!
	wait_until [ -d "$VF1" ]
	# pci_tsm_init() has not run yet: the function is there with its add uevent, its group is not
	holding "$M" pci-tsm-init 0000:27:00.1
	[ ! -e "$VF1/tsm" ]
	wait_for_line "$EV" '^add /devices/.*/0000:27:00.1 SUBSYSTEM=pci '
	kill -0 "$WPID"	# the write returns once the VF is in
	release_step "$M" pci-tsm-init 0000:27:00.1
	wait_gone "$WPID"
	wait "$WPID"
	[ "$(cat "$VF1/tsm/dsm")" = 0000:27:00.0 ]
	[ "$(cat "$VF1/authenticated")" = tsm0 ]
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
	listen_end	# its events were sent before the write returned
	# one event for the VF, its add; none for its group
	[ "$(grep -c '0000:27:00.1' "$EV")" -eq 1 ]
	grep -q '^add /devices/.*/0000:27:00.1 SUBSYSTEM=pci ' "$EV"
}

@test "pci-tsm-init: ENXIO with no VF add held there; each VF of a write is held in turn" {
	mount_jq tdx-connect "$GPU_JQ.vfs |= (.count = 0 | .total = 4 | .tsm_init_manually = true)"
	paths
	try_write "pci-tsm-init 0000:27:00.1" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	try_write "pci-tsm-init" "$M/tsm-sim-control"
	expect_errno "$EINVAL"
	echo tsm0 > "$GPU/tsm/connect"
	( echo 2 > "$GPU/sriov_numvfs" ) &
	WPID=$!
	wait_until [ -d "$VF1" ]
	[ "$(cat "$M/tsm-sim-holds")" = "held pci-tsm-init 0000:27:00.1" ]
	[ ! -e "$VF2" ]	# sriov_add_vfs() adds them one after the other
	try_write "pci-tsm-init 0000:27:00.2" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	try_write "spdm-done 0000:27:00.1" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	release_step "$M" pci-tsm-init 0000:27:00.1
	wait_until [ -d "$VF2" ]
	[ -e "$VF1/tsm/dsm" ]
	holding "$M" pci-tsm-init 0000:27:00.2
	[ ! -e "$VF2/tsm" ]
	release_step "$M" pci-tsm-init 0000:27:00.2
	wait_gone "$WPID"
	wait "$WPID"
	[ "$(cat "$VF2/tsm/dsm")" = 0000:27:00.0 ]
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
	# removing them holds nothing
	echo 0 > "$GPU/sriov_numvfs"
	[ ! -e "$VF1" ]
}
