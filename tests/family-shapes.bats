#!/usr/bin/env bats
# The evidence family's two shapes (ABI.md §1.6): device-evidence
# (intel-staging/tdx) and the older pci-tsm of the devsec mirror, whose
# attribute numbers differ and which has no generation or length. tsmctl
# resolves the family by name and reads device-evidence only; a kernel that
# offers pci-tsm alone is refused by that name, nothing read, nothing sent.

load lib/helpers

teardown() {
	unmount_live
}

# tsmctl with the simulator's evidence socket (use with run)
tsm() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" "$@"
}

@test "device-evidence is read as before" {
	mount_live sev-tio
	run --separate-stderr tsm evidence 41:00.0 -J
	expect_status 0
	json_is '.evidence[0] | [.bdf, .generation]' '["0000:41:00.0",1]'
}

@test "a kernel with pci-tsm alone: evidence is refused by the family's name, nothing saved" {
	mount_live sev-tio
	echo "evidence-family pci-tsm" > "$ROOT/tsm-sim-control"
	out=$BATS_TEST_TMPDIR/saved
	run --separate-stderr tsm evidence 41:00.0 -o "$out"
	expect_status 1
	[ "$stderr" = "tsmctl evidence 0000:41:00.0: the kernel has no device-evidence generic netlink family but the older pci-tsm one, which tsmctl does not read: its attributes have other numbers, and it has no generation to tie a read to what an accept then acts on, nor an object length (ABI.md §1.6); use a kernel with device-evidence (ENOENT)" ]
	[ ! -e "$out" ] || [ -z "$(ls -A "$out")" ]
	# the same words where audit judges evidence
	run --separate-stderr tsm audit -J -d 41:00.0
	printf '%s' "$output" | jq -e '[.checks[] | select(.id == "device.evidence")][0] | .status == "skip" and (.message | contains("but the older pci-tsm one"))'
}

@test "neither family: the kernel lacks device evidence, said as before" {
	mount_live sev-tio
	echo "evidence-family pci-tsm" > "$ROOT/tsm-sim-control"
	echo "evidence-family device-evidence" > "$ROOT/tsm-sim-control"
	run --separate-stderr tsm evidence 41:00.0 -J
	expect_status 0
	# no socket at all stands for a kernel without either family
	run --separate-stderr env -u TSMCTL_EVIDENCE_SOCKET "$TSMCTL" --sysroot "$ROOT" evidence 41:00.0
	expect_status 1
	[[ "$stderr" != *"pci-tsm"* ]]
}
