#!/usr/bin/env bats
# tsmctl lock / accept / unlock (the proposed guest TDISP ABI) against the
# live simulator: checks before the write, one write, and what the kernel
# shows afterwards (tsm/lock, tsm/accept, the driver link), plus the TDISP
# state in devices, list and audit's device.tdisp.

load lib/helpers

teardown() {
	release_held	# a process a failed test left held
	unmount_live
}

# Mount guest-sev.json changed by the jq FILTER (default: as shipped); sets ROOT.
mount_guest() {
	jq "${1:-.}" "$TOPO/guest-sev.json" > "$BATS_TEST_TMPDIR/topo.json" || return 1
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/topo.json" "$ROOT"
}

# A third TEE VF like 0000:00:05.0 (no driver), at 0000:00:07.0.
THIRD='.host_bridges[0].devices += [.host_bridges[0].devices[1] | .bdf = "0000:00:07.0"]'
# A second devsec TSM, tsm1.
TSM1='.tsms += [{"id": 1, "kind": "devsec", "parent": "platform:tdisp-second"}]'

lockf() { cat "$(dev "$1")/tsm/lock"; }
acceptf() { cat "$(dev "$1")/tsm/accept"; }
drv() {
	local l
	l=$(readlink "$(dev "$1")/driver") || { echo none; return 0; }
	basename "$l"
}

# Run tsmctl under strace (writes only) into $BATS_TEST_TMPDIR/trace.
traced() {
	command -v strace >/dev/null || skip "strace not installed"
	# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run --separate-stderr strace -f -e trace=write -o "$BATS_TEST_TMPDIR/trace" \
		"$TSMCTL" --sysroot "$ROOT" "$@"
}

# Stores of a TSM name or a boolean that reached the kernel, per the trace.
stores() {
	grep -cE 'write\([0-9]+, "(tsm[0-9]+|1)", [0-9]+\)' "$BATS_TEST_TMPDIR/trace" || true
}

# ---- the cycle ----

@test "lock, accept, unlock: one store each, and the kernel shows each state" {
	mount_guest
	[ "$(lockf 0000:00:05.0)" = "" ]
	traced lock 00:05.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: locked to tsm0; next: tsmctl accept --verify 0000:00:05.0" ]
	[ "${lines[1]}" = "locked 1 of 1 device" ]
	[ "$(stores)" -eq 1 ]
	grep -q 'write([0-9]*, "tsm0", 4) *= 4' "$BATS_TEST_TMPDIR/trace"
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]

	traced accept 00:05.0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: accepted (locked to tsm0); its evidence was not checked ('tsmctl accept --verify' checks it first)" ]
	[ "${lines[1]}" = "accepted 1 of 1 device" ]
	[ "$(stores)" -eq 1 ]
	grep -q 'write([0-9]*, "1", 1) *= 1' "$BATS_TEST_TMPDIR/trace"
	[ "$(acceptf 0000:00:05.0)" = 1 ]
	[ "$(lockf 0000:00:05.0)" = tsm0 ]

	# unlock without a TSM writes the holder's name, read from tsm/lock
	traced unlock 00:05.0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: unlocked from tsm0" ]
	[ "${lines[1]}" = "unlocked 1 of 1 device" ]
	[ "$(stores)" -eq 1 ]
	grep -q 'write([0-9]*, "tsm0", 4) *= 4' "$BATS_TEST_TMPDIR/trace"
	[ "$(lockf 0000:00:05.0)" = "" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
	[ "$(drv 0000:00:05.0)" = none ]
}

