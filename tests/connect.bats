#!/usr/bin/env bats
# tsmctl connect against the live simulator: checks before the write, one
# write, and what the kernel shows afterwards (files, links, IDE registers).

load lib/helpers
load lib/netns

teardown() {
	release_held	# a process a failed test left held
	unmount_live
	netns_teardown
}

@test "connect writes tsm0 once and reports the new stream on both partners (SEV-TIO)" {
	mount_live sev-tio
	command -v strace >/dev/null || skip "strace not installed"
	# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run strace -f -e trace=write -o "$BATS_TEST_TMPDIR/trace" "$TSMCTL" --sysroot "$ROOT" \
		connect 81:00.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:81:00.0: connected to tsm0: stream0.0.0 on pci0000:80 (Stream ID 0), endpoint secure, root port secure" ]
	[ "${lines[1]}" = "connected 1 of 1 device" ]
	[ "$(grep -c 'write(.*"tsm' "$BATS_TEST_TMPDIR/trace")" -eq 1 ]
	grep -q 'write([0-9]*, "tsm0", 4) *= 4' "$BATS_TEST_TMPDIR/trace"
	# what the kernel shows now
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:81:00.0)/authenticated")" = tsm0 ]
	[ "$(readlink -f "$ROOT/sys/devices/pci0000:80/stream0.0.0")" = "$(readlink -f "$(dev 0000:81:00.0)")" ]
	[ "$(avail pci0000:80)" = 255 ]
	# SEV-TIO: Stream ID = H = 0; RP config-over-IDE, EP TEE-limited + default stream
	[ "$(sel_reg 0000:80:01.1 0 ctl)" = 0x00000201 ]
	[ "$(sel_reg 0000:81:00.0 0 ctl)" = 0x00c00001 ]
	[ "$(sel_reg 0000:80:01.1 0 sts)" = 0x00000002 ]
	[ "$(sel_reg 0000:81:00.0 0 sts)" = 0x00000002 ]
}

@test "connect -J: one result object with the pinned keys" {
	mount_live sev-tio
	run --separate-stderr t connect -J 0000:81:00.0 tsm0
	expect_status 0
	json_is '.schema_version' 1
	json_is 'keys' '["results","schema_version"]'
	json_is '.results | length' 1
	json_is '.results[0] | keys' '["action","available_secure_streams","bdf","errno","message","result","streams","tsm"]'
	json_is '.results[0] | [.bdf, .action, .result, .errno, .message, .tsm, .available_secure_streams]' \
		'["0000:81:00.0","connect","ok",null,"connected to tsm0","tsm0",255]'
	json_is '.results[0].streams' \
		'[{"name":"stream0.0.0","host_bridge":"pci0000:80","stream_id":0,"endpoint_state":"secure","root_port_state":"secure"}]'
	[ -z "$stderr" ]
}

@test "every key and result connect -J prints is documented in tsmctl-connect(8)" {
	mount_live sev-tio
	run --separate-stderr t connect -J 0000:81:00.0 tsm0
	for k in $(printf '%s' "$output" | jq -r '.results[0] | keys[]') \
		 $(printf '%s' "$output" | jq -r '.results[0].streams[0] | keys[]'); do
		grep -q "\*$k\*" "$TOP/man/tsmctl-connect.8.scd" || { echo "connect: $k undocumented"; return 1; }
	done
	for r in ok already dry-run insecure failed skipped; do
		grep -q "\"$r\"" "$TOP/man/tsmctl-connect.8.scd" || { echo "result $r undocumented"; return 1; }
	done
}

