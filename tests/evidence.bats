#!/usr/bin/env bats
# tsmctl evidence against the simulator's device-evidence family (ABI.md
# §1.6): the objects where the kernel has them (a connected DSM on a host, a
# locked TDI in a guest) and gone at disconnect, unlock and TSM removal;
# every errno with its advice; nonce and refresh; EAGAIN retried and
# exhausted; -o DIR and its manifest; the devsec sample's certs/transcript.

load lib/helpers

CERTS=$TOP/tests/sim/certs

setup() {
	[ -r "$CERTS/ecdsa-p384.spdm-chain" ] || skip "make -C tests/sim builds the certificate chains"
}

teardown() {
	unmount_live
}

# ev ARGS...: tsmctl evidence on ROOT through its device-evidence socket (use with run)
ev() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" evidence "$@"
}

ctl() {
	echo "$*" > "$ROOT/tsm-sim-control"
}

# The object TYPE's field KEY in the last run's -J output.
obj() {
	printf '%s' "$output" | jq -r --arg t "$1" ".evidence[0].objects[] | select(.type == \$t) | .$2"
}

@test "a connected DSM: every object, the chains byte for byte, digests, one generation" {
	mount_live sev-tio
	run --separate-stderr ev 41:00.0 -J
	expect_status 0
	json_is '.evidence[0] | [.bdf, .requested, .subsys, .generation, .attempts, .nonce]' \
		'["0000:41:00.0","0000:41:00.0","pci",1,1,null]'
	json_is '[.evidence[0].objects[].type]' \
		'["cert0","cert1","cert2","cert3","cert4","cert5","cert6","cert7","vca","measurements","report"]'
	[ "$(obj cert0 length)" -eq "$(stat -c %s "$CERTS/ecdsa-p384.spdm-chain")" ]
	[ "$(obj cert1 length)" -eq "$(stat -c %s "$CERTS/rsa-3072.spdm-chain")" ]
	[ "$(obj cert0 sha256)" = "$(sha256sum < "$CERTS/ecdsa-p384.spdm-chain" | cut -d' ' -f1)" ]
	[ "$(obj cert1 sha384)" = "$(sha384sum < "$CERTS/rsa-3072.spdm-chain" | cut -d' ' -f1)" ]
	[ "$(obj cert2 length)" -eq 0 ]
	[ "$(obj cert2 sha256)" = null ]
	# VCA: GET_VERSION .. ALGORITHMS (4+10+20+20+48+52); report: 16 + one BAR + 4
	[ "$(obj vca length)" -eq 154 ]
	[ "$(obj report length)" -eq 36 ]
	json_is '[.evidence[0].objects[].generation] | unique' '[1]'
	[ -z "$stderr" ]
	# the table: one row per object
	run ev 41:00.0
	expect_status 0
	[ "${#lines[@]}" -eq 12 ]
	[[ "${lines[0]}" == "TYPE "*"BYTES GENERATION SHA384"*"SHA256" ]]
	[[ "${lines[1]}" == "cert0 "*" 1 $(sha384sum < "$CERTS/ecdsa-p384.spdm-chain" | cut -d' ' -f1) "* ]]
	[[ "${lines[3]}" == "cert2 "*" 0 "*" 1 - "*"-" ]]
}