@test "-J: one result per device with the TDISP state the kernel shows afterwards" {
	mount_guest
	run --separate-stderr t lock -J 00:05.0 tsm0
	expect_status 0
	json_is 'keys' '["results","schema_version"]'
	json_is '.schema_version' 1
	json_is '.results[0] | keys' '["accepted","action","bdf","driver","errno","locked","message","result","tsm"]'
	json_is '.results[0] | [.bdf, .action, .result, .errno, .message, .tsm, .locked, .accepted, .driver]' \
		'["0000:00:05.0","lock","ok",null,"locked to tsm0; next: tsmctl accept --verify 0000:00:05.0","tsm0","tsm0",false,null]'
	[ -z "$stderr" ]
	run --separate-stderr t accept -J 00:05.0
	json_is '.results[0] | [.action, .result, .tsm, .locked, .accepted]' '["accept","ok","tsm0","tsm0",true]'
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	run --separate-stderr t unlock -J 00:05.0
	expect_status 1
	json_is '.results[0] | [.action, .result, .errno, .tsm, .locked, .accepted, .driver]' \
		'["unlock","failed","EBUSY","tsm0","tsm0",true,"vfio-pci"]'
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
}

@test "-v prints the path written; --help follows the usual layout" {
	mount_guest
	run --separate-stderr t lock -v 00:05.0 tsm0
	expect_status 0
	[ "$stderr" = "tsmctl lock: writing 'tsm0' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/lock" ]
	run --separate-stderr t accept -v 00:05.0
	[ "$stderr" = "tsmctl accept: writing '1' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/accept" ]
	run --separate-stderr t unlock -v 00:05.0
	[ "$stderr" = "tsmctl unlock: writing 'tsm0' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/unlock" ]
	for c in lock accept unlock; do
		run t "$c" --help
		expect_status 0
		[ "${lines[0]}" = "Usage:" ]
		[[ "$output" == *"--dry-run"*"--keep-going"* ]]
		[[ "$output" == *"For more details see tsmctl-$c(8)." ]]
	done
}

@test "--dry-run says what it would write and writes nothing" {
	mount_guest
	before=$(tree_digest)
	traced lock --dry-run 00:05.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: would write 'tsm0' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/lock" ]
	[ "${lines[1]}" = "would lock 1 of 1 device" ]
	[ "$(stores)" -eq 0 ]
	[ "$(tree_digest)" = "$before" ]
	t lock 00:05.0 tsm0
	before=$(tree_digest)
	run t accept --dry-run 00:05.0
	expect_status 0
	# without --verify, the dry run says the evidence would not be checked, as the accept would say it was not
	[ "${lines[0]}" = "0000:00:05.0: would write '1' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/accept; its evidence would not be checked (--verify checks it first)" ]
	run t unlock --dry-run 00:05.0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: would write 'tsm0' to $ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/unlock" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
}

# ---- lock errnos ----

@test "lock EBUSY: a bound driver is named, with how to unbind it; after unbind the lock works" {
	mount_guest
	before=$(tree_digest)
	run --separate-stderr t lock 00:06.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl lock 0000:00:06.0: driver mlx5_core is bound, and the kernel locks only a device without a driver: unbind it first (echo 0000:00:06.0 > $ROOT/sys/bus/pci/drivers/mlx5_core/unbind) (EBUSY)" ]
	[ "${lines[0]}" = "0000:00:06.0: failed (EBUSY)" ]
	[ "${lines[1]}" = "locked 0 of 1 device (1 failed)" ]
	[ "$(tree_digest)" = "$before" ]
	# a driver bound through the driver core at run time
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	[ "$(drv 0000:00:05.0)" = vfio-pci ]
	run --separate-stderr t lock 00:05.0 tsm0
	expect_status 1
	[[ "$stderr" == "tsmctl lock 0000:00:05.0: driver vfio-pci is bound, "*"(echo 0000:00:05.0 > $ROOT/sys/bus/pci/drivers/vfio-pci/unbind) (EBUSY)" ]]
	[ "$(lockf 0000:00:05.0)" = "" ]
	# the advice works
	echo 0000:00:06.0 > "$ROOT/sys/bus/pci/drivers/mlx5_core/unbind"
	run t lock 00:06.0 tsm0
	expect_status 0
	[ "$(lockf 0000:00:06.0)" = tsm0 ]
	[ "$(drv 0000:00:06.0)" = none ]
}