@test "already connected to the same TSM: success with a note, nothing written; --strict fails with EBUSY" {
	mount_live sev-tio
	before=$(tree_digest)
	run t connect 41:00.0 tsm0
	expect_status 0
	[[ "${lines[0]}" == "0000:41:00.0: already connected to tsm0: stream0.0.0 on pci0000:40 (Stream ID 0)"* ]]
	[ "${lines[1]}" = "connected 1 of 1 device (1 already)" ]
	run --separate-stderr t connect -J 41:00.0 tsm0
	json_is '.results[0] | [.result, .errno, .message]' '["already",null,"already connected to tsm0"]'
	run --separate-stderr t connect --strict 41:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:41:00.0: already connected to tsm0; a failure with --strict (EBUSY)" ]
	[ "${lines[0]}" = "0000:41:00.0: failed (EBUSY): stream0.0.0 on pci0000:40 (Stream ID 0), endpoint secure, root port secure" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "EBUSY: connected to another TSM, the message names it and how to move" {
	mount_live connect-generic
	run t connect 01:00.0 tsm0
	expect_status 0
	before=$(tree_digest)
	run --separate-stderr t connect 01:00.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:01:00.0: already connected to tsm0; to move it to tsm1, first run 'tsmctl disconnect 0000:01:00.0' (EBUSY)" ]
	[ "$(cat "$(dev 0000:01:00.0)/tsm/connect")" = tsm0 ]
	[ "$(tree_digest)" = "$before" ]
}

@test "ENXIO: no such TSM lists the registered ones, once, before any device; nothing is written" {
	mount_live sev-tio
	before=$(tree_digest)
	run --separate-stderr t connect 81:00.0 tsm7
	expect_status 1
	[ "$stderr" = "tsmctl connect tsm7: there is no TSM named tsm7; registered: tsm0 (ENXIO)" ]
	[ -z "$output" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "ENXIO: a devsec TSM is refused before writing and the link TSM named (proposed ABI)" {
	mount_live devsec-proposed
	before=$(tree_digest)
	run --separate-stderr t connect -J 10000:01:00.0 tsm1
	expect_status 1
	[[ "$stderr" == "tsmctl connect tsm1: tsm1 is a devsec TSM (pci_mode)"*"connect needs a link TSM: tsm0 (ENXIO)" ]]
	json_is '.' '{"schema_version":1,"results":[]}'
	[ "$(tree_digest)" = "$before" ]
	# the link TSM works, and the proposed tsmN/pciDDDD:BB link appears
	run t connect 10000:01:00.0 tsm0
	expect_status 0
	tsm0=$(readlink -f "$ROOT/sys/class/tsm/tsm0")
	[ "$(readlink -f "$tsm0/pci10000:00")" = "$(readlink -f "$ROOT/sys/devices/faux/devsec_bus/pci10000:00")" ]
}

@test "ENXIO from the kernel: no CMA mailbox, no DOE mailbox, a host bridge the TSM does not serve" {
	mount_live connect-sev-tio
	run --separate-stderr t connect --keep-going 41:00.0 46:00.0 81:00.0 tsm0
	expect_status 1
	[ "${stderr_lines[0]}" = "tsmctl connect 0000:41:00.0: has no CMA/SPDM DOE mailbox (doe_features lacks 0001:01), so tsm0 cannot authenticate it; nothing is left behind (tsm/connect reads empty, no stream) (ENXIO)" ]
	[ "${stderr_lines[1]}" = "tsmctl connect 0000:46:00.0: has no DOE mailbox, so tsm0 cannot set up an SPDM session with it (no doe_features); nothing is left behind (tsm/connect reads empty, no stream) (ENXIO)" ]
	[[ "${stderr_lines[2]}" == "tsmctl connect 0000:81:00.0: tsm0 declined the device: it does not serve pci0000:80,"*"(ENXIO)" ]]
	[ "${lines[3]}" = "connected 0 of 3 devices (3 failed)" ]
	for d in 0000:41:00.0 0000:46:00.0 0000:81:00.0; do
		[ "$(cat "$(dev $d)/tsm/connect")" = "" ]
	done
	[ "$(stream_links)" = "" ]
	[ "$(avail pci0000:40)" = 256 ]
	[ "$(avail pci0000:80)" = 256 ]
}

@test "EFAULT: SEV-TIO needs secure SPDM (0001:02) on the CMA mailbox" {
	mount_live connect-sev-tio
	run --separate-stderr t connect -J 42:00.0 tsm0
	expect_status 1
	json_is '.results[0] | [.result, .errno]' '["failed","EFAULT"]'
	[[ "$stderr" == *"tsm0 needs secure SPDM on the CMA mailbox, and doe_features lacks 0001:02"*"(EFAULT)" ]]
	[ "$(cat "$(dev 0000:42:00.0)/tsm/connect")" = "" ]
}

@test "EFAULT: SEV-TIO with secure SPDM on another DOE mailbox than CMA's: the likely cause named" {
	jq '(.. | objects | select(.bdf? == "0000:81:00.0")).doe = [["0001:01"], ["0001:02"]]' \
		"$TOPO/sev-tio.json" > "$BATS_TEST_TMPDIR/mailboxes.json"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/mailboxes.json" "$ROOT"
	# doe_features shows both features: audit cannot rule the connect out, and says why not
	run --separate-stderr t audit -J -d 81:00.0
	json_is '[.checks[] | select(.id == "device.connected") | [.status, .hint]] | .[0]' \
		'["warn","connect it: tsmctl connect 0000:81:00.0 tsm0 (it has 2 DOE mailboxes, and SEV-TIO needs secure SPDM on the one CMA uses, which doe_features cannot show: an EFAULT would say it is elsewhere)"]'
	run --separate-stderr t connect 81:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:81:00.0: failed (EFAULT)" ]
	[ "$stderr" = "tsmctl connect 0000:81:00.0: tsm0 needs secure SPDM on the DOE mailbox it uses for CMA, and the device has 2 DOE mailboxes: secure SPDM (0001:02) is likely on another one (the kernel logs \"CMA DOE MB must support SSESSION\"); otherwise the stream allocation failed, see the kernel log; nothing is left behind (tsm/connect reads empty, no stream) (EFAULT)" ]
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = "" ]
	[ "$(avail pci0000:80)" = 256 ]
}

@test "fault knobs: EIO after setup (SEV-TIO), EIO after register and ETIMEDOUT after enable are rolled back" {
	mount_live connect-sev-tio
	run --separate-stderr t connect 47:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:47:00.0: tsm0 failed the connect: Input/output error; see the kernel log; nothing is left behind (tsm/connect reads empty, no stream) (EIO)" ]
	[ "$(cat "$(dev 0000:47:00.0)/tsm/connect")" = "" ]
	[ "$(avail pci0000:40)" = 256 ]
	[ "$(stream_links)" = "" ]
	[ $(($(sel_reg 0000:47:00.0 0 ctl) & 1)) -eq 0 ]
	[ $(($(sel_reg 0000:40:07.1 0 ctl) & 1)) -eq 0 ]
	unmount_live

	mount_live connect-generic
	run --separate-stderr t connect -J --keep-going 02:00.0 05:00.0 tsm0
	expect_status 1
	json_is '[.results[] | [.result, .errno]]' '[["failed","EIO"],["failed","ETIMEDOUT"]]'
	json_is '[.results[].streams | length]' '[0,0]'
	json_is '[.results[].available_secure_streams]' '[8,8]'
	[[ "${stderr_lines[1]}" == *"Connection timed out"*"nothing is left behind"*"(ETIMEDOUT)" ]]
	for d in 0000:02:00.0 0000:05:00.0; do
		[ "$(cat "$(dev $d)/tsm/connect")" = "" ]
		[ $(($(sel_reg $d 0 ctl) & 1)) -eq 0 ]
	done
	[ "$(avail pci0000:00)" = 8 ]
	[ "$(stream_links)" = "" ]
}

@test "EBUSY: the Stream ID SEV-TIO picks is held by a stream enabled since boot" {
	mount_live connect-sev-tio
	run --separate-stderr t connect 61:00.0 tsm0
	expect_status 1
	[[ "$stderr" == "tsmctl connect 0000:61:00.0: the kernel found the device busy, yet tsm/connect reads empty: tsm0 found no free Stream ID for a new stream on pci0000:60"*"(EBUSY)" ]]
	[ "$(cat "$(dev 0000:61:00.0)/tsm/connect")" = "" ]
	[ "$(avail pci0000:60)" = 256 ]
}

@test "ENOMEM: a used-up pool, and a switch upstream port the IDE helpers refuse" {
	mount_live connect-generic
	run t connect 0001:01:00.0 tsm0
	expect_status 0
	[ "$(avail pci0001:00)" = 0 ]
	run --separate-stderr t connect --keep-going 0001:02:00.0 08:00.0 tsm0
	expect_status 1
	[[ "${stderr_lines[0]}" == "tsmctl connect 0001:02:00.0: the pci0001:00 stream pool is used up (available_secure_streams 0): disconnect another device below pci0001:00 first;"*"(ENOMEM)" ]]
	[[ "${stderr_lines[1]}" == "tsmctl connect 0000:08:00.0: tsm0 could not set up an IDE stream: the device is a switch upstream port, and the kernel's IDE helpers set up streams only for PCIe endpoints;"*"(ENOMEM)" ]]
	[ "$(cat "$(dev 0001:02:00.0)/tsm/connect")" = "" ]
	[ "$(cat "$(dev 0000:08:00.0)/tsm/connect")" = "" ]
}

@test "a stream that comes up INSECURE is a failure although the kernel accepted the connect (SEV-TIO keeps it)" {
	mount_live connect-sev-tio
	run --separate-stderr t connect -J --keep-going 43:00.0 44:00.0 tsm0
	expect_status 1
	json_is '[.results[] | [.result, .errno, .tsm]]' '[["insecure",null,"tsm0"],["insecure",null,"tsm0"]]'
	json_is '[.results[].streams[] | [.name, .endpoint_state, .root_port_state]]' \
		'[["stream0.0.0","insecure","disabled"],["stream1.0.0","disabled","insecure"]]'
	# connect-sev-tio.json models v6.19: the root port was enabled first, and disabled again
	[ "${stderr_lines[0]}" = "tsmctl connect 0000:43:00.0: connected to tsm0, but the stream is not SECURE on both partners (stream0.0.0 on pci0000:40: endpoint insecure, root port disabled: the endpoint did not reach SECURE, so SEV-TIO disabled the root port it had enabled first again (v6.19's order; 7.x enables the endpoint first and keeps both enabled)); the TSM kept it registered: 'tsmctl disconnect 0000:43:00.0' releases it" ]
	# the kernel state the failure reports
	[ "$(cat "$(dev 0000:43:00.0)/tsm/connect")" = tsm0 ]
	[ -L "$ROOT/sys/devices/pci0000:40/stream0.0.0" ]
	[ $(($(sel_reg 0000:43:00.0 0 sts) & 0xf)) -eq 0 ]
	[ $(($(sel_reg 0000:40:03.1 0 ctl) & 1)) -eq 0 ]
	[ $(($(sel_reg 0000:40:04.1 0 sts) & 0xf)) -eq 0 ]
	[ $(($(sel_reg 0000:44:00.0 0 ctl) & 1)) -eq 0 ]
	[ "$(avail pci0000:40)" = 254 ]
}

@test "IDE_FAIL on a partner is a failure as audit's stream.ide-fail says: result insecure, exit 1" {
	mount_live connect-sev-tio
	run --separate-stderr t connect 45:00.0 tsm0
	expect_status 1
	# the failure is on stdout too: the partner states never hide IDE_FAIL behind "secure"
	[ "${lines[0]}" = "0000:45:00.0: insecure: stream0.0.0 on pci0000:40 (Stream ID 0), endpoint secure, root port secure+ide-fail" ]
	[ "${lines[1]}" = "connected 0 of 1 device (1 insecure)" ]
	[ "$stderr" = "tsmctl connect 0000:45:00.0: connected to tsm0, but stream0.0.0: the root port reports IDE_FAIL (it received an IDE Fail message); 'tsmctl disconnect 0000:45:00.0' releases the stream" ]
	# what the kernel shows: connected, the IDE_FAIL bit set, and audit fails it too
	[ "$(cat "$(dev 0000:45:00.0)/tsm/connect")" = tsm0 ]
	[ $(($(sel_reg 0000:40:05.1 0 sts) >> 31)) -eq 1 ]
	run t audit --short -d 45:00.0
	expect_status 1
	run t disconnect 45:00.0
	expect_status 0
	run --separate-stderr t connect -J 45:00.0 tsm0
	expect_status 1
	json_is '.results[0] | [.result, .errno, .tsm]' '["insecure",null,"tsm0"]'
}

@test "the generic TSM releases a stream that stays INSECURE: ENXIO, nothing left" {
	mount_live connect-generic
	run --separate-stderr t connect 06:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *"did not come up SECURE and was released"*"nothing is left behind"*"(ENXIO)" ]]
	[ "$(cat "$(dev 0000:06:00.0)/tsm/connect")" = "" ]
	[ "$(stream_links)" = "" ]
	[ "$(avail pci0000:00)" = 8 ]
}

@test "a device that vanishes during the connect is reported as gone" {
	mount_live connect-generic
	run --separate-stderr t connect 07:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:07:00.0: the device is gone after the connect (surprise removal?)" ]
	[ ! -e "$(dev 0000:07:00.0)" ]
	[ "$(stream_links)" = "" ]
}

@test "a TSM unregistered while the kernel held the connect is said to be gone" {
	command -v strace >/dev/null || skip "strace not installed"
	mount_live connect-generic
	c=$(dev 0000:01:00.0)/tsm/connect
	# hold tsmctl right after its store returns (stopped until the test lets it go), then
	# unregister tsm0 before it looks (LeakSanitizer cannot run under ptrace: a sanitizer
	# build is traced without it)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$c" -e trace=write -e inject=write:signal=SIGSTOP \
		"$TSMCTL" --sysroot "$ROOT" connect --no-syslog 01:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	[ "$(cat "$c")" = tsm0 ]
	sim_ctl unregister tsm0
	kill -CONT "$HELD"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 1 ]
	# (strace says on stderr too how it resolved the path)
	[ "$(grep -v '^strace: ' "$BATS_TEST_TMPDIR/err")" = "tsmctl connect 0000:01:00.0: tsm0 went away during the connect: it is no longer registered (its provider module unloaded, or the platform shut it down), and what it held for the device went with it" ]
	[ -z "$(cat "$c")" ]
	[ ! -e "$ROOT/sys/class/tsm/tsm0" ]
}