@test "-o DIR: each object in its file, the manifest is the -J document, the report's ranges are the BARs" {
	mount_live sev-tio
	d=$BATS_TEST_TMPDIR/ev
	run --separate-stderr ev 41:00.0 -J -o "$d"
	expect_status 0
	cmp "$d/cert0.spdm-chain" "$CERTS/ecdsa-p384.spdm-chain"
	cmp "$d/cert1.spdm-chain" "$CERTS/rsa-3072.spdm-chain"
	[ ! -e "$d/cert2.spdm-chain" ]
	diff <(printf '%s\n' "$output" | jq -S .) <(jq -S . "$d/manifest.json")
	json_is '[.evidence[0].objects[] | select(.file) | .file]' \
		'["cert0.spdm-chain","cert1.spdm-chain","vca.bin","measurements.bin","report.bin"]'
	# the objects, the function's resource and config (for --from --verify), no temporary file
	[ "$(ls -A "$d" | tr '\n' ' ')" = "cert0.spdm-chain cert1.spdm-chain config manifest.json measurements.bin report.bin resource vca.bin " ]
	cmp "$d/resource" "$(dev 0000:41:00.0)/resource"
	cmp "$d/config" "$(dev 0000:41:00.0)/config"
	# measurements: MEASUREMENTS (0x60) of SPDM 1.2 with five blocks
	[ "$(od -An -tx1 -N5 "$d/measurements.bin" | tr -d ' ')" = 1260000005 ]
	# report: one MMIO range, FIRST_PAGE and NUMBER_OF_PAGES of BAR0
	read -r start end _ < <(head -1 "$(dev 0000:41:00.0)/resource")
	[ "$(od -An -tu4 -j12 -N4 "$d/report.bin" | tr -d ' ')" -eq 1 ]
	[ "$(od -An -tu8 -j16 -N8 "$d/report.bin" | tr -d ' ')" -eq $((start >> 12)) ]
	[ "$(od -An -tu4 -j24 -N4 "$d/report.bin" | tr -d ' ')" -eq $(((end - start + 1) >> 12)) ]
	# a second read replaces the files
	run ev 41:00.0 -t cert0 -o "$d"
	expect_status 0
	[[ "$output" == *"cert0.spdm-chain"* ]]
}

@test "-o DIR refuses a link for DIR and for a file in it, and leaves it alone" {
	mount_live sev-tio
	d=$BATS_TEST_TMPDIR/ev
	mkdir "$d" && ln -s /etc/passwd "$d/cert0.spdm-chain"
	run ev 41:00.0 -o "$d"
	expect_status 1
	[[ "$output" == *"--output $d/cert0.spdm-chain: a symbolic link, not a regular file: refusing to replace it"*"nothing was saved" ]]
	[ "$(readlink "$d/cert0.spdm-chain")" = /etc/passwd ]
	[ "$(ls -A "$d")" = cert0.spdm-chain ]
	ln -s "$d" "$BATS_TEST_TMPDIR/link"
	run ev 41:00.0 -o "$BATS_TEST_TMPDIR/link"
	expect_status 1
	[[ "$output" == *"a symbolic link, not a directory"* ]]
}

@test "no evidence before connect (advice), evidence after, gone at disconnect" {
	mount_live sev-tio
	run ev 81:00.0
	expect_status 1
	[[ "$output" == *"0000:81:00.0: no evidence: it is not connected"*"connect it first ('tsmctl connect 0000:81:00.0 tsm0')"*"evidence not found"*"(ENODEV)"* ]]
	"$TSMCTL" --sysroot "$ROOT" connect 81:00.0 tsm0 >/dev/null
	run ev 81:00.0 -J -t cert0
	expect_status 0
	[ "$(obj cert0 length)" -eq "$(stat -c %s "$CERTS/rsa-3072.spdm-chain")" ]
	"$TSMCTL" --sysroot "$ROOT" disconnect 81:00.0 >/dev/null
	run ev 81:00.0
	expect_status 1
	[[ "$output" == *"it is not connected"*"(ENODEV)" ]]
	# a function without any tsm/ group, and a slot's other function
	run ev 82:00.0
	expect_status 1
	[[ "$output" == *"it has no TSM context"*"(ENODEV)" ]]
	run ev 41:00.1
	expect_status 1
	[[ "$output" == *"it is not a DSM: its DSM is function 0, 0000:41:00.0"*"(ENODEV)" ]]
}