@test "lock EBUSY: locked already (same TSM: a note, --strict fails; another TSM: unlock first)" {
	mount_guest "$TSM1"
	t lock 00:05.0 tsm0
	before=$(tree_digest)
	run --separate-stderr t lock 00:05.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: already locked to tsm0" ]
	[ "${lines[1]}" = "locked 1 of 1 device (1 already)" ]
	run --separate-stderr t lock -J 00:05.0 tsm0
	json_is '.results[0] | [.result, .errno, .message]' '["already",null,"already locked to tsm0"]'
	run --separate-stderr t lock --strict 00:05.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl lock 0000:00:05.0: already locked by tsm0; a failure with --strict (EBUSY)" ]
	run --separate-stderr t lock 00:05.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl lock 0000:00:05.0: already locked by tsm0, and a device has one TSM context at a time: run 'tsmctl unlock 0000:00:05.0' first (EBUSY)" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
}

@test "lock EBUSY: connected via a link TSM (the DSM, and its dependent function)" {
	mount_live devsec-proposed
	t connect 10000:01:00.0 tsm0
	[ "$(lockf 10000:01:00.0)" = tsm0 ]
	before=$(tree_digest)
	run --separate-stderr t lock 10000:01:00.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl lock 10000:01:00.0: is connected via link TSM tsm0, and a device has one TSM context at a time: run 'tsmctl disconnect 10000:01:00.0' first (EBUSY)" ]
	run --separate-stderr t lock 10000:01:00.1 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl lock 10000:01:00.1: has a TSM context from link TSM tsm0 (its DSM 10000:01:00.0 is connected), and a device has one TSM context at a time: run 'tsmctl disconnect 10000:01:00.0' first (EBUSY)" ]
	[ "$(tree_digest)" = "$before" ]
	# a link connection is no TDISP lock: devices does not call it locked
	run --separate-stderr t devices -J -d 10000:01:00.0
	json_is '.devices[0] | [.connected, .locked, .accepted]' '["tsm0",null,false]'
}