@test "EEXIST on the 6.19-rc1 flavour: the TSM-directory stream names collide across host bridges, and that is said" {
	mount_live devsec-staging-rc1
	for m in devsec_bus devsec_tsm devsec_link_tsm; do "$SIM" modprobe "$ROOT" $m; done
	t connect --no-syslog 10000:01:00.0 tsm1
	[ -L "$ROOT/sys/class/tsm/tsm1/stream0.0.0" ]
	run --separate-stderr t connect --no-syslog 10001:03:00.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl connect 10001:03:00.0: tsm1 links each stream in its own directory by its name alone (tsmN/streamH.R.E, the 6.19-rc1 flavour), and each host bridge numbers its streams from stream0.0.0, so this stream's name is taken there already (tsm1 links stream0.0.0) and the kernel refused the link: the reason upstream dropped these links (731bb3118f85). Disconnect the device holding that name on the other host bridge first, or run a kernel without them; nothing is left behind (tsm/connect reads empty, no stream) (EEXIST)" ]
	[ -z "$(cat "$(dev 10001:03:00.0)/tsm/connect")" ]
}

@test "ENOENT: no tsm/connect on a function 1, a dependent function, a device without IDE or TEE" {
	mount_live sev-tio
	before=$(tree_digest)
	run --separate-stderr t connect --keep-going 41:00.1 82:00.0 tsm0
	expect_status 1
	[ "${stderr_lines[0]}" = "tsmctl connect 0000:41:00.1: has no tsm/connect: the kernel connects a slot through its function 0 (0000:41:00.0), and that covers the other functions (ENOENT)" ]
	[[ "${stderr_lines[1]}" == "tsmctl connect 0000:82:00.0: has no tsm/connect: the kernel offers it only on function 0"*"(ENOENT)" ]]
	[ "$(tree_digest)" = "$before" ]
	unmount_live

	mount_live connect-generic
	run t connect 01:00.0 tsm0
	expect_status 0
	run --separate-stderr t connect 01:00.1 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:01:00.1: a dependent function has no tsm/connect: its DSM 0000:01:00.0 manages it; connect 0000:01:00.0 instead (ENOENT)" ]
}