@test "a host whose rig also registers a devsec TSM: an unconnected DSM is told to connect, not to lock" {
	# devsec-proposed: the link TSM tsm0 and the devsec TSM tsm1 (tsm/lock on every function)
	mount_live devsec-proposed
	local advice="it is not connected: on a host a DSM has evidence only while it is connected to a link TSM; connect it first ('tsmctl connect 10000:01:00.0 tsm0')"
	run ev 10000:01:00.0
	expect_status 1
	[[ "$output" == *"$advice"*"(ENODEV)" ]]
	[[ "$output" != *"in a guest"* ]]
	# and once connected and disconnected again
	"$TSMCTL" --sysroot "$ROOT" connect 10000:01:00.0 tsm0 >/dev/null
	"$TSMCTL" --sysroot "$ROOT" disconnect 10000:01:00.0 >/dev/null
	run ev 10000:01:00.0
	expect_status 1
	[[ "$output" == *"$advice"*"(ENODEV)" ]]
}

@test "a dependent reads its DSM's evidence with a note; a slot means its function 0" {
	mount_live connect-generic
	"$TSMCTL" --sysroot "$ROOT" connect 01:00.0 tsm0 >/dev/null
	run --separate-stderr ev 01:00.1 -J -t cert0
	expect_status 0
	[ "$stderr" = "tsmctl evidence: 0000:01:00.1 is a dependent function of the DSM 0000:01:00.0: reading the DSM's evidence" ]
	json_is '.evidence[0] | [.bdf, .requested]' '["0000:01:00.0","0000:01:00.1"]'
	run --separate-stderr ev 01:00 -J -t cert0
	expect_status 0
	[[ "$stderr" == *"01:00 is a slot: reading its function 0, 0000:01:00.0"* ]]
	json_is '.evidence[0].bdf' '"0000:01:00.0"'
}

@test "a guest TDI has evidence only while locked: lock it first, gone at unlock" {
	mount_live guest-sev
	run ev 00:05.0
	expect_status 1
	[[ "$output" == *"it is not locked"*"lock it first ('tsmctl lock 0000:00:05.0 tsm0')"*"(ENODEV)" ]]
	"$TSMCTL" --sysroot "$ROOT" lock 00:05.0 tsm0 >/dev/null
	run ev 00:05.0 -J -t report,measurements
	expect_status 0
	[ "$(obj report length)" -gt 16 ]
	[ "$(obj measurements length)" -gt 0 ]
	"$TSMCTL" --sysroot "$ROOT" unlock 00:05.0 >/dev/null
	run ev 00:05.0
	expect_status 1
	[[ "$output" == *"it is not locked"*"(ENODEV)" ]]
}

@test "a nonce refreshes: the generation moves; the nonce is recorded" {
	mount_live sev-tio
	run ev 41:00.0 -J -t measurements
	m1=$(obj measurements sha256)
	run ev 41:00.0 -J -t measurements,report --fresh
	expect_status 0
	json_is '.evidence[0] | [.generation, .nonce_source, (.nonce | length)]' '[2,"fresh",64]'
	[ "$(obj measurements sha256)" != "$m1" ]	# a new responder nonce
	run ev 41:00.0 -J -t cert0 --nonce 0011aabb
	json_is '.evidence[0] | [.generation, .nonce, .nonce_source]' '[3,"0011aabb","hex"]'
	printf 'abc' > "$BATS_TEST_TMPDIR/n"
	run ev 41:00.0 -J -t cert0 --nonce-file "$BATS_TEST_TMPDIR/n"
	json_is '.evidence[0] | [.generation, .nonce, .nonce_source]' '[4,"616263","file"]'
	# without a nonce nothing is refreshed
	run ev 41:00.0 -J -t cert0
	json_is '.evidence[0].generation' '4'
	# the table says the random nonce, which it does not show
	run --separate-stderr ev 41:00.0 -t cert0 --fresh
	[[ "$stderr" =~ ^"tsmctl evidence: --fresh nonce "[0-9a-f]{64}$ ]]
}