@test "lock ENXIO: no such TSM, a link TSM (its pci_mode said), a TSM that declines the device" {
	mount_live devsec-proposed
	before=$(tree_digest)
	run --separate-stderr t lock 10001:03:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl lock tsm0: tsm0 is not a devsec TSM (pci_mode link): lock needs the guest's devsec TSM: tsm1 (ENXIO)" ]
	run --separate-stderr t lock 10001:03:00.0 tsm5
	expect_status 1
	[ "$stderr" = "tsmctl lock tsm5: there is no TSM named tsm5; registered: tsm0 (link), tsm1 (devsec) (ENXIO)" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(lockf 10001:03:00.0)" = "" ]
	unmount_live
	# the checks pass, the kernel says ENXIO: tsm0's lock op serves only pci0000:00
	mount_guest '.tsms[0].host_bridges = ["pci0000:00"]
		| .host_bridges += [{"domain": 1, "bus": 0, "devices": [.host_bridges[0].devices[1] | .bdf = "0001:00:05.0"]}]'
	traced lock 0001:00:05.0 tsm0
	expect_status 1
	[ "$(stores)" -eq 1 ]
	[ "$stderr" = "tsmctl lock 0001:00:05.0: tsm0 declined to lock the device (it does not serve pci0001:00, or its lock op failed); see the kernel log (ENXIO)" ]
	[ "$(lockf 0001:00:05.0)" = "" ]
	run t lock 00:05.0 tsm0
	expect_status 0
}

@test "the kernel's errno is final: a lock op and an accept op that fail, written once each" {
	mount_guest '.host_bridges[0].devices[1].faults = {"lock_errno": "EIO"}
		| .host_bridges[0].devices[2].faults = {"accept_errno": "ETIMEDOUT"}'
	traced lock 00:05.0 tsm0
	expect_status 1
	[ "$(stores)" -eq 1 ]
	[ "$stderr" = "tsmctl lock 0000:00:05.0: tsm0 failed the lock: Input/output error; see the kernel log (EIO)" ]
	[ "$(lockf 0000:00:05.0)" = "" ]
	echo 0000:00:06.0 > "$ROOT/sys/bus/pci/drivers/mlx5_core/unbind"
	t lock 00:06.0 tsm0
	traced accept 00:06.0
	expect_status 1
	[ "$(stores)" -eq 1 ]
	[ "$stderr" = "tsmctl accept 0000:00:06.0: tsm0 failed the accept: Connection timed out; see the kernel log (ETIMEDOUT)" ]
	[ "$(acceptf 0000:00:06.0)" = 0 ]
	[ "$(lockf 0000:00:06.0)" = tsm0 ]
}

# ---- accept errnos ----

@test "accept EINVAL: not locked, or only connected via a link TSM; nothing written" {
	mount_guest
	before=$(tree_digest)
	run --separate-stderr t accept 00:05.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:05.0: not locked: lock it first (tsmctl lock 0000:00:05.0 tsm0) (EINVAL)" ]
	[ "${lines[0]}" = "0000:00:05.0: failed (EINVAL)" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
	unmount_live
	mount_live devsec-proposed
	t connect 10000:01:00.0 tsm0
	run --separate-stderr t accept 10000:01:00.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 10000:01:00.0: is connected via link TSM tsm0 and is not locked: accept applies to a device locked by a devsec TSM (EINVAL)" ]
	[ "$(acceptf 10000:01:00.0)" = 0 ]
}

@test "accept EBUSY: a driver bound to the locked device; accept again: a note, nothing written" {
	mount_guest
	t lock 00:05.0 tsm0
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	before=$(tree_digest)
	run --separate-stderr t accept 00:05.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:05.0: driver vfio-pci is bound, and the kernel accepts a device only before its driver binds; accept, then bind the driver again: unbind it first (echo 0000:00:05.0 > $ROOT/sys/bus/pci/drivers/vfio-pci/unbind) (EBUSY)" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/unbind"
	t accept 00:05.0
	[ "$(acceptf 0000:00:05.0)" = 1 ]
	before=$(tree_digest)
	traced accept 00:05.0
	expect_status 0
	[ "${lines[0]}" = "0000:00:05.0: already accepted (locked to tsm0)" ]
	[ "${lines[1]}" = "accepted 1 of 1 device (1 already)" ]
	[ "$(stores)" -eq 0 ]
	[ "$(tree_digest)" = "$before" ]
	# --strict: the same words as lock's, nothing blamed on the kernel, nothing written
	traced accept --strict 00:05.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:05.0: already accepted (locked to tsm0); a failure with --strict (EBUSY)" ]
	[ "$(stores)" -eq 0 ]
	[ "$(tree_digest)" = "$before" ]
}

# ---- unlock errnos ----

@test "unlock: not locked is done already (--strict: EINVAL); EINVAL: a TSM that is not the holder (named); EBUSY: a driver" {
	mount_guest "$TSM1"
	run --separate-stderr t unlock 00:05.0
	expect_status 0
	[ "$output" = "$(printf '0000:00:05.0: not locked\nunlocked 1 of 1 device (1 already)')" ]
	run --separate-stderr t unlock --strict 00:05.0
	expect_status 1
	[ "$stderr" = "tsmctl unlock 0000:00:05.0: not locked; nothing to unlock; a failure with --strict (EINVAL)" ]
	t lock 00:05.0 tsm0
	before=$(tree_digest)
	run --separate-stderr t unlock 00:05.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl unlock 0000:00:05.0: locked by tsm0, not tsm1: run 'tsmctl unlock 0000:00:05.0' (the TSM may be left out) (EINVAL)" ]
	[ "$(tree_digest)" = "$before" ]
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	run --separate-stderr t unlock 00:05.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl unlock 0000:00:05.0: driver vfio-pci is bound, and the kernel unlocks a device only without a driver: unbind it first (echo 0000:00:05.0 > $ROOT/sys/bus/pci/drivers/vfio-pci/unbind) (EBUSY)" ]
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/unbind"
	run t unlock 00:05.0 tsm0
	expect_status 0
	[ "$(lockf 0000:00:05.0)" = "" ]
}

@test "unlock EINVAL on a link connection points at disconnect" {
	mount_live devsec-proposed
	t connect 10000:01:00.0 tsm0
	run --separate-stderr t unlock 10000:01:00.0
	expect_status 1
	[ "$stderr" = "tsmctl unlock 10000:01:00.0: is connected via link TSM tsm0 and is not locked: 'tsmctl disconnect 10000:01:00.0' ends a link connection (EINVAL)" ]
	[ "$(cat "$(dev 10000:01:00.0)/tsm/connect")" = tsm0 ]
}

# ---- batches, signals, --all ----

@test "a batch stops at the first failure; --keep-going goes on; exit 1 either way" {
	mount_guest "$THIRD"
	run --separate-stderr t lock 00:05.0 00:06.0 00:07.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:00:05.0: locked to tsm0; next: tsmctl accept --verify 0000:00:05.0" ]
	[ "${lines[1]}" = "0000:00:06.0: failed (EBUSY)" ]
	[ "${lines[2]}" = "0000:00:07.0: skipped (not attempted after 0000:00:06.0 failed; --keep-going goes on)" ]
	[ "${lines[3]}" = "locked 1 of 3 devices (1 failed, 1 skipped)" ]
	[ "$(lockf 0000:00:07.0)" = "" ]
	run --separate-stderr t unlock 00:05.0
	run --separate-stderr t lock --keep-going -J 00:05.0 00:06.0 00:07.0 tsm0
	expect_status 1
	json_is '[.results[] | [.bdf, .result, .errno]]' \
		'[["0000:00:05.0","ok",null],["0000:00:06.0","failed","EBUSY"],["0000:00:07.0","ok",null]]'
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	[ "$(lockf 0000:00:06.0)" = "" ]
	[ "$(lockf 0000:00:07.0)" = tsm0 ]
	run t accept 00:05.0 00:07.0
	expect_status 0
	[ "${lines[2]}" = "accepted 2 of 2 devices" ]
	[ "$(acceptf 0000:00:05.0)$(acceptf 0000:00:07.0)" = 11 ]
}

@test "--all: lock the unlocked devices without a driver, accept the locked ones, unlock them" {
	mount_guest "$THIRD"
	run t lock --all tsm0
	expect_status 0
	[ "${lines[*]}" = "0000:00:05.0: locked to tsm0; next: tsmctl accept --verify 0000:00:05.0 0000:00:07.0: locked to tsm0; next: tsmctl accept --verify 0000:00:07.0 locked 2 of 2 devices" ]
	[ "$(lockf 0000:00:06.0)" = "" ]
	run t accept --all
	expect_status 0
	[ "${lines[2]}" = "accepted 2 of 2 devices" ]
	run --separate-stderr t accept --all
	expect_status 0
	[ "$stderr" = "tsmctl accept: no device is locked and waiting for accept without a driver" ]
	run t unlock --all tsm0
	expect_status 0
	[ "${lines[2]}" = "unlocked 2 of 2 devices" ]
	[ "$(lockf 0000:00:05.0)$(lockf 0000:00:07.0)" = "" ]
	[ "$(acceptf 0000:00:05.0)$(acceptf 0000:00:07.0)" = 00 ]
}

@test "SIGINT during a batch: the current store completes, the rest is skipped, exit 130" {
	mount_guest "$THIRD"
	command -v strace >/dev/null || skip "strace not installed"
	# the signal comes while 0000:00:05.0's store is under way: tsmctl is held (stopped)
	# as the store returns, the signal queued, then let go; a signal during the store is
	# taken at that same point (LeakSanitizer cannot run under ptrace)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$ROOT/sys/bus/pci/devices/0000:00:05.0/tsm/lock" \
		-e trace=write -e inject=write:signal=SIGSTOP \
		"$TSMCTL" --sysroot "$ROOT" lock -v 00:05.0 00:07.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	kill -INT "$HELD"
	kill -CONT "$HELD"
	rc=0
	wait $pid || rc=$?
	[ "$rc" -eq 130 ]
	mapfile -t out < "$BATS_TEST_TMPDIR/out"
	[ "${out[0]}" = "0000:00:05.0: locked to tsm0; next: tsmctl accept --verify 0000:00:05.0" ]
	[ "${out[1]}" = "0000:00:07.0: skipped (not attempted: interrupted by SIGINT)" ]
	[ "${out[2]}" = "locked 1 of 2 devices (1 skipped)" ]
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	[ "$(lockf 0000:00:07.0)" = "" ]
}

# ---- refusals before any write ----

@test "bad input is refused with exit 2 before anything is written" {
	mount_guest
	before=$(tree_digest)
	run --separate-stderr t lock 00:05.0
	expect_status 2
	[[ "$stderr" == "tsmctl lock: no TSM given: '00:05.0' is a device, and the TSM comes last (tsmctl lock BDF... TSM | --all TSM)"* ]]
	run --separate-stderr t unlock 00:05.0 tsm0 00:06.0
	expect_status 2
	[[ "$stderr" == "tsmctl unlock: extra operand '00:06.0': the TSM (tsm0) comes last"* ]]
	run --separate-stderr t lock tsm0
	expect_status 2
	run --separate-stderr t accept 00:05.0 tsm0
	expect_status 2
	[[ "$stderr" == "tsmctl accept: accept takes no TSM: the device's lock names it ('tsm0')"* ]]
	run --separate-stderr t lock ../00:05.0 tsm0
	expect_status 2
	run --separate-stderr t lock 00:05.0 tsm0x
	expect_status 2
	[[ "$stderr" == "tsmctl lock: invalid TSM name 'tsm0x' (expected tsmN)"* ]]
	run --separate-stderr t unlock 0000:99:00.0
	expect_status 1
	[ "$stderr" = "tsmctl unlock: 0000:99:00.0: no such PCI device (see 'tsmctl devices --all')" ]
	run t accept --all 00:05.0
	expect_status 2
	[ "$(tree_digest)" = "$before" ]
}

@test "a device without tsm/lock is not TDISP-capable; a tree without tsm/lock lacks the ABI" {
	mount_guest
	run --separate-stderr t lock 00:01.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl lock 0000:00:01.0: not a TDISP-capable device (no DEVCAP.TEE / no devsec TSM): it has no tsm/lock, which the kernel offers on PCIe functions with DEVCAP.TEE while a devsec TSM is registered (see 'tsmctl devices --all') (ENOENT)" ]
	[ ! -e "$(dev 0000:00:01.0)/tsm" ]
	unmount_live
	# a v6.19 host: no pci_mode, no tsm/lock anywhere
	mount_live sev-tio
	before=$(tree_digest)
	for c in "lock 81:00.0 tsm0" "accept 81:00.0" "unlock 81:00.0"; do
		# shellcheck disable=SC2086
		run --separate-stderr t $c
		expect_status 1
		[ "$stderr" = "tsmctl ${c%% *}: this tree's kernel lacks the TDISP guest ABI: tsm/lock, tsm/accept and tsm/unlock are proposed, not in v6.19 (no TSM has pci_mode, no device has tsm/lock)" ]
		[ -z "$output" ]
	done
	[ "$(tree_digest)" = "$before" ]
	unmount_live
	# a guest without a devsec TSM
	mount_live guest-tdx
	run --separate-stderr t lock 00:02.0 tsm0
	expect_status 1
	[[ "$stderr" == "tsmctl lock: no PCI function has tsm/lock: either this tree's kernel lacks the TDISP guest ABI"*"or no devsec TSM is registered"* ]]
}

@test "not root: EACCES says root is needed, and nothing changes" {
	mount_guest
	command -v setpriv >/dev/null || skip "setpriv not installed"
	open_path_to_root
	before=$(tree_digest)
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" lock 00:05.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl lock 0000:00:05.0: writing tsm/lock needs root (CAP_SYS_ADMIN): run tsmctl as root (EACCES)" ]
	[ "$(tree_digest)" = "$before" ]
	t lock 00:05.0 tsm0
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" accept 00:05.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:05.0: writing tsm/accept needs root (CAP_SYS_ADMIN): run tsmctl as root (EACCES)" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
}

# ---- views and audit ----

@test "devices and list show the lock state; a guest's default columns are the TDISP ones" {
	mount_guest
	t lock 00:05.0 tsm0
	t accept 00:05.0
	run --separate-stderr t devices -J
	json_is '[.devices[] | [.bdf, .locked, .accepted, .driver]]' \
		'[["0000:00:05.0","tsm0",true,null],["0000:00:06.0",null,false,"mlx5_core"]]'
	# no DEVCAP.TEE, no tsm/ group: not a device the view lists
	run --separate-stderr t devices -J -d 00:01.0
	json_is '.devices' '[]'
	run --separate-stderr t devices
	[ "${lines[0]}" = "BDF          DEVICE                                   TYPE        TEE IDE LOCKED ACCEPTED DRIVER" ]
	[ "${lines[1]}" = "0000:00:05.0 ConnectX Family mlx5Gen Virtual Function rc_endpoint yes -   tsm0   yes      " ]
	[ "${lines[2]}" = "0000:00:06.0 ConnectX Family mlx5Gen Virtual Function rc_endpoint yes -          no       mlx5_core" ]
	run --separate-stderr t devices -n -r -o BDF,LOCKED,ACCEPTED -d 00:05.0
	[ "$output" = "0000:00:05.0 tsm0 yes" ]
	run --separate-stderr t list -J
	json_is '.tsms[0] | [.name, .mode, .connected_devices, .locked_devices, .accepted_devices]' '["tsm0","devsec",0,1,1]'
	run --separate-stderr t list -n -r -o NAME,LOCKED,ACCEPTED
	[ "$output" = "tsm0 1 1" ]
	echo 0000:00:06.0 > "$ROOT/sys/bus/pci/drivers/mlx5_core/unbind"
	t lock 00:06.0 tsm0
	run --separate-stderr t list -n -r -o NAME,LOCKED,ACCEPTED
	[ "$output" = "tsm0 2 1" ]
	run --separate-stderr t devices -t tsm0 -n -r -o BDF
	[ "${lines[*]}" = "0000:00:05.0 0000:00:06.0" ]
}

# status / message of the device.tdisp result about BDF in $output (audit -J).
tdisp_result() {
	printf '%s' "$output" | jq -r --arg obj "$1" \
		'[.checks[] | select(.id == "device.tdisp" and .object == $obj) | "\(.status): \(.message)"] | if length == 1 then .[0] else "\(length) results" end'
}

@test "audit device.tdisp: unlocked passes, waiting for accept warns, a driver before accept fails" {
	mount_guest
	run --separate-stderr t audit -J
	expect_status 0
	[ "$(tdisp_result 0000:00:05.0)" = "pass: unlocked, no driver: not TDISP-managed" ]
	[ "$(tdisp_result 0000:00:06.0)" = "pass: unlocked, driver mlx5_core bound: not TDISP-managed (a shared, untrusted device)" ]
	[ "$(tdisp_result 0000:00:01.0)" = "0 results" ]
	t lock 00:05.0 tsm0
	run --separate-stderr t audit -J
	expect_status 0
	[ "$(tdisp_result 0000:00:05.0)" = "warn: locked to tsm0, waiting for accept" ]
	json_is '[.checks[] | select(.id == "device.tdisp" and .object == "0000:00:05.0") | [.parent, .category, .hint]][0]' \
		'["platform.tsm-present","device","tsmctl accept --verify 0000:00:05.0 (it checks the device'"'"'s evidence first), or tsmctl unlock 0000:00:05.0"]'
	run --separate-stderr t audit --strict -J
	expect_status 1
	# the driver binds before the accept
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	run --separate-stderr t audit -J
	expect_status 1
	[ "$(tdisp_result 0000:00:05.0)" = "fail: driver vfio-pci bound while locked to tsm0 but not accepted: the device runs without private DMA/MMIO (TDISP LOCKED, not RUN)" ]
	json_is '[.checks[] | select(.id == "device.tdisp" and .object == "0000:00:05.0") | .hint][0]' \
		'"unbind the driver (echo 0000:00:05.0 > /sys/bus/pci/drivers/vfio-pci/unbind), tsmctl accept --verify 0000:00:05.0 (it checks the device'"'"'s evidence first), then bind the driver again"'
	# the hint's way out
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/unbind"
	t accept 00:05.0
	run --separate-stderr t audit -J -d 00:05.0
	expect_status 0
	[ "$(tdisp_result 0000:00:05.0)" = "pass: locked to tsm0 and accepted; no driver bound yet" ]
	echo 0000:00:05.0 > "$ROOT/sys/bus/pci/drivers/vfio-pci/bind"
	run --separate-stderr t audit -J -d 00:05.0
	expect_status 0
	[ "$(tdisp_result 0000:00:05.0)" = "pass: locked to tsm0 and accepted; driver vfio-pci bound" ]
}

@test "audit device.tdisp: states no kernel should show fail (edited static tree); a link connection passes" {
	ROOT="$BATS_TEST_TMPDIR/tree"
	jq '.host_bridges[0].devices[1].locked = "tsm0"' "$TOPO/guest-sev.json" > "$BATS_TEST_TMPDIR/t.json"
	"$SIM" build "$BATS_TEST_TMPDIR/t.json" "$ROOT" >/dev/null
	echo 1 > "$(dev 0000:00:06.0)/tsm/accept"
	echo tsm7 > "$(dev 0000:00:05.0)/tsm/lock"
	run --separate-stderr t audit -J
	expect_status 1
	[ "$(tdisp_result 0000:00:06.0)" = "fail: unlocked but tsm/accept reads 1 (unlock drops the accept state)" ]
	[ "$(tdisp_result 0000:00:05.0)" = "fail: locked to tsm7, which is not registered" ]
	echo tsm0 > "$(dev 0000:00:05.0)/tsm/lock"
	echo 2 > "$(dev 0000:00:05.0)/tsm/accept"
	run --separate-stderr t audit -J
	[ "$(tdisp_result 0000:00:05.0)" = "fail: tsm/accept reads '2': neither 0 nor 1" ]
	run --separate-stderr t devices -J -d 00:05.0
	json_is '.devices[0] | [.locked, .accepted]' '["tsm0",null]'
	rm "$(dev 0000:00:05.0)/tsm/accept"
	run --separate-stderr t audit -J
	[ "$(tdisp_result 0000:00:05.0)" = "skip: locked to tsm0; no tsm/accept: acceptance cannot be checked" ]
	ROOT=$(static_tree audit-devsec-connected)
	run --separate-stderr t audit -J -d 10000:01:00.1
	expect_status 0
	[ "$(tdisp_result 10000:01:00.1)" = "pass: tsm/lock names link TSM tsm0's connection, not a TDISP lock" ]
}