@test "dependent functions get tsm/dsm naming the DSM; pool 4 -> 3 (devsec)" {
	mount_live devsec
	pf0=$(dev 10000:01:00.0)
	pf1=$(dev 10000:01:00.1)
	[ ! -e "$pf1/tsm" ]
	[ "$(avail faux/devsec_bus/pci10000:00)" = 4 ]
	run --separate-stderr t connect -J 10000:01:00.0 tsm0
	expect_status 0
	json_is '.results[0] | [.result, .tsm, .available_secure_streams, (.streams | length)]' '["ok","tsm0",3,1]'
	[ "$(avail faux/devsec_bus/pci10000:00)" = 3 ]
	[ "$(avail faux/devsec_bus/pci10001:02)" = 4 ]
	[ "$(cat "$pf0/tsm/connect")" = tsm0 ]
	[ "$(cat "$pf0/tsm/dsm")" = 10000:01:00.0 ]
	[ "$(cat "$pf1/tsm/dsm")" = 10000:01:00.0 ]
	[ ! -e "$pf1/tsm/connect" ]
	[ "$(readlink -f "$ROOT/sys/devices/faux/devsec_bus/pci10000:00/stream0.0.0")" = "$(readlink -f "$pf0")" ]
	# the sample's Stream ID 0, the endpoint enabled and SECURE; the sample's emulated root
	# port is set up but never enabled (it only stores writes), which connect takes as the rig
	[ "$(sel_reg 10000:01:00.0 0 ctl)" = 0x00800001 ]
	[ $(($(sel_reg 10000:01:00.0 0 sts) & 0xf)) -eq 2 ]
	[ "$(sel_reg 10000:00:00.0 0 ctl)" = 0x00800000 ]
	[ $(($(sel_reg 10000:00:00.0 0 sts) & 0xf)) -eq 0 ]
}

@test "--all connects every unconnected device with tsm/connect, and only those" {
	mount_live devsec
	run t connect --all tsm0
	expect_status 0
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "10000:01:00.0: connected to tsm0: stream0.0.0 on pci10000:00"* ]]
	[[ "${lines[1]}" == "10001:03:00.0: connected to tsm0: stream0.0.0 on pci10001:02"* ]]
	[ "${lines[2]}" = "connected 2 of 2 devices" ]
	[ "$(avail faux/devsec_bus/pci10000:00)" = 3 ]
	[ "$(avail faux/devsec_bus/pci10001:02)" = 3 ]
	run --separate-stderr t connect --all tsm0
	expect_status 0
	[ "$output" = "connected 0 of 0 devices" ]
	[ "$stderr" = "tsmctl connect: every device with tsm/connect is connected already" ]
	unmount_live

	mount_live sev-tio
	run --separate-stderr t connect -J --all tsm0
	expect_status 0
	json_is '[.results[] | [.bdf, .result]]' '[["0000:81:00.0","ok"]]'
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
}

@test "--dry-run says what would be written where and leaves the tree byte for byte" {
	mount_live sev-tio
	before=$(tree_digest)
	run --separate-stderr t connect --dry-run 81:00.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:81:00.0: would write 'tsm0' to $ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	[ "${lines[1]}" = "would connect 1 of 1 device" ]
	run --separate-stderr t connect --dry-run -J --all tsm0
	expect_status 0
	json_is '[.results[] | [.bdf, .result, .errno]]' '[["0000:81:00.0","dry-run",null]]'
	run --separate-stderr t connect --dry-run -J --keep-going --strict 41:00.0 81:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:41:00.0: already connected to tsm0; a failure with --strict (EBUSY)" ]
	json_is '[.results[] | [.bdf, .result, .errno]]' '[["0000:41:00.0","failed","EBUSY"],["0000:81:00.0","dry-run",null]]'
	[ "$(tree_digest)" = "$before" ]
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = "" ]
}

@test "a fault halfway through a batch: default stops and reports the rest skipped" {
	mount_live connect-generic
	run --separate-stderr t connect 01:00.0 02:00.0 03:00.0 tsm0
	expect_status 1
	[[ "${lines[0]}" == "0000:01:00.0: connected to tsm0: stream0.0.0 on pci0000:00"* ]]
	[ "${lines[1]}" = "0000:02:00.0: failed (EIO)" ]
	[ "${lines[2]}" = "0000:03:00.0: skipped (not attempted after 0000:02:00.0 failed; --keep-going goes on)" ]
	[ "${lines[3]}" = "connected 1 of 3 devices (1 failed, 1 skipped)" ]
	[ "$(cat "$(dev 0000:01:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:02:00.0)/tsm/connect")" = "" ]
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = "" ]
	[ "$(avail pci0000:00)" = 7 ]
	[ "$(stream_links)" = "stream0.0.0 " ]
}

@test "--keep-going goes on after the fault; JSON has a result for every target" {
	mount_live connect-generic
	run --separate-stderr t connect -J --keep-going 01:00.0 02:00.0 03:00.0 tsm0
	expect_status 1
	json_is '[.results[] | [.bdf, .result, .errno]]' \
		'[["0000:01:00.0","ok",null],["0000:02:00.0","failed","EIO"],["0000:03:00.0","ok",null]]'
	json_is '[.results[].available_secure_streams]' '[7,7,6]'
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = tsm0 ]
	[ "$(avail pci0000:00)" = 6 ]
	[ "$(stream_links)" = "stream0.0.0 stream1.0.0 " ]
	# without -J: the same, as lines and a summary
	run t disconnect --all
	expect_status 0
	run --separate-stderr t connect --keep-going 01:00.0 02:00.0 03:00.0 tsm0
	expect_status 1
	[ "${lines[3]}" = "connected 2 of 3 devices (1 failed)" ]
}