@test "a provider without refresh refuses a nonce (EOPNOTSUPP), and reads without one" {
	mount_live sev-tio
	ctl evidence-refresh tsm0 off
	run ev 41:00.0 --fresh
	expect_status 1
	[[ "$output" == *"the provider cannot refresh its evidence, so it refuses a nonce: read without --nonce"*'the kernel says: "evidence refresh failed: -EOPNOTSUPP" (EOPNOTSUPP)' ]]
	run ev 41:00.0 -t cert0
	expect_status 0
}

@test "EAGAIN mid-dump is retried in a new dump; evidence that keeps changing gives up after 3" {
	mount_live sev-tio
	ctl evidence-fault 0000:41:00.0 eagain 1
	run --separate-stderr ev 41:00.0 -J -o "$BATS_TEST_TMPDIR/ev"
	expect_status 0
	json_is '.evidence[0] | [.attempts, .generation]' '[2,2]'
	cmp "$BATS_TEST_TMPDIR/ev/cert0.spdm-chain" "$CERTS/ecdsa-p384.spdm-chain"
	ctl evidence-fault 0000:41:00.0 eagain 2 3
	run ev 41:00.0 -o "$BATS_TEST_TMPDIR/ev2"
	expect_status 1
	[[ "$output" == *"the evidence kept changing: each of 3 dumps saw a refresh overtake it"*'"evidence updated during read" (EAGAIN)' ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/ev2")" ]	# nothing saved, no temporary file
}

@test "the TSM removed during a dump: ENXIO, said from the tree afterwards" {
	mount_live sev-tio
	ctl evidence-fault 0000:41:00.0 remove-tsm 1
	run ev 41:00.0 -o "$BATS_TEST_TMPDIR/ev"
	expect_status 1
	[[ "$output" == *"its TSM went away during the read (no TSM is registered now)"*'"failed to acquire evidence context" (ENXIO)' ]]
	[ ! -e "$ROOT/sys/class/tsm/tsm0" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/ev")" ]
}

@test "EPERM without CAP_NET_ADMIN; a non-root caller with the capability reads" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	mount_live sev-tio
	open_path_to_root
	sock=$(cat "$ROOT/tsm-sim-evidence")
	run env TSMCTL_EVIDENCE_SOCKET="$sock" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" evidence 41:00.0
	expect_status 1
	[[ "$output" == *"reading device evidence needs CAP_NET_ADMIN"*"(EPERM)" ]]
	run env TSMCTL_EVIDENCE_SOCKET="$sock" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps +net_admin --ambient-caps +net_admin "$TSMCTL" --sysroot "$ROOT" evidence 41:00.0 -t cert0
	expect_status 0
	[[ "$output" == *cert0* ]]
}

@test "the family's validate command is looked for, present or absent" {
	mount_live sev-tio
	run ev 41:00.0 -J -t cert0
	json_is '.evidence[0].family | [.version, .validate]' '[1,false]'
	ctl evidence-validate on
	run --separate-stderr ev 41:00.0 -J -t cert0 -v
	json_is '.evidence[0].family.validate' 'true'
	[[ "$stderr" == *"family device-evidence id 31 version 1, read (admin), validate"* ]]
	[[ "$stderr" == *"1 dump, 1 datagrams, 2 messages"* ]]
}

@test "without extended acks the advice stands alone; without the family: CONFIG_DEVICE_EVIDENCE" {
	mount_live sev-tio
	ctl evidence-sockopt ext_ack off
	run ev 81:00.0
	expect_status 1
	[[ "$output" == *"it is not connected"*"(ENODEV)" ]]
	[[ "$output" != *"the kernel says"* ]]
	# this machine's kernel (no TSMCTL_EVIDENCE_SOCKET) has no such family
	run "$TSMCTL" --sysroot "$ROOT" evidence 41:00.0
	if [[ "$output" != *"CONFIG_DEVICE_EVIDENCE"* ]]; then
		skip "this kernel has a device-evidence family"
	fi
	expect_status 1
	[[ "$output" == *"the kernel has no device-evidence generic netlink family"*"(ENOENT)" ]]
}