@test "two processes connecting different devices at once both succeed" {
	mount_live connect-generic
	t connect 04:00.0 tsm0 > "$BATS_TEST_TMPDIR/a" 2>&1 &
	a=$!
	t connect 03:00.0 tsm0 > "$BATS_TEST_TMPDIR/b" 2>&1 &
	b=$!
	wait $a
	wait $b
	grep -q '^connected 1 of 1 device$' "$BATS_TEST_TMPDIR/a"
	grep -q '^connected 1 of 1 device$' "$BATS_TEST_TMPDIR/b"
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:04:00.0)/tsm/connect")" = tsm0 ]
	[ "$(avail pci0000:00)" = 6 ]
	[ "$(stream_links)" = "stream0.0.0 stream1.0.0 " ]
}

@test "two processes connecting the same device at once: one connects, the other reports already" {
	# no timing: run at once or one after the other, the results are the same
	mount_live connect-generic
	t connect -J 04:00.0 tsm0 > "$BATS_TEST_TMPDIR/a" &
	a=$!
	t connect -J 04:00.0 tsm0 > "$BATS_TEST_TMPDIR/b" &
	b=$!
	wait $a
	wait $b
	results=$(jq -r '.results[0].result' "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" | sort | tr '\n' ' ')
	[ "$results" = "already ok " ]
	[ "$(stream_links)" = "stream0.0.0 " ]
	[ "$(avail pci0000:00)" = 7 ]
	# --strict: the loser fails with EBUSY
	run t disconnect 04:00.0
	t connect --strict -J 04:00.0 tsm0 > "$BATS_TEST_TMPDIR/a" &
	a=$!
	t connect --strict -J 04:00.0 tsm0 > "$BATS_TEST_TMPDIR/b" &
	b=$!
	rc=0
	wait $a || rc=$((rc + $?))
	wait $b || rc=$((rc + $?))
	[ "$rc" -eq 1 ]
	results=$(jq -r '.results[0] | "\(.result):\(.errno)"' "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" | sort | tr '\n' ' ')
	[ "$results" = "failed:EBUSY ok:null " ]
}

@test "SIGINT during a batch: the current write completes, the rest is skipped, exit 130" {
	mount_live connect-generic
	command -v strace >/dev/null || skip "strace not installed"
	# the signal comes while 0000:04:00.0's store is under way: tsmctl is held (stopped)
	# as the store returns, the signal queued, then let go; a signal during the store is
	# taken at that same point (LeakSanitizer cannot run under ptrace)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$(dev 0000:04:00.0)/tsm/connect" \
		-e trace=write -e inject=write:signal=SIGSTOP \
		"$TSMCTL" --sysroot "$ROOT" connect -v 04:00.0 03:00.0 01:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	kill -INT "$HELD"
	kill -CONT "$HELD"
	rc=0
	wait $pid || rc=$?
	cat "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	[ "$(grep -c writing "$BATS_TEST_TMPDIR/err")" -eq 1 ]
	mapfile -t out < "$BATS_TEST_TMPDIR/out"
	[[ "${out[0]}" == "0000:04:00.0: connected to tsm0: stream0.0.0 on pci0000:00"* ]]
	[ "${out[1]}" = "0000:03:00.0: skipped (not attempted: interrupted by SIGINT)" ]
	[ "${out[2]}" = "0000:01:00.0: skipped (not attempted: interrupted by SIGINT)" ]
	[ "${out[3]}" = "connected 1 of 3 devices (2 skipped)" ]
	[ "$(cat "$(dev 0000:04:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = "" ]
	[ "$(stream_links)" = "stream0.0.0 " ]
}

@test "SIGTERM during a batch with -J: the document is complete, exit 143" {
	mount_live connect-generic
	command -v strace >/dev/null || skip "strace not installed"
	# held as 0000:04:00.0's store returns, the signal queued (as in the SIGINT test)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$(dev 0000:04:00.0)/tsm/connect" \
		-e trace=write -e inject=write:signal=SIGSTOP \
		"$TSMCTL" --sysroot "$ROOT" connect -v -J 04:00.0 03:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	kill -TERM "$HELD"
	kill -CONT "$HELD"
	rc=0
	wait $pid || rc=$?
	[ "$rc" -eq 143 ]
	output=$(cat "$BATS_TEST_TMPDIR/out")
	json_is '[.results[] | [.bdf, .result, .message]]' \
		'[["0000:04:00.0","ok","connected to tsm0"],["0000:03:00.0","skipped","not attempted: interrupted by SIGTERM"]]'
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = "" ]
}

@test "bad input is refused with exit 2 before anything is written" {
	mount_live sev-tio
	before=$(tree_digest)
	for bdf in ../../x 0000:81:00.0/../41:00.0 "81:00.0;" " 81:00.0" 81:00.0/ 81:00..0 \
		zz:00.0 81:00.8 81:20.0 0000:0000:81:00.0 "" 81 tsm0/../x; do
		run --separate-stderr t connect "$bdf" tsm0
		expect_status 2 || { echo "accepted: '$bdf'"; return 1; }
		[[ "$stderr" == "tsmctl connect: invalid PCI address '$bdf' (expected [DDDD:]BB:DD.F, or [DDDD:]BB:DD for a slot)"* ]]
	done
	# well-formed, but no such device: exit 1 as for a filter, and the whole batch stops
	run --separate-stderr t connect 0000:99:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect: 0000:99:00.0: no such PCI device (see 'tsmctl devices --all')" ]
	run t connect 81:00.0 99:00.0 tsm0
	expect_status 1
	for tsm in tsm TSM0 tsm01 tsm-1 tsm0x "tsm 0" tsm0/ ../tsm0 " tsm0"; do
		run --separate-stderr t connect 81:00.0 "$tsm"
		expect_status 2 || { echo "accepted TSM: '$tsm'"; return 1; }
		[[ "$stderr" == "tsmctl connect: invalid TSM name '$tsm' (expected tsmN)"* ]]
	done
	run t connect tsm0
	expect_status 2
	run t connect
	expect_status 2
	run t connect --all 81:00.0 tsm0
	expect_status 2
	run --separate-stderr t connect 81:00.0 0000:81:00.0 tsm0
	expect_status 2
	[[ "$stderr" == "tsmctl connect: 0000:81:00.0 is given twice"* ]]
	run t connect --wait -1 81:00.0 tsm0
	expect_status 2
	# the TSM forgotten is said missing, not a device called an invalid TSM name
	for bdf in 81:00.0 0000:81:00.0 81:00; do
		run --separate-stderr t connect "$bdf"
		expect_status 2
		[ "${stderr%%$'\n'*}" = "tsmctl connect: no TSM given: '$bdf' is a device, and the TSM comes last (tsmctl connect BDF... TSM | --all TSM)" ]
	done
	run --separate-stderr t connect 41:00.0 81:00.0
	expect_status 2
	[[ "$stderr" == "tsmctl connect: no TSM given: '81:00.0' is a device"* ]]
	# what follows the TSM is extra, for connect and disconnect
	run --separate-stderr t connect 81:00.0 tsm0 extra
	expect_status 2
	[ "${stderr%%$'\n'*}" = "tsmctl connect: extra operand 'extra': the TSM (tsm0) comes last (tsmctl connect BDF... TSM | --all TSM)" ]
	run --separate-stderr t connect tsm0 81:00.0
	expect_status 2
	[[ "$stderr" == "tsmctl connect: extra operand '81:00.0': the TSM (tsm0) comes last"* ]]
	run --separate-stderr t disconnect 81:00.0 tsm0 41:00.0
	expect_status 2
	[ "${stderr%%$'\n'*}" = "tsmctl disconnect: extra operand '41:00.0': the TSM (tsm0) comes last (tsmctl disconnect BDF... [TSM] | --all [TSM])" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "-v prints each sysfs path written; --help follows the usual layout" {
	mount_live sev-tio
	run --separate-stderr t connect -v 81:00.0 tsm0
	expect_status 0
	[ "$stderr" = "tsmctl connect: writing 'tsm0' to $ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	run t connect --help
	expect_status 0
	[ "${lines[0]}" = "Usage:" ]
	[[ "$output" == *"--keep-going"*"--wait SECONDS"* ]]
	[[ "$output" == *"For more details see tsmctl-connect(8)." ]]
}

@test "not root: EACCES says root is needed, and nothing changes" {
	mount_live sev-tio
	command -v setpriv >/dev/null || skip "setpriv not installed"
	open_path_to_root
	before=$(tree_digest)
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" connect 81:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:81:00.0: writing tsm/connect needs root (CAP_SYS_ADMIN): run tsmctl as root (EACCES)" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "--wait wakes on the TSM's uevent, then connects" {
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true }'
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" connect --wait 0.3 81:00.0 tsm0
	expect_status 1
	# not ready by then: as 'tsmctl wait' says it, and nothing is tried
	[ "${stderr_lines[0]}" = "tsmctl connect: tsm0 not ready after 0.3 s" ]
	[[ "${stderr_lines[1]}" == "tsmctl connect: TSM provider modules: "* ]]
	[ "${stderr_lines[2]}" = "tsmctl connect: nothing written" ]
	[ -z "$output" ]
	nsenter --net="$NS" "$TSMCTL" --sysroot "$ROOT" -v connect --wait 60 81:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_for_line "$BATS_TEST_TMPDIR/err" "still waiting (looked at sysfs: listening now)"
	[ ! -e "$(dev 0000:81:00.0)/tsm" ]	# still waiting: no TSM
	kill -0 $pid
	sim_ctl register tsm0
	wait $pid
	grep -q '^0000:81:00.0: connected to tsm0: stream0.0.0 on pci0000:80' "$BATS_TEST_TMPDIR/out"
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
}

@test "--wait agrees with wait: a TSM registered without its uevent is found at the deadline's look" {
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true, "uevents": false }'
	command -v strace >/dev/null || skip "strace not installed"
	# held as it has written its second note, after the look once listening: the silent
	# register comes between that look and the deadline's, however slow the machine
	: > "$BATS_TEST_TMPDIR/err"
	nsenter --net="$NS" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$BATS_TEST_TMPDIR/err" -e trace=write \
		-e inject=write:signal=SIGSTOP:when=2 \
		"$TSMCTL" --sysroot "$ROOT" -v connect --wait 1.5 81:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	[ "$(tail -1 "$BATS_TEST_TMPDIR/err")" = "tsmctl connect: still waiting (looked at sysfs: listening now)" ]
	sim_ctl register tsm0
	kill -CONT "$HELD"
	rc=0
	wait $pid || rc=$?
	[ "$rc" -eq 0 ]
	grep -qx "tsmctl connect: ready (looked at sysfs: the deadline)" "$BATS_TEST_TMPDIR/err"
	if grep -q "not ready\|gave up" "$BATS_TEST_TMPDIR/err"; then false; fi
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0 tsm0
	expect_status 0
}

@test "--wait looks every 5 s however many other uevents come (issue 45)" {
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true, "uevents": false }'
	noise_start 0.5	# as the bdi adds of FUSE mounts coming and going on the host
	nsenter --net="$NS" "$TSMCTL" --sysroot "$ROOT" -v connect --no-syslog --wait 600 81:00.0 tsm0 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_for_line "$BATS_TEST_TMPDIR/err" "still waiting (looked at sysfs: listening now)"
	sim_ctl register tsm0	# silent: the look due every 5 s finds it, long before the deadline
	wait_gone $pid	# the old code looked only at the deadline, 600 s on
	wait $pid
	grep -qx "tsmctl connect: ready (looked at sysfs: due 5 s after the last look)" "$BATS_TEST_TMPDIR/err"
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
}

@test "--wait: once the TSM is ready, a missing tsm/ group is reported at once" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/static.XXXXXX")
	"$SIM" build "$TOPO/sev-tio.json" "$ROOT" >/dev/null
	gpu=$(readlink -f "$(dev 0000:81:00.0)")
	mv "$gpu/tsm" "$BATS_TEST_TMPDIR/tsm-gone"
	run --separate-stderr t -v connect --dry-run --wait 10 81:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *"0000:81:00.0: has no tsm/connect"* ]]
	# decided at the first look: it never listened for a uevent, so never waited
	[[ "$stderr" != *"listening for tsm uevents"* ]]
}