@test "the devsec sample: certs/transcript are cert0/measurements; EBUSY while connected; no refresh, none at lock" {
	mount_live devsec-staging
	for m in devsec_bus devsec_link_tsm devsec_tsm; do ctl modprobe $m; done
	faux=$ROOT/sys/devices/faux/devsec_link_tsm
	head -c 70000 /dev/urandom > "$BATS_TEST_TMPDIR/certs"
	cp "$BATS_TEST_TMPDIR/certs" "$faux/certs"
	printf 'transcript' > "$faux/transcript"
	cmp "$faux/certs" "$BATS_TEST_TMPDIR/certs"	# read back (memory_read_from_buffer)
	cmp "$ROOT/sys/devices/faux/devsec_tsm/certs" "$BATS_TEST_TMPDIR/certs"	# one storage
	echo tsm0 > "$(dev 10000:01:00.0)/tsm/connect"
	run ! dd if="$BATS_TEST_TMPDIR/certs" of="$faux/transcript" bs=16 count=1 conv=notrunc status=none
	[[ "$output" == *"Device or resource busy"* ]]
	run ev 10000:01:00.0 -J -o "$BATS_TEST_TMPDIR/ev"
	expect_status 0
	cmp "$BATS_TEST_TMPDIR/ev/cert0.spdm-chain" "$BATS_TEST_TMPDIR/certs"
	[ "$(cat "$BATS_TEST_TMPDIR/ev/measurements.bin")" = transcript ]
	json_is '[.evidence[0].objects[] | select(.length > 0) | .type]' '["cert0","measurements"]'
	run ev 10000:01:00.0 --fresh
	expect_status 1
	[[ "$output" == *"cannot refresh"*"(EOPNOTSUPP)" ]]
	# the dependent has a context and no evidence of its own
	run --separate-stderr ev 10000:01:00.1 -J -t cert0
	expect_status 0
	json_is '.evidence[0].bdf' '"10000:01:00.0"'
	echo tsm0 > "$(dev 10000:01:00.0)/tsm/disconnect"
	printf 'x' > "$faux/certs"	# one byte at 0 empties it
	[ ! -s "$faux/certs" ]
	# the sample's devsec TSM makes no evidence at lock
	echo tsm1 > "$(dev 10000:01:00.0)/tsm/lock"
	run ev 10000:01:00.0
	expect_status 1
	[[ "$output" == *"it is locked to tsm1, whose provider gives a locked TDI no evidence"*"(ENODEV)" ]]
}

@test "usage errors: the device, the types, the nonce" {
	mount_live sev-tio
	run ev
	expect_status 2
	[[ "$output" == *"no device given (BDF)"* ]]
	run ev 41:00.0 81:00.0
	expect_status 2
	[[ "$output" == *"one device at a time ('81:00.0' too)"* ]]
	run ev 41:00.0/x
	expect_status 2
	run ev 41:00.0 -t cert8
	expect_status 2
	[[ "$output" == *"unknown evidence type 'cert8'"* ]]
	run ev 41:00.0 --nonce 00 --fresh
	expect_status 2
	[[ "$output" == *"exclude each other"* ]]
	run ev 41:00.0 --nonce "$(printf '%066d' 0)"
	expect_status 2
	[[ "$output" == *"--nonce is 33 bytes; the kernel takes at most 32"* ]]
	run ev 41:00.0 --nonce-file /dev/null
	expect_status 2
	[[ "$output" == *"is empty"* ]]
	run ev 99:00.0
	expect_status 1
	[[ "$output" == *"0000:99:00.0: no such PCI device"* ]]
}