@test "text from the tree is quoted escaped in messages, never raw to the terminal" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/static.XXXXXX")
	"$SIM" build "$TOPO/sev-tio.json" "$ROOT" >/dev/null
	printf 'tsm0\033[2J\n' > "$(dev 0000:41:00.0)/tsm/connect"
	run --separate-stderr t connect 41:00.0 tsm0
	expect_status 1
	[ "$stderr" = 'tsmctl connect 0000:41:00.0: already connected to tsm0\x1b[2J; to move it to tsm0, first run '"'tsmctl disconnect 0000:41:00.0'"' (EBUSY)' ]
	if printf '%s%s' "$output" "$stderr" | grep -q $'\033'; then false; fi
	run --separate-stderr t disconnect 41:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *'connected to tsm0\x1b[2J, not tsm0'* ]]
	if printf '%s' "$stderr" | grep -q $'\033'; then false; fi
}

@test "a TSM that cannot serve is one error before any candidate: --all with or without devices, a devsec TSM" {
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t connect --all tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect tsm0: there is no TSM named tsm0: none is registered (see 'tsmctl list') (ENXIO)" ]
	[ -z "$output" ]
	run --separate-stderr t connect -J --all tsm0
	expect_status 1
	json_is '.' '{"schema_version":1,"results":[]}'
	# with candidates: still one message, nothing written
	mount_live connect-sev-tio
	before=$(tree_digest)
	run --separate-stderr t connect --all --keep-going tsm7
	expect_status 1
	[ "$stderr" = "tsmctl connect tsm7: there is no TSM named tsm7; registered: tsm0 (ENXIO)" ]
	[ -z "$output" ]
	[ "$(tree_digest)" = "$before" ]
	unmount_live
	# a devsec TSM, every link candidate connected already: an error all the same
	mount_live devsec-proposed
	run t connect --all tsm0
	expect_status 0
	run --separate-stderr t connect --all tsm1
	expect_status 1
	[[ "$stderr" == "tsmctl connect tsm1: tsm1 is a devsec TSM (pci_mode)"*"(ENXIO)" ]]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
}

@test "a device locked to a devsec TSM: connect says so (EBUSY, unlock first) without writing; disconnect and audit too" {
	mount_live devsec-proposed
	run t lock 10000:01:00.0 tsm1
	expect_status 0
	before=$(tree_digest)
	command -v strace >/dev/null || skip "strace not installed"
	# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=write -o "$BATS_TEST_TMPDIR/trace" \
		"$TSMCTL" --sysroot "$ROOT" connect 10000:01:00.0 tsm0
	expect_status 1
	[ "$stderr" = "tsmctl connect 10000:01:00.0: locked to tsm1 (TDISP, a devsec TSM's context), and a device has one TSM context at a time: run 'tsmctl unlock 10000:01:00.0' first (EBUSY)" ]
	if grep -q 'tsm/connect' "$BATS_TEST_TMPDIR/trace"; then false; fi
	if grep -q 'Stream ID' <<<"$stderr"; then false; fi
	[ "$(tree_digest)" = "$before" ]
	run --separate-stderr t disconnect 10000:01:00.0
	expect_status 1
	[ "$stderr" = "tsmctl disconnect 10000:01:00.0: not connected, but locked to tsm1 (TDISP, a devsec TSM's context), which disconnect does not end: 'tsmctl unlock 10000:01:00.0' does (ENXIO)" ]
	[ "$(tree_digest)" = "$before" ]
	# audit: no 'tsmctl connect' hint for a device that is locked
	run --separate-stderr t audit -J -d 10000:01:00.0
	json_is '[.checks[] | select(.id == "device.connected") | [.status, .hint]]' '[["skip","see device.tdisp"]]'
	[[ "$output" != *"tsmctl connect 10000:01:00.0"* ]]
	run --separate-stderr t audit -J -d 10000:01:00.0 --require-connected 10000:01:00.0
	expect_status 1
	json_is '[.checks[] | select(.id == "device.connected") | .status]' '["fail"]'
	json_is '[.checks[] | select(.id == "device.connected") | .hint | startswith("unlock it (tsmctl unlock 10000:01:00.0)")]' '[true]'
	# unlocked, the same connect works
	run t unlock 10000:01:00.0
	run t connect 10000:01:00.0 tsm0
	expect_status 0
}

@test "hints name what exists: no function 0 is offered for a root port or a slot without one" {
	mount_live connect-sev-tio
	run --separate-stderr t connect --dry-run 40:01.1 tsm0
	expect_status 1
	[[ "$stderr" != *"0000:40:01.0"* ]]
	[ "$stderr" = "tsmctl connect 0000:40:01.1: has no tsm/connect: the kernel offers it only on function 0 of a PCIe endpoint, switch upstream port or RCiEP with IDE or TEE-IO (see 'tsmctl devices --all') (ENOENT)" ]
	unmount_live
	mount_live sev-tio
	# a root port the scan knows (a stream's partner): said what it is
	run --separate-stderr t connect --dry-run 40:01.1 tsm0
	expect_status 1
	[[ "$stderr" == "tsmctl connect 0000:40:01.1: has no tsm/connect: it is a root port, one partner of the streams of the devices below it;"* ]]
	# function 1 of a slot whose function 0 has tsm/connect: that one is named
	run --separate-stderr t connect --dry-run 41:00.1 tsm0
	[[ "$stderr" == *"the kernel connects a slot through its function 0 (0000:41:00.0)"* ]]
}

@test "the up-front TSM check quotes tree text escaped once: ESC as \\x1b, a backslash as \\x5c" {
	edit_tree devsec-proposed
	printf 'devsec\033[2J\\x\n' > "$(readlink -f "$ROOT/sys/class/tsm/tsm1")/pci_mode"
	run --separate-stderr t connect 10000:01:00.0 tsm1
	expect_status 1
	[ "$stderr" = 'tsmctl connect tsm1: tsm1 is a devsec\x1b[2J\x5cx TSM (pci_mode), which secures devices inside a guest (lock/accept); connect needs a link TSM: tsm0 (ENXIO)' ]
}

@test "a store into a tree no kernel reads (a copy, a capture) is refused and said why, for every verb; --force writes" {
	edit_tree sev-tio
	why="is neither a kernel's sysfs (its sys/ is no sysfs mount) nor a live tsm-sim mount, so no kernel would take the store"
	# (a copy's resource files are BAR-sized: what changed is found by time, not by digest)
	touch "$BATS_TEST_TMPDIR/mark"
	run --separate-stderr t connect 81:00.0 tsm0
	expect_status 1
	[ "$output" = $'0000:81:00.0: failed (EROFS)\nconnected 0 of 1 device (1 failed)' ]
	[ "$stderr" = "tsmctl connect 0000:81:00.0: not written: $ROOT $why: tsm/connect there is a plain file (a copy or a capture?) and writing it would show what no kernel did; --force writes it all the same (EROFS)" ]
	run --separate-stderr t connect -J 81:00.0 tsm0
	expect_status 1
	json_is '.results[0] | [.result, .errno, (.message | startswith("not written: "))]' '["failed","EROFS",true]'
	run --separate-stderr t disconnect 41:00.0
	expect_status 1
	[[ "$stderr" == "tsmctl disconnect 0000:41:00.0: not written: $ROOT $why: tsm/disconnect there"*"(EROFS)" ]]
	[ -z "$(find "$ROOT" -newer "$BATS_TEST_TMPDIR/mark")" ]
	# a dry run writes nothing anyway: it still says what would be written
	run --separate-stderr t connect --dry-run 81:00.0 tsm0
	expect_status 0
	# --force: the file takes the name, as a plain file does
	run --separate-stderr t connect --force --no-syslog 81:00.0 tsm0
	expect_status 0
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
	# the guest's verbs, the same (accept and unlock on a device the capture shows locked)
	edit_tree guest-sev
	touch "$BATS_TEST_TMPDIR/mark"
	run --separate-stderr t lock 00:05.0 tsm0
	expect_status 1
	[[ "$stderr" == *": not written: $ROOT $why: tsm/lock there"*"(EROFS)" ]]
	[ -z "$(find "$ROOT" -newer "$BATS_TEST_TMPDIR/mark")" ]
	echo tsm0 > "$(dev 0000:00:05.0)/tsm/lock"
	touch "$BATS_TEST_TMPDIR/mark"
	for verb in accept unlock; do
		run --separate-stderr t $verb 00:05.0
		expect_status 1
		[[ "$stderr" == *": not written: $ROOT $why: tsm/$verb there"*"(EROFS)" ]]
	done
	[ -z "$(find "$ROOT" -newer "$BATS_TEST_TMPDIR/mark")" ]
	# a live simulator mount takes stores, as sysfs does
	mount_live sev-tio
	run --separate-stderr t connect --no-syslog 81:00.0 tsm0
	expect_status 0
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
}

@test "a read-only --sysroot is said to be one, not blamed on a read-only /sys in a container" {
	mount_live sev-tio
	ro=$BATS_TEST_TMPDIR/ro
	mkdir "$ro"
	mount --bind "$ROOT" "$ro" || skip "cannot bind-mount"
	mount -o remount,ro,bind "$ro" || { umount "$ro"; skip "cannot remount read-only"; }
	run --separate-stderr "$TSMCTL" --sysroot "$ro" connect --no-syslog 81:00.0 tsm0
	umount "$ro"
	expect_status 1
	[ "$stderr" = "tsmctl connect 0000:81:00.0: $ro is on a read-only file system: tsm/connect cannot be written there (EROFS)" ]
	[ -z "$(cat "$(dev 0000:81:00.0)/tsm/connect")" ]
}

@test "a slot is its DSM: connect 81:00 and disconnect 81:00 write function 0, said on stderr" {
	mount_live sev-tio
	run --separate-stderr t connect --no-syslog -J 81:00 tsm0
	expect_status 0
	[ "$stderr" = "tsmctl connect: 81:00 is a slot: its DSM is function 0, 0000:81:00.0" ]
	json_is '.results | map([.bdf, .result])' '[["0000:81:00.0","ok"]]'
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
	[ "$(readlink -f "$ROOT/sys/devices/pci0000:80/stream0.0.0")" = "$(readlink -f "$(dev 0000:81:00.0)")" ]
	[ "$(avail pci0000:80)" = 255 ]
	run --separate-stderr t disconnect --no-syslog 0000:81:00
	expect_status 0
	[ "$stderr" = "tsmctl disconnect: 0000:81:00 is a slot: its DSM is function 0, 0000:81:00.0" ]
	[ -z "$(cat "$(dev 0000:81:00.0)/tsm/connect")" ]
	[ ! -e "$ROOT/sys/devices/pci0000:80/stream0.0.0" ]
	# a slot and its function 0 name one target twice; a slot with no function is no device
	run --separate-stderr t connect --no-syslog 81:00 81:00.0 tsm0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"0000:81:00.0 is given twice"* ]]
	run --separate-stderr t connect --no-syslog 99:00 tsm0
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"0000:99:00.0: no such PCI device"* ]]
	run --separate-stderr t connect --no-syslog 81:00. tsm0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"invalid PCI address '81:00.' (expected [DDDD:]BB:DD.F, or [DDDD:]BB:DD for a slot)"* ]]
	[ -z "$(cat "$(dev 0000:81:00.0)/tsm/connect")" ]
}

@test "a slot given to lock, accept or unlock is each of its functions (a TDI each)" {
	mount_live guest-sev
	run --separate-stderr t lock --no-syslog 00:05 tsm0
	expect_status 0
	[ "$stderr" = "tsmctl lock: 00:05 is a slot: its function 0000:00:05.0" ]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/lock")" = tsm0 ]
	[ -z "$(cat "$(dev 0000:00:06.0)/tsm/lock")" ]
	run --separate-stderr t accept --no-syslog 00:05
	expect_status 0
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 1 ]
	run --separate-stderr t unlock --no-syslog 00:05 tsm0
	expect_status 0
	[ -z "$(cat "$(dev 0000:00:05.0)/tsm/lock")" ]
}

@test "tsmctl-autoconnect: a slot line in connect.conf connects the slot's DSM" {
	mount_live sev-tio
	conf=$BATS_TEST_TMPDIR/connect.conf
	printf '81:00 tsm0\n' > "$conf"
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	# the stores stay out of the system log; audit takes no --no-syslog
	printf '#!/bin/sh\n[ "$1" = connect ] && set -- "$@" --no-syslog\nexec "%s" --sysroot "%s" "$@"\n' \
		"$TSMCTL" "$ROOT" > "$BIN/tsmctl"
	chmod +x "$BIN/tsmctl"
	run env TSMCTL="$BIN/tsmctl" "$TOP/contrib/tsmctl-autoconnect" "$conf"
	expect_status 0
	[[ "$output" == *"0000:81:00.0: connected to tsm0"* ]]
	[ "$(cat "$(dev 0000:81:00.0)/tsm/connect")" = tsm0 ]
}
