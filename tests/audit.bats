#!/usr/bin/env bats
# tsmctl audit: every check passes on healthy hosts and is made to fail (or
# warn, or need root) by a topology, a fault knob or an edit of a built tree
# that models what a kernel can show. Results are asserted by id, object,
# status and message in the JSON; the exit status in every case.

load lib/helpers

teardown() {
	unmount_live
}

# The ids the issue and the man page promise.
IDS=(platform.config-access platform.pci-devices platform.tsm-class platform.tsm-present platform.tsm-mode
	device.connected device.authenticated device.dsm device.has-stream device.tdisp
	device.evidence stream.link stream.connected stream.enabled stream.secure stream.ide-fail stream.id
	stream.rid stream.addr hostbridge.pool hostbridge.tsm-link config.malformed ide.untracked
	psp.fused-part psp.debug-lock psp.anti-rollback psp.boot-integrity platform.sev-mitigations)
# device.tdisp judges functions with tsm/lock (a guest's): a v6.19 host has none;
# stream.addr judges only streams of a provider with its own rule (TDX Connect);
# platform.sev-mitigations only where the kernel shows the vectors (7.3).
HOST_IDS=()
for id in "${IDS[@]}"; do
	case $id in device.tdisp|stream.addr|platform.sev-mitigations) ;; *) HOST_IDS+=("$id") ;; esac
done

# audit -J with stderr kept apart; sets status, output, stderr.
audit_json() {
	run --separate-stderr t audit -J "$@"
}

# status / message / hint of the result of check ID about OBJECT in $output.
field_of() {
	printf '%s' "$output" | jq -r --arg id "$2" --arg obj "$3" \
		"[.checks[] | select(.id == \$id and .object == \$obj) | .$1] | if length == 1 then .[0] else \"\(length) results\" end"
}

# Assert: check ID on OBJECT has STATUS, and (optionally) its message contains TEXT.
has() {
	local st msg
	st=$(field_of status "$1" "$2")
	if [ "$st" != "$3" ]; then
		echo "$1 $2: expected status $3, got $st"
		printf '%s' "$output" | jq -c --arg id "$1" '.checks[] | select(.id == $id)'
		return 1
	fi
	if [ -n "${4:-}" ]; then
		msg=$(field_of message "$1" "$2")
		if [[ "$msg" != *"$4"* ]]; then
			echo "$1 $2: message '$msg' lacks '$4'"
			return 1
		fi
	fi
}

# The results that did not pass, as [id, object, status] triples. device.evidence
# is left out: without a trust store (none on a test machine) it skips on every
# device with evidence; evidence-verify.bats tests it.
non_passing() {
	printf '%s' "$output" | jq -c '[.checks[] | select(.status != "pass" and .id != "device.evidence") | [.id, .object, .status]]'
}

# The same without the devsec rig's root-port skips (stream.enabled/secure, said why; see RIG_SKIPS).
non_passing_off_rig() {
	printf '%s' "$output" | jq -c '[.checks[] | select(.status != "pass" and .id != "device.evidence") |
		select((.status == "skip" and (.message | contains("the devsec sample'"'"'s emulated root port"))) | not) |
		[.id, .object, .status]]'
}

as_nobody() {
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" audit "$@"
}

# ---- healthy hosts ----

@test "SEV-TIO (static): nothing fails; the one warning is the unconnected TEE GPU" {
	ROOT=$(static_tree sev-tio)
	audit_json
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[ "$(non_passing)" = '[["device.connected","0000:81:00.0","warn"]]' ]
	for id in "${HOST_IDS[@]}"; do
		printf '%s' "$output" | jq -e --arg id "$id" 'any(.checks[]; .id == $id)' >/dev/null ||
			{ echo "no result for $id"; return 1; }
	done
	json_is '[.checks[] | select(.id == "device.tdisp")]' '[]'
	has device.connected 0000:41:00.0 pass "connected to tsm0"
	has stream.link pci0000:40/stream0.0.0 pass "-> 0000:41:00.0 via 0000:40:01.1; H 0 < pool 256, R 0 < 4, E 0 < 2"
	has stream.secure pci0000:40/stream0.0.0 pass "both partners SECURE"
	has stream.id pci0000:40/stream0.0.0 pass "Stream ID 0 on both partners"
	has stream.rid pci0000:40/stream0.0.0 pass "0000-ffff on both partners (the SEV-TIO convention"
	has platform.tsm-mode tsm0 pass "v6.19 ABI: link assumed"
	has hostbridge.tsm-link pci0000:40 pass "v6.19 ABI"
	has hostbridge.pool pci0000:40 pass "255 available, 1 in use"
	has ide.untracked 0000:40:01.1 pass "1 enabled Selective block, named by a stream link"
	has platform.config-access platform pass
	has psp.fused-part tsm0 pass "fused_part reads 1: a fused production part (PSP 0000:02:00.1)"
	has psp.boot-integrity tsm0 pass "boot_integrity reads 1"
	json_is '.summary | [.total, .pass, .warn, .fail, .skip, .needs_root]' '[38,36,1,0,1,0]'
	run t audit --strict
	[ "$status" -eq 1 ]
}

@test "SEV-TIO (live): after connecting the GPU every check passes, even --strict" {
	mount_live sev-tio
	echo tsm0 >"$(dev 0000:81:00.0)/tsm/connect"
	audit_json --strict
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = '[]' ]
	has device.has-stream 0000:81:00.0 pass "pci0000:80/stream0.0.0"
	has stream.secure pci0000:80/stream0.0.0 pass
	has hostbridge.pool pci0000:80 pass "255 available, 1 in use"
}

# The devsec rig's streams as the sample leaves them: the emulated root port set up, never
# enabled (samples/devsec/bus.c stores writes; the sample enables the endpoint alone).
RIG_SKIPS='[["stream.enabled","pci10000:00/stream0.0.0","skip"],["stream.enabled","pci10001:02/stream0.0.0","skip"],["stream.secure","pci10000:00/stream0.0.0","skip"],["stream.secure","pci10001:02/stream0.0.0","skip"]]'

@test "devsec (live): both PF0s connected, every check passes but the rig's root ports (skip, said why)" {
	mount_live devsec
	echo tsm0 >"$(dev 10000:01:00.0)/tsm/connect"
	echo tsm0 >"$(dev 10001:03:00.0)/tsm/connect"
	audit_json --strict
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = "$RIG_SKIPS" ]
	has stream.enabled pci10000:00/stream0.0.0 skip "root port 10000:00:00.0 block 0 disabled (control 0x00800000): the devsec sample's emulated root port only stores register writes, and the sample enables the endpoint alone (samples/devsec); the endpoint's side is as it should be"
	has stream.secure pci10001:02/stream0.0.0 skip "root port 10001:02:00.0 block 0 INSECURE (status 0x00000000): the devsec sample's emulated root port"
	has hostbridge.pool pci10000:00 pass "3 available, 1 in use"
	has device.dsm 10000:01:00.1 pass "managed by 10000:01:00.0 (a function of its slot)"
	has device.authenticated 10000:01:00.1 pass "authenticated tsm0 = its DSM"
	has stream.rid pci10001:02/stream0.0.0 pass "root port 0300-0300 covers 10001:03:00.0; endpoint 0200-0200 covers 10001:02:00.0"
	has stream.id pci10001:02/stream0.0.0 pass "Stream ID 1 on both partners"
}

@test "devsec-proposed (live): after a connect every check passes, pci_mode and tsmN links included" {
	mount_live devsec-proposed
	echo tsm0 >"$(dev 10000:01:00.0)/tsm/connect"
	echo tsm0 >"$(dev 10001:03:00.0)/tsm/connect"
	audit_json --strict
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = "$RIG_SKIPS" ]
	has platform.tsm-mode tsm0 pass "pci_mode link"
	has platform.tsm-mode tsm1 pass "pci_mode devsec"
	has hostbridge.tsm-link pci10000:00 pass "tsm0/pci10000:00 matches"
	has hostbridge.tsm-link pci10001:02 pass "tsm0/pci10001:02 matches"
	# after one disconnect: that host bridge has neither stream nor link, the PF0 only warns
	echo tsm0 >"$(dev 10001:03:00.0)/tsm/disconnect"
	audit_json
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = '[["device.connected","10001:03:00.0","warn"],["stream.enabled","pci10000:00/stream0.0.0","skip"],["stream.secure","pci10000:00/stream0.0.0","skip"]]' ]
	[ "$(field_of status hostbridge.tsm-link pci10001:02)" = "0 results" ]
	has hostbridge.pool pci10001:02 pass "4 available, 0 in use"
}

@test "devsec-proposed connected at boot (static): every check passes but the rig's root ports" {
	ROOT=$(static_tree audit-devsec-connected)
	audit_json --strict
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = "$RIG_SKIPS" ]
	has hostbridge.tsm-link pci10001:02 pass "tsm0/pci10001:02"
}

@test "generic TSM with VFs: RID association covers the VFs, VFs name their PF's DSM" {
	ROOT=$(static_tree audit-generic)
	audit_json
	[ "$status" -eq 0 ]
	has stream.rid pci0000:40/stream0.0.0 pass "root port 4100-4102 covers 0000:41:00.0 and its VFs; endpoint 4009-4009 covers 0000:40:01.1"
	has device.dsm 0000:41:00.2 pass "managed by 0000:41:00.0 (a VF of its slot)"
	# a VF's Vendor ID reads ffff by design (SR-IOV 3.4.1.1): the rest is decoded
	has config.malformed 0000:41:00.1 pass "4096 bytes, well-formed"
}

# ---- each check made to fail, warn or need root ----

@test "platform.tsm-class: no /sys/class/tsm fails; everything below is skipped" {
	ROOT=$(static_tree no-tsm)
	audit_json
	[ "$status" -eq 1 ]
	has platform.tsm-class platform fail "$ROOT/sys/class/tsm does not exist"
	has platform.tsm-present platform skip "parent check platform.tsm-class failed"
	[[ "$(field_of hint platform.tsm-class platform)" == *"CONFIG_PCI_TSM"*"ccp (AMD SEV-TIO)"*"tdx_host (Intel TDX Connect)"* ]]
	json_is '.summary | [.fail, .skip]' '[1,1]'
}

@test "platform.tsm-present: the class without a TSM fails; the hint says ccp is loaded" {
	edit_tree sev-tio
	rm "$ROOT/sys/class/tsm/tsm0"
	audit_json
	[ "$status" -eq 1 ]
	has platform.tsm-class platform pass
	has platform.tsm-present platform fail "no tsmN in $ROOT/sys/class/tsm"
	[[ "$(field_of hint platform.tsm-present platform)" == *"ccp (AMD SEV-TIO): loaded"* ]]
	has device.connected 0000:41:00.0 skip "parent check platform.tsm-present failed"
	has stream.link pci0000:40/stream0.0.0 skip
	has stream.secure pci0000:40/stream0.0.0 skip
}

@test "platform.tsm-mode: a pci_mode of 'none' fails for that TSM only" {
	edit_tree audit-devsec-connected
	printf 'none\n' >"$ROOT/sys/class/tsm/tsm0/pci_mode"
	audit_json
	[ "$status" -eq 1 ]
	has platform.tsm-mode tsm0 fail "pci_mode 'none': neither link nor devsec"
	has platform.tsm-mode tsm1 pass "pci_mode devsec"
	[ "$(non_passing_off_rig)" = '[["platform.tsm-mode","tsm0","fail"]]' ]
}

@test "device.connected: warns for a TEE device; --strict and --require-connected fail it" {
	ROOT=$(static_tree sev-tio)
	audit_json
	[ "$status" -eq 0 ]
	has device.connected 0000:81:00.0 warn "TEE-IO capable (DEVCAP.TEE) but not connected to a TSM"
	[ "$(field_of hint device.connected 0000:81:00.0)" = "connect it: tsmctl connect 0000:81:00.0 tsm0" ]
	audit_json --strict
	[ "$status" -eq 1 ]
	has device.connected 0000:81:00.0 fail "TEE-IO capable"
	audit_json --require-connected 81:00.0
	[ "$status" -eq 1 ]
	has device.connected 0000:81:00.0 fail "not connected (required by --require-connected)"
	audit_json --require-connected all
	[ "$status" -eq 1 ]
	has device.connected 0000:81:00.0 fail "required by --require-connected"
	has device.connected 0000:41:00.0 pass
	audit_json --require-connected 0000:41:00.0
	[ "$status" -eq 0 ]
	# a required device that cannot connect at all
	audit_json --require-connected 82:00.0,41:00.0
	[ "$status" -eq 1 ]
	has device.connected 0000:82:00.0 fail "required to be connected, but has no tsm/connect"
	# a required device that does not exist: said so, not "has no tsm/connect"
	audit_json --require-connected 99:00.0
	[ "$status" -eq 1 ]
	has device.connected 0000:99:00.0 fail "required to be connected, but there is no such PCI device"
	[ "$(field_of hint device.connected 0000:99:00.0)" = "check the address: --require-connected names a device this host does not have (see 'tsmctl devices --all')" ]
}

@test "device.connected: connected to a TSM that is not registered fails; its stream check skips" {
	edit_tree sev-tio
	printf 'tsm7\n' >"$(dev 0000:41:00.0)/tsm/connect"
	printf 'tsm7\n' >"$(dev 0000:41:00.0)/authenticated"
	audit_json
	[ "$status" -eq 1 ]
	has device.connected 0000:41:00.0 fail "connected to tsm7, which is not registered"
	has device.has-stream 0000:41:00.0 skip "parent check device.connected failed"
	has stream.connected pci0000:40/stream0.0.0 fail "connected to tsm7, which is not registered"
}

@test "device.authenticated: disagreeing with tsm/connect fails; native 1/0 is accepted" {
	edit_tree sev-tio
	# what a reader sees when a disconnect lands between the two reads
	printf '\n' >"$(dev 0000:41:00.0)/authenticated"
	audit_json
	[ "$status" -eq 1 ]
	has device.authenticated 0000:41:00.0 fail "authenticated reads '' but tsm/connect reads 'tsm0'"
	[ "$(non_passing)" = '[["device.connected","0000:81:00.0","warn"],["device.authenticated","0000:41:00.0","fail"]]' ]
	printf '1\n' >"$(dev 0000:41:00.0)/authenticated"
	printf '0\n' >"$(dev 0000:81:00.0)/authenticated"
	audit_json
	[ "$status" -eq 0 ]
	has device.authenticated 0000:41:00.0 pass "native CMA-SPDM flavour: authenticated 1"
	has device.authenticated 0000:81:00.0 pass "native CMA-SPDM flavour: authenticated 0"
}

@test "device.dsm: a dependent function naming another slot's DSM fails" {
	edit_tree audit-devsec-connected
	printf '10001:03:00.0\n' >"$(dev 10000:01:00.1)/tsm/dsm"
	audit_json
	[ "$status" -eq 1 ]
	has device.dsm 10000:01:00.1 fail "tsm/dsm names 10001:03:00.0, which is neither function 0 of its slot nor an upstream port above it"
	has device.dsm 10000:01:00.0 pass "connected DSM; tsm/dsm names itself"
	has device.dsm 10001:03:00.1 pass
	[ "$(non_passing_off_rig)" = '[["device.dsm","10000:01:00.1","fail"]]' ]
}

@test "device.has-stream: a connected endpoint without a stream link warns" {
	edit_tree sev-tio
	rm "$ROOT/sys/devices/pci0000:40/stream0.0.0"
	audit_json
	[ "$status" -eq 0 ]
	has device.has-stream 0000:41:00.0 warn "connected to tsm0 but no stream link: link encryption not established"
	# the blocks it left enabled are now untracked
	has ide.untracked 0000:41:00.0 warn "enabled with no stream link: Selective block 0 (Stream ID 0, secure)"
	has ide.untracked 0000:40:01.1 warn "Selective block 0"
	audit_json --strict
	[ "$status" -eq 1 ]
	has device.has-stream 0000:41:00.0 fail
}

@test "broken: stream.link fails for the dangling link and its stream checks skip" {
	ROOT=$(static_tree broken)
	audit_json
	[ "$status" -eq 1 ]
	has stream.link pci0000:40/stream3.2.0 fail "target 0000:44:00.0 does not exist"
	for id in stream.connected stream.enabled stream.secure stream.ide-fail stream.id stream.rid; do
		has "$id" pci0000:40/stream3.2.0 skip "parent check stream.link failed"
	done
	has stream.link pci0000:40/stream0.0.0 pass
	has stream.link pci0000:40/stream1.1.0 pass "R 1 < 4, E 0 < 2"
}

@test "broken: stream.secure fails for the insecure root port partner of stream0.0.0" {
	ROOT=$(static_tree broken)
	audit_json
	has stream.secure pci0000:40/stream0.0.0 fail "root port 0000:40:01.1 block 0 INSECURE (status 0x00000000)"
	has stream.secure pci0000:40/stream1.1.0 pass "both partners SECURE"
	has stream.enabled pci0000:40/stream0.0.0 pass
	[[ "$(field_of hint stream.secure pci0000:40/stream0.0.0)" == *"like link-down"* ]]
}

@test "broken: stream.ide-fail fails for the endpoint of stream1.1.0" {
	ROOT=$(static_tree broken)
	audit_json
	has stream.ide-fail pci0000:40/stream1.1.0 fail "endpoint 0000:42:00.0 block 0 received an IDE Fail message (status 0x80000002)"
	has stream.ide-fail pci0000:40/stream0.0.0 pass
}

@test "broken: ide.untracked warns for the enabled block of 0000:43:00.0 only" {
	ROOT=$(static_tree broken)
	audit_json
	[ "$status" -eq 1 ]
	has ide.untracked 0000:43:00.0 warn "enabled with no stream link: Selective block 0 (Stream ID 7, secure)"
	[ "$(printf '%s' "$output" | jq -c '[.checks[] | select(.id == "ide.untracked" and .status != "pass") | .object]')" = '["0000:43:00.0"]' ]
	has ide.untracked 0000:40:05.1 pass
	has ide.untracked 0000:42:00.0 pass "1 enabled Selective block, named by a stream link"
	json_is '.summary | [.fail, .warn, .skip]' '[3,2,8]'	# 2: device.evidence, no trust store
}

@test "stream.connected: a stale link to an unconnected endpoint fails" {
	ROOT=$(static_tree audit-stale-link)
	audit_json
	[ "$status" -eq 1 ]
	has stream.link pci0000:40/stream1.0.0 pass "-> 0000:41:00.0 via 0000:40:01.1"
	has stream.connected pci0000:40/stream1.0.0 fail "endpoint 0000:41:00.0 is not connected to a TSM: stale stream link"
	has stream.enabled pci0000:40/stream1.0.0 fail "disabled"
}

@test "live fault: the root port stays INSECURE; stream.secure and stream.enabled fail for that stream only" {
	mount_live audit-live-insecure
	echo tsm0 >"$(dev 0000:41:00.0)/tsm/connect"
	echo tsm0 >"$(dev 0000:42:00.0)/tsm/connect"
	audit_json
	[ "$status" -eq 1 ]
	has stream.secure pci0000:40/stream0.0.0 fail "root port 0000:40:01.1 block 0 INSECURE"
	has stream.enabled pci0000:40/stream0.0.0 fail "endpoint 0000:41:00.0 block 0 disabled"
	has stream.secure pci0000:40/stream1.0.0 pass "both partners SECURE"
	has stream.enabled pci0000:40/stream1.0.0 pass
	[ "$(non_passing)" = '[["stream.enabled","pci0000:40/stream0.0.0","fail"],["stream.secure","pci0000:40/stream0.0.0","fail"]]' ]
	# after a disconnect the fault is gone with the stream
	echo tsm0 >"$(dev 0000:41:00.0)/tsm/disconnect"
	audit_json
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = '[["device.connected","0000:41:00.0","warn"]]' ]
}

@test "stream.id: an endpoint Stream ID changed behind the kernel's back fails" {
	edit_tree sev-tio
	cfg=$(dev 0000:41:00.0)/config
	blk=$(sel_block "$cfg" 0)
	[ "$(cfg_word "$cfg" $((blk + 4)))" = 0x00c00001 ]
	poke32 "$cfg" $((blk + 4)) 0x05c00001	# what setpci on the endpoint would leave
	audit_json
	[ "$status" -eq 1 ]
	has stream.id pci0000:40/stream0.0.0 fail "Stream ID 5 in endpoint 0000:41:00.0, 0 in root port 0000:40:01.1"
	has stream.enabled pci0000:40/stream0.0.0 pass
	has stream.secure pci0000:40/stream0.0.0 pass
}

@test "stream.rid: a root port RID association that misses the VFs fails" {
	edit_tree audit-generic
	cfg=$ROOT/sys/devices/pci0000:40/0000:40:01.1/config
	blk=$(sel_block "$cfg" 0)
	[ "$(cfg_word "$cfg" $((blk + 12)))" = 0x00410200 ]	# RID limit 4102
	poke32 "$cfg" $((blk + 12)) 0x00410000			# limit 4100: PF only
	audit_json
	has stream.rid pci0000:40/stream0.0.0 fail "root port 0000:40:01.1 RID 4100-4100 does not cover the VFs of 0000:41:00.0 (4101-4102)"
	# and an endpoint association that is not valid
	cfg=$(dev 0000:41:00.0)/config
	blk=$(sel_block "$cfg" 0)
	poke32 "$cfg" $((blk + 16)) $(($(cfg_word "$cfg" $((blk + 16))) & ~1))
	audit_json
	[ "$status" -eq 1 ]
	has stream.rid pci0000:40/stream0.0.0 fail "endpoint 0000:41:00.0 RID association not valid"
}

@test "hostbridge.pool: an exhausted pool warns; stream links without the attribute fail" {
	ROOT=$(static_tree audit-generic)
	audit_json
	[ "$status" -eq 0 ]
	has hostbridge.pool pci0000:40 warn "0 available, 1 in use: pool exhausted"
	[ "$(non_passing)" = '[["hostbridge.pool","pci0000:40","warn"]]' ]
	audit_json --strict
	[ "$status" -eq 1 ]
	# a kernel without "PCI/IDE: Report available IDE streams"
	edit_tree sev-tio
	rm "$ROOT/sys/devices/pci0000:40/available_secure_streams"
	audit_json
	[ "$status" -eq 1 ]
	has hostbridge.pool pci0000:40 fail "1 stream link but no available_secure_streams"
	has stream.link pci0000:40/stream0.0.0 pass "pool size unknown"
}

@test "hostbridge.tsm-link: a host bridge with streams but no tsmN link fails" {
	edit_tree audit-devsec-connected
	rm "$ROOT/sys/class/tsm/tsm0/pci10001:02"
	audit_json
	[ "$status" -eq 1 ]
	has hostbridge.tsm-link pci10001:02 fail "tsm0 has stream0.0.0 here but no tsm0/pci10001:02 link"
	has hostbridge.tsm-link pci10000:00 pass
	[ "$(non_passing_off_rig)" = '[["hostbridge.tsm-link","pci10001:02","fail"]]' ]
}

@test "config.malformed: a function reading all ones fails; its IDE check is skipped" {
	edit_tree sev-tio
	head -c 4096 /dev/zero | tr '\0' '\377' >"$(dev 0000:81:00.0)/config"
	audit_json
	[ "$status" -eq 1 ]
	has config.malformed 0000:81:00.0 fail "reads all ones (device not responding)"
	[ "$(field_of status ide.untracked 0000:81:00.0)" = "0 results" ]
	has device.connected 0000:81:00.0 warn "TEE-IO capability unknown"
	has config.malformed 0000:41:00.0 pass "4096 bytes, well-formed, IDE capability decoded"
}

@test "not root (live): needs-root once, up front; nothing fails; root sees the same tree pass" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	mount_live sev-tio
	open_path_to_root
	as_nobody -J
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	json_is '[.checks[] | select(.status == "needs-root") | .id]' '["platform.config-access"]'
	json_is '.checks[0] | [.id, .status]' '["platform.config-access","needs-root"]'
	json_is '.summary | [.fail, .warn, .needs_root]' '[0,0,1]'
	has platform.config-access platform needs-root "limited to the 64-byte header"
	has stream.secure pci0000:40/stream0.0.0 skip "(needs root, see platform.config-access)"
	has stream.connected pci0000:40/stream0.0.0 pass "endpoint 0000:41:00.0 connected to tsm0"
	has device.connected 0000:81:00.0 skip "DEVCAP.TEE unreadable (needs root"
	has ide.untracked 0000:40:01.1 skip "needs root"
	has device.authenticated 0000:41:00.0 pass
	as_nobody --strict
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "needs-root "*"platform.config-access"* ]]
	# --short: a check's needs-root results are one line, not one per function
	as_nobody --short
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c ' config\.malformed ')" -eq 1 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c ' ide\.untracked ')" -eq 1 ]
	[[ " ${lines[*]} " == *" config.malformed       6 functions             unreadable without root (see platform.config-access): 0000:00:07.1, 0000:40:01.1, 0000:41:00.0 and 3 more ('tsmctl audit' without --short lists each) "* ]]
	# one needs-root result of a check stays as it is, with its own words
	[ "$(printf '%s\n' "${lines[@]}" | grep -c ' device\.connected .*DEVCAP.TEE unreadable')" -eq 1 ]
	# the summary still counts each result
	[[ "${lines[-1]}" == *" results: "*", 1 needs-root" ]]
	# the full tree and -J keep each
	as_nobody
	[ "$(printf '%s\n' "${lines[@]}" | grep -c 'only the 64-byte header is readable')" -eq 6 ]
	as_nobody --short -J
	json_is '[.checks[] | select(.id == "config.malformed")] | length' 6
	# the same mount as root: the skipped checks run and pass
	audit_json
	[ "$status" -eq 0 ]
	has stream.secure pci0000:40/stream0.0.0 pass
	has platform.config-access platform pass
}

@test "not root (static, config mode 000): needs-root, not fail, for what it cannot read" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	edit_tree broken
	open_path_to_root
	find "$ROOT/sys/devices" -name config -exec chmod 000 {} +
	as_nobody -J
	# what needs no config still fails: the dangling link; nothing else does
	[ "$status" -eq 1 ]
	json_is '[.checks[] | select(.status == "fail") | [.id, .object]]' '[["stream.link","pci0000:40/stream3.2.0"]]'
	has platform.config-access platform needs-root "7 of 7 functions"
	has stream.ide-fail pci0000:40/stream1.1.0 skip "needs root"
	has config.malformed 0000:43:00.0 skip "config unreadable (EACCES) (needs root"
	# what root sees in the same tree
	audit_json
	[ "$status" -eq 1 ]
	has stream.ide-fail pci0000:40/stream1.1.0 fail
}

# ---- output modes ----

@test "default output: a tree of checks, one line per result, then the summary" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t audit
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 39 ]
	[ "${lines[38]}" = "38 results: 36 pass, 1 warn, 0 fail, 1 skip, 0 needs-root" ]
	[[ "${lines[0]}" =~ ^pass\ +platform\.config-access\ +platform\ +config\ space\ of\ 6\ functions\ fully\ readable$ ]]
	[[ "${lines[1]}" =~ ^pass\ +platform\.pci-devices\ +platform ]]
	[[ "${lines[2]}" =~ ^pass\ +platform\.tsm-class\ +platform ]]
	# children are indented below their parent
	col() { local l=$1; l=${l#* }; l=${l%%[a-z]*}; echo ${#l}; }
	present=$(printf '%s\n' "${lines[@]}" | grep -m1 'platform.tsm-present')
	mode=$(printf '%s\n' "${lines[@]}" | grep -m1 'platform.tsm-mode')
	has_stream=$(printf '%s\n' "${lines[@]}" | grep -m1 'device.has-stream')
	[ "$(col "$present")" -lt "$(col "$mode")" ]
	[ "$(col "$mode")" -lt "$(col "$has_stream")" ]
	warn=$(printf '%s\n' "${lines[@]}" | grep '^warn')
	[[ "$warn" == *"0000:81:00.0"*"TEE-IO capable (DEVCAP.TEE) but not connected to a TSM" ]]
	for id in "${HOST_IDS[@]}"; do
		[[ "$output" == *"$id"* ]] || { echo "no $id"; return 1; }
	done
}

@test "--short: only what did not pass, then the summary" {
	ROOT=$(static_tree broken)
	run --separate-stderr t audit --short
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 14 ]
	[ "${lines[13]}" = "59 results: 46 pass, 2 warn, 3 fail, 8 skip, 0 needs-root" ]
	if printf '%s\n' "${lines[@]:0:13}" | grep -q '^pass'; then false; fi
	[[ "${lines[*]}" == *"fail"*"stream.link"*"pci0000:40/stream3.2.0"*"target 0000:44:00.0 does not exist"* ]]
	ROOT=$(static_tree audit-devsec-connected)
	run --separate-stderr t audit --short
	[ "$status" -eq 0 ]
	# the connected DSMs' and their dependents' device.evidence skips (a built tree is no
	# kernel's, and holds no saved evidence) and the rig's root ports (never enabled by the
	# sample), nothing else
	[ "${#lines[@]}" -eq 9 ]
	[[ "${lines[0]}" == "skip       device.evidence 10000:01:00.0            no evidence of 10000:01:00.0 is saved in this tree "* ]]
	[[ "${lines[1]}" == "skip       device.evidence 10000:01:00.1            judged through its DSM 10000:01:00.0: "* ]]
	[[ "${lines[2]}" == "skip       device.evidence 10001:03:00.0 "* ]]
	[[ "${lines[4]}" == "skip       stream.enabled  pci10000:00/stream0.0.0  root port 10000:00:00.0 block 0 disabled (control 0x00800000): the devsec sample's emulated root port"* ]]
	[[ "${lines[7]}" == "skip       stream.secure   pci10001:02/stream0.0.0  root port 10001:02:00.0 block 0 INSECURE"* ]]
	[ "${lines[8]}" = "54 results: 46 pass, 0 warn, 0 fail, 8 skip, 0 needs-root" ]
}

@test "--verbose: each check's description and the hints" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t audit -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"hint: connect it: tsmctl connect 0000:81:00.0 tsm0"* ]]
	run --separate-stderr t audit --list-checks -J
	for id in "${HOST_IDS[@]}"; do
		desc=$(printf '%s' "$output" | jq -r --arg id "$id" '.checks[] | select(.id == $id) | .description')
		[ -n "$desc" ]
		run --separate-stderr t audit -v
		[[ "$output" == *"about: $desc"* ]] || { echo "no description of $id"; return 1; }
		run --separate-stderr t audit --list-checks -J
	done
	run --separate-stderr t audit --short -v
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[1]}" == *"hint: connect it: tsmctl connect 0000:81:00.0 tsm0" ]]
	[[ "${lines[2]}" == "skip       device.evidence  0000:41:00.0  "* && "${lines[3]}" == *"hint: "* ]]
}

@test "-J: the schema, summary agreeing with the results" {
	ROOT=$(static_tree broken)
	audit_json
	[ "$status" -eq 1 ]
	json_is 'keys' '["checks","schema_version","summary"]'
	json_is '.schema_version' 1
	json_is '[.checks[] | keys] | unique' '[["category","hint","id","message","object","parent","status"]]'
	json_is '.summary | keys' '["fail","needs_root","pass","skip","total","warn"]'
	json_is '[.checks[].status] | unique' '["fail","pass","skip","warn"]'
	json_is '.summary.total == (.checks | length)' true
	json_is '.summary.fail == ([.checks[] | select(.status == "fail")] | length)' true
	json_is '[.checks[] | select(.status == "pass") | .hint] | unique' '[null]'
	json_is '[.checks[] | select(.status != "pass") | .hint | type] | unique' '["string"]'
	json_is '[.checks[] | select(.id == "stream.secure")][0] | [.category, .parent]' '["stream","stream.link"]'
	json_is '[.checks[] | select(.id == "platform.tsm-class")][0].parent' null
	audit_json --short
	json_is '.summary.total' 59
	json_is '.checks | length' 13
}

@test "--list-checks: the table, in evaluation order, parents first" {
	run --separate-stderr "$TSMCTL" audit --list-checks -J
	[ "$status" -eq 0 ]
	json_is '[.checks[].id]' "$(printf '%s\n' "${IDS[@]}" | jq -R . | jq -sc .)"
	json_is '[.checks as $c | $c | to_entries[] | select(.value.parent != null) | (.value.parent as $p | [$c[] | .id] | index($p)) < .key] | all' true
	run "$TSMCTL" audit --list-checks
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "${#IDS[@]}" ]
	[[ "${lines[12]}" == "stream.connected"*"stream"*"stream.link"*"The stream's endpoint is connected to a registered TSM." ]]
}

@test "man page: scdoc builds it; one section per check id, holding the check's description" {
	command -v scdoc >/dev/null || skip "scdoc not installed"
	page=$TOP/man/tsmctl-audit.8.scd
	scdoc <"$page" >/dev/null
	run --separate-stderr "$TSMCTL" audit --list-checks -J
	ids=$(printf '%s' "$output" | jq -r '.checks[].id')
	[ "$(sed -n 's/^## //p' "$page")" = "$ids" ]
	for id in $ids; do
		desc=$(printf '%s' "$output" | jq -r --arg id "$id" '.checks[] | select(.id == $id) | .description')
		section=$(awk -v id="$id" '/^#/ { on = ($0 == "## " id); next } on' "$page" | tr '\n' ' ' | tr -s ' ')
		[[ "$section" == *"$desc"* ]] || { echo "$id: '$desc' not in its section"; return 1; }
	done
}

# ---- filters and exit status ----

@test "-d: only results about that device (and the platform); exit status follows" {
	ROOT=$(static_tree sev-tio)
	audit_json -d 81:00.0
	[ "$status" -eq 0 ]
	json_is '[.checks[].object] | unique' '["0000:81:00.0","platform"]'
	json_is '[.checks[] | select(.object == "0000:81:00.0") | .id]' '["device.connected","device.authenticated","device.dsm","config.malformed","ide.untracked"]'
	audit_json -d 81:00.0 --strict
	[ "$status" -eq 1 ]
	audit_json -d 41:00.0 --strict
	[ "$status" -eq 0 ]
	# a stream is about both partners
	json_is '[.checks[] | select(.id == "stream.secure") | .object]' '["pci0000:40/stream0.0.0"]'
	audit_json -d 40:01.1
	json_is '[.checks[] | select(.id == "stream.secure") | .object]' '["pci0000:40/stream0.0.0"]'
	json_is '[.checks[] | select(.id | startswith("device.")) ] | length' 0
}

@test "-b and -t: per host bridge and per TSM; filters combine with AND" {
	ROOT=$(static_tree sev-tio)
	audit_json -b pci0000:40 --strict
	[ "$status" -eq 0 ]
	json_is '[.checks[] | select(.id == "hostbridge.pool") | .object]' '["pci0000:40"]'
	json_is '[.checks[].object] | map(select(startswith("0000:81"))) | length' 0
	audit_json -b pci0000:80 --strict
	[ "$status" -eq 1 ]
	has device.connected 0000:81:00.0 fail
	audit_json -t tsm0
	[ "$status" -eq 0 ]
	json_is '[.checks[] | select(.id == "device.connected") | .object]' '["0000:41:00.0"]'
	json_is '[.checks[] | select(.id == "platform.tsm-mode") | .object]' '["tsm0"]'
	audit_json -t tsm0 -b pci0000:80
	json_is '[.checks[] | select(.object != "platform")] | length' 0
	audit_json -d 41:00.0,81:00.0 -b pci0000:80
	json_is '[.checks[] | select(.id == "device.connected") | .object]' '["0000:81:00.0"]'
	ROOT=$(static_tree broken)
	audit_json -d 43:00.0
	[ "$status" -eq 0 ]
	[ "$(non_passing)" = '[["device.connected","0000:43:00.0","warn"],["ide.untracked","0000:43:00.0","warn"]]' ]
	audit_json -d 42:00.0
	[ "$status" -eq 1 ]
	[ "$(non_passing)" = '[["stream.ide-fail","pci0000:40/stream1.1.0","fail"]]' ]
}

@test "filters naming nothing fail; bad values and options are usage errors (exit 2)" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t audit -d 99:00.0
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl audit: 0000:99:00.0: no such PCI device" ]
	run --separate-stderr t audit -t tsm9
	[ "$status" -eq 1 ]
	run --separate-stderr t audit -d 41:0g
	[ "$status" -eq 2 ]
	run --separate-stderr t audit -b pci40
	[ "$status" -eq 2 ]
	run --separate-stderr t audit --require-connected 41-00
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"invalid PCI address '41-00' in --require-connected"* ]]
	run --separate-stderr t audit --no-such-option
	[ "$status" -eq 2 ]
	run --separate-stderr t audit extra
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"extra operand 'extra': audit takes no operands"* ]]
	run --separate-stderr t audit -o NAME
	[ "$status" -eq 2 ]
	run t audit --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--require-connected LIST"*"--list-checks"* ]]
	[[ "$output" == *"For more details see tsmctl-audit(8)." ]]
}

@test "exit status: 0 with warnings, 1 on failure, --strict makes warnings fail" {
	ROOT=$(static_tree sev-tio)
	run t audit
	[ "$status" -eq 0 ]
	run t audit --strict
	[ "$status" -eq 1 ]
	run t audit --short --strict
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "fail "*"device.connected"* ]]
	ROOT=$(static_tree broken)
	run t audit
	[ "$status" -eq 1 ]
	ROOT=$(static_tree audit-devsec-connected)
	run t audit --strict --require-connected all
	[ "$status" -eq 0 ]
}

@test "device.connected: a device no TSM can connect is skip with the reason, not warn (--strict can pass)" {
	ROOT=$(static_tree connect-sev-tio)
	audit_json -d 41:00.0,46:00.0,42:00.0
	has device.connected 0000:41:00.0 skip "but its DOE mailbox has no CMA/SPDM (doe_features lacks 0001:01): no TSM can connect it"
	has device.connected 0000:46:00.0 skip "but it has no DOE mailbox (no doe_features): no TSM can connect it"
	[[ "$(field_of hint device.connected 0000:41:00.0)" != *"tsmctl connect"* ]]
	# CMA without secure SPDM: SEV-TIO, the only link TSM here, fails it (EFAULT)
	has device.connected 0000:42:00.0 skip "lacks secure SPDM (doe_features lacks 0001:02), which SEV-TIO (tsm0) requires"
	[[ "$(field_of hint device.connected 0000:42:00.0)" != *"tsmctl connect"* ]]
	run --separate-stderr t audit --short --strict -d 41:00.0,46:00.0,42:00.0
	expect_status 0
	# a host bridge the platform gave no stream pool (TDX Connect without a KEYP entry)
	jq '.host_bridges[3].streams = 0' "$TOPO/connect-sev-tio.json" > "$BATS_TEST_TMPDIR/nopool.json"
	ROOT=$BATS_TEST_TMPDIR/nopool
	"$SIM" build "$BATS_TEST_TMPDIR/nopool.json" "$ROOT" >/dev/null
	[ ! -e "$ROOT/sys/devices/pci0000:80/available_secure_streams" ]
	audit_json -d 81:00.0
	[ "$status" -eq 0 ]
	has device.connected 0000:81:00.0 skip "but its host bridge pci0000:80 has no IDE stream pool (no available_secure_streams)"
	run --separate-stderr t audit --short --strict -d 81:00.0
	expect_status 0
	# doe_features unknown (no doe_features/ although config shows a DOE mailbox): nothing ruled out
	edit_tree connect-sev-tio
	rm -r "$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/doe_features"
	audit_json -d 41:00.0
	has device.connected 0000:41:00.0 warn
}

# ---- stream links that are no stream of their own ----

@test "a stray second link to a stream's blocks never silences its IDE_FAIL or INSECURE; it fails on its own" {
	edit_tree broken
	ln -s 0000:40:03.1/0000:42:00.0 "$ROOT/sys/devices/pci0000:40/stream9.1.0"
	audit_json
	expect_status 1
	# the real stream keeps its own results; the stray is named as such
	has stream.link pci0000:40/stream1.1.0 pass
	has stream.ide-fail pci0000:40/stream1.1.0 fail "endpoint 0000:42:00.0 block 0 received an IDE Fail message"
	has stream.link pci0000:40/stream9.1.0 fail \
		"stray link: root port 0000:40:03.1 block 1 and endpoint 0000:42:00.0 block 0 belong to stream1.1.0"
	has stream.ide-fail pci0000:40/stream9.1.0 skip "parent check stream.link failed"
	has stream.secure pci0000:40/stream0.0.0 fail "root port 0000:40:01.1 block 0 INSECURE"
	json_is '[.checks[] | select(.id == "stream.ide-fail" and .status == "fail")] | length' 1
	run --separate-stderr t audit
	[ "$(grep -c 'IDE Fail' <<<"$output")" -eq 1 ]
	# the alert stays on, and counts each stream once
	run --separate-stderr t metrics
	expect_status 0
	printf '%s\n' "$output" | "$TOP/tests/lib/promtext-check"
	grep -qx 'tsmctl_audit_check_status{check="stream.ide-fail",status="fail"} 1' <<<"$output"
	grep -qx 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"} 1' <<<"$output"
	# stream1.1.0 is SECURE with IDE_FAIL: ide-fail, never secure, as streams --state says
	grep -qx 'tsmctl_streams{host_bridge="pci0000:40",state="secure"} 0' <<<"$output"
	grep -qx 'tsmctl_streams{host_bridge="pci0000:40",state="ide-fail"} 1' <<<"$output"
	# the view shows the stray for what it is
	run --separate-stderr t streams -J
	json_is '[.streams[] | select(.name == "stream9.1.0") | [.duplicate_of, .endpoint.summary, .root_port.summary]]' \
		'[["stream1.1.0","duplicate","duplicate"]]'
	json_is '[.streams[] | select(.name == "stream1.1.0") | [.duplicate_of, .endpoint.summary]]' '[[null,"secure+ide-fail"]]'
}

@test "gen-large --faulty: every stream the views show insecure or with IDE_FAIL fails in audit" {
	"$SIM" gen-large --functions 400 --host-bridges 4 --streams 16 --faulty 4 "$BATS_TEST_TMPDIR/gl.json" >/dev/null
	ROOT=$BATS_TEST_TMPDIR/gl
	"$SIM" build "$BATS_TEST_TMPDIR/gl.json" "$ROOT" >/dev/null
	run --separate-stderr t streams -J
	bad_secure=$(jq -c '[.streams[] | select(.duplicate_of == null and .dangling == false) |
		select([.endpoint, .root_port] | any(.enabled != true or .state != "secure")) |
		"\(.host_bridge)/\(.name)"] | sort' <<<"$output")
	bad_fail=$(jq -c '[.streams[] | select(.duplicate_of == null and .dangling == false) |
		select(.endpoint.ide_fail or .root_port.ide_fail) | "\(.host_bridge)/\(.name)"] | sort' <<<"$output")
	[ "$bad_secure" != '[]' ]
	[ "$bad_fail" != '[]' ]
	audit_json
	json_is '[.checks[] | select(.id == "stream.secure" and .status == "fail") | .object] | sort' "$bad_secure"
	json_is '[.checks[] | select(.id == "stream.ide-fail" and .status == "fail") | .object] | sort' "$bad_fail"
}

@test "stream link names the kernel does not make, link loops, and dangling links each say what they are" {
	edit_tree broken
	hb=$ROOT/sys/devices/pci0000:40
	for n in stream256.0.0 stream01.0.0 stream1.0.0.0; do ln -s 0000:40:01.1/0000:41:00.0 "$hb/$n"; done
	ln -s stream7.7.7 "$hb/stream7.7.7"
	echo junk > "$hb/stream8.8.8"
	ln -s . "$hb/stream6.6.6"
	audit_json
	for n in stream256.0.0 stream01.0.0 stream1.0.0.0; do
		has stream.link "pci0000:40/$n" fail "malformed stream link name"
	done
	has stream.link pci0000:40/stream7.7.7 fail "the link loops"
	has stream.link pci0000:40/stream8.8.8 fail "stream8.8.8 is not a symbolic link"
	has stream.link pci0000:40/stream6.6.6 fail "target pci0000:40 is not a PCI function"
	has stream.link pci0000:40/stream3.2.0 fail "target 0000:44:00.0 does not exist"
	# no endpoint to disconnect: the hint does not say to
	[[ "$(field_of hint stream.link pci0000:40/stream3.2.0)" == "there is no endpoint to disconnect"* ]]
	[[ "$(field_of hint stream.link pci0000:40/stream7.7.7)" != *"disconnect"* ]]
	run --separate-stderr t streams -J
	json_is '[.streams[] | select(.dangling) | [.name, .link_error]]' \
		'[["stream3.2.0","missing"],["stream6.6.6","not-a-device"],["stream7.7.7","loop"],["stream8.8.8","not-a-link"]]'
	[[ "$stderr" == *"3 entries named stream* are no streamH.R.E name the kernel makes"* ]]
}

# ---- TSM-directory stream links: the flavour and the provider (ABI.md §1.1) ----

# A static tree of TOPOLOGY with its abi set to ABI and the devices of the jq list CONNECT connected.
build_variant() {
	ROOT=$BATS_TEST_TMPDIR/$1-$2
	jq --arg abi "$2" --argjson c "$3" '.abi = $abi |
		(.. | objects | select(.bdf? as $b | $b != null and ($c | has($b)))) |=
			(if $c[.bdf] == null then del(.connected) else .connected = $c[.bdf] end)' \
		"$TOPO/$1.json" >"$ROOT.json"
	"$SIM" build "$ROOT.json" "$ROOT" >/dev/null
}

@test "hostbridge.tsm-link follows the 6.19-rc1 flavour: tsmN/streamH.R.E, not tsmN/pciDDDD:BB" {
	build_variant audit-devsec-connected proposed-rc1 '{"10000:01:00.0":"tsm0","10001:03:00.0":null}'
	[ -L "$ROOT/sys/class/tsm/tsm0/stream0.0.0" ]
	[ ! -e "$ROOT/sys/class/tsm/tsm0/pci10000:00" ]
	audit_json
	has hostbridge.tsm-link pci10000:00 pass "tsm0/stream0.0.0 matches the streams here"
	# without the rc1 link the sample (which registers its streams) lacks either form
	rm "$ROOT/sys/class/tsm/tsm0/stream0.0.0"
	audit_json
	has hostbridge.tsm-link pci10000:00 fail "tsm0 has stream0.0.0 here but no tsm0/pci10000:00 link (nor the 6.19-rc1 form"
}

@test "hostbridge.tsm-link: SEV-TIO never makes tsmN/pciDDDD:BB, the devsec sample and TDX Connect do" {
	# sev-dev-tsm.c registers its streams with pci_ide_stream_register() alone
	build_variant sev-tio proposed '{}'
	echo link > "$ROOT/sys/class/tsm/tsm0/pci_mode"
	rm -f "$ROOT/sys/class/tsm/tsm0/pci0000:40"
	audit_json
	expect_status 0
	has hostbridge.tsm-link pci0000:40 pass "no tsm0/pci0000:40 link expected (ccp does not register its streams with the TSM)"
	# the sample calls tsm_ide_stream_register(): its link is expected
	build_variant audit-devsec-connected proposed '{}'
	rm "$ROOT/sys/class/tsm/tsm0/pci10001:02"
	audit_json
	has hostbridge.tsm-link pci10000:00 pass "tsm0/pci10000:00 matches"
	has hostbridge.tsm-link pci10001:02 fail "tsm0 has stream0.0.0 here but no tsm0/pci10001:02 link"
	# TDX Connect likewise
	build_variant tdx-connect proposed '{}'
	rm "$ROOT/sys/class/tsm/tsm0/pci0000:15"
	audit_json
	has hostbridge.tsm-link pci0000:15 fail "tsm0 has stream0.0.0 here but no tsm0/pci0000:15 link"
}

# connect-generic with two link TSMs of providers that link their streams (faux devsec_link_tsm,
# tdx_host), 0000:01:00.0 connected to tsm0 and 0000:03:00.0 to tsm1: both on pci0000:00.
shared_hb() {
	ROOT=$BATS_TEST_TMPDIR/shared
	jq '.abi = "proposed" |
		.tsms = [{"id": 0, "kind": "link", "provider": "generic", "parent": "faux:devsec_link_tsm"},
			 {"id": 1, "kind": "link", "provider": "generic", "parent": "faux:tdx_host"}] |
		(.. | objects | select(.bdf? == "0000:01:00.0")).connected = "tsm0" |
		(.. | objects | select(.bdf? == "0000:03:00.0")).connected = "tsm1"' \
		"$TOPO/connect-generic.json" >"$ROOT.json"
	"$SIM" build "$ROOT.json" "$ROOT" >/dev/null
	[ -L "$ROOT/sys/devices/pci0000:00/stream0.0.0" ]
	[ -L "$ROOT/sys/devices/pci0000:00/stream1.0.0" ]
	rm -f "$ROOT"/sys/class/tsm/tsm*/pci0000:00
}

# What every flavour must show of the shared host bridge: both TSMs, in every view and filter.
shared_hb_views() {
	run --separate-stderr t host-bridges -J -b pci0000:00
	json_is '.host_bridges[0].tsms' '["tsm0","tsm1"]'
	run --separate-stderr t host-bridges -n -r -o NAME,TSM -t tsm1
	[ "$output" = "pci0000:00 tsm0,tsm1" ]
	run --separate-stderr t list -J
	json_is '[.tsms[] | [.name, .host_bridges]]' '[["tsm0",["pci0000:00"]],["tsm1",["pci0000:00"]]]'
	audit_json -t tsm1
	has hostbridge.pool pci0000:00 pass "6 available, 2 in use"
}

@test "a host bridge two link TSMs share: each TSM's link (proposed), one link (staging), none (v6.19)" {
	shared_hb
	# one link per TSM, as the v2 posting counts them
	ln -s ../../../../pci0000:00 "$ROOT/sys/class/tsm/tsm0/pci0000:00"
	ln -s ../../../../pci0000:00 "$ROOT/sys/class/tsm/tsm1/pci0000:00"
	shared_hb_views
	audit_json
	has hostbridge.tsm-link pci0000:00 pass "tsm0/pci0000:00, tsm1/pci0000:00 match the streams here"
	# staging: tsm_ide_stream_register() keys its table by host bridge: tsm1 gets no link
	rm "$ROOT/sys/class/tsm/tsm1/pci0000:00"
	shared_hb_views
	audit_json
	has hostbridge.tsm-link pci0000:00 pass "tsm1's streams under tsm0/pci0000:00 (the staging kernel keeps one link per host bridge"
	# v6.19: no pci_mode, no links
	rm "$ROOT"/sys/class/tsm/tsm*/pci0000:00 "$ROOT"/sys/class/tsm/tsm*/pci_mode
	shared_hb_views
	audit_json
	has hostbridge.tsm-link pci0000:00 pass "v6.19 ABI"
}

# ---- what could not be read ----

@test "a device without its config file still exists: its config is unreadable, said once, nothing else claimed" {
	edit_tree sev-tio
	rm "$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/config"
	run --separate-stderr t streams -J
	expect_status 0
	json_is '.streams[0] | [.dangling, .link_error, .endpoint.bdf, .endpoint.summary, .root_port.summary]' \
		'[false,null,"0000:41:00.0","unreadable","secure"]'
	[ "$(grep -c 'could not be read' <<<"$stderr")" -eq 1 ]
	audit_json
	[[ "$output" != *"does not exist"* ]]
	has stream.link pci0000:40/stream0.0.0 fail "config space of 0000:41:00.0 unreadable"
	has config.malformed 0000:41:00.0 fail "config unreadable (ENOENT)"
	has ide.untracked 0000:40:01.1 pass "1 enabled Selective block, named by a stream link"
	run --separate-stderr t devices -J -d 41:00.0
	json_is '.devices[0] | [.vendor_id, .device_id, .config_access, .connected]' '[5555,4125,"unreadable","tsm0"]'
	[[ "$stderr" == *"config space of 1 function could not be read (No such file or directory)"* ]]
}

@test "audit -J with a filter that names nothing prints the empty document, as every view" {
	ROOT=$(static_tree broken)
	for f in "-d 99:00.0" "-t tsm9" "-b pci0009:00"; do
		# shellcheck disable=SC2086
		audit_json $f
		expect_status 1
		json_is '[.schema_version, .checks, .summary.total, .summary.fail]' '[1,[],0,0]'
		[[ "$stderr" == *": no such "* ]]
	done
}

@test "absent, unreadable and not a directory are told apart: sys/class/tsm and a function's tsm/" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	edit_tree sev-tio
	open_path_to_root
	chmod -R o+rX "$ROOT"
	# a function's tsm/ this user may not list, on a v6.19 tree (no tsm/lock there)
	chmod 000 "$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/tsm"
	as_nobody -J
	[[ "$output" != *"tsm/lock"* ]]
	json_is '[.checks[] | select(.id == "device.tdisp")]' '[]'
	has device.connected 0000:41:00.0 skip "tsm/ could not be read (EACCES)"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" devices
	[[ "${lines[0]}" != *LOCKED* ]]
	[[ "${lines[1]}" == "0000:41:00.0"*"(unreadable) (unreadable) (unreadable)" ]]
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" devices -J
	json_is '.devices[0] | [.connected, .read_errors]' '[null,{"tsm":"EACCES"}]'
	# sys/class/tsm itself unreadable: no claim that the kernel lacks TSM support
	chmod 000 "$ROOT/sys/class/tsm"
	as_nobody -J
	has platform.tsm-class platform fail "$ROOT/sys/class/tsm is not readable (EACCES)"
	[[ "$(field_of hint platform.tsm-class platform)" != *CONFIG_PCI_TSM* ]]
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" list
	[[ "$stderr" == *"is not readable (EACCES): whether a TSM is registered is unknown"* ]]
	[[ "$stderr" != *CONFIG_PCI_TSM* ]]
	# not a directory at all
	chmod 755 "$ROOT/sys/class/tsm"
	rm -r "$ROOT/sys/class/tsm"
	echo tsm0 > "$ROOT/sys/class/tsm"
	audit_json
	has platform.tsm-class platform fail "$ROOT/sys/class/tsm is not a directory (ENOTDIR)"
}

@test "a tree without sys/bus/pci/devices is no kernel's: platform.pci-devices fails" {
	edit_tree broken
	rm -r "$ROOT/sys/bus/pci/devices"
	audit_json
	expect_status 1
	has platform.pci-devices platform fail "$ROOT/sys/bus/pci/devices is missing (ENOENT)"
	for a in "" --all; do
		# shellcheck disable=SC2086
		run --separate-stderr t devices $a
		[ "$stderr" = "tsmctl devices: $ROOT/sys/bus/pci/devices is missing (ENOENT): no PCI function could be looked up" ]
	done
	ROOT=$(static_tree broken)
	audit_json
	has platform.pci-devices platform pass
}

@test "class/tsm entries that are no TSM are counted nowhere: a file, an empty dir, a loop, a dangling link" {
	edit_tree sev-tio
	cls=$ROOT/sys/class/tsm
	echo tsm0 > "$cls/tsm5"
	mkdir "$cls/tsm6"
	ln -s tsm7 "$cls/tsm7"
	ln -s ../../devices/nowhere/tsm8 "$cls/tsm8"
	audit_json
	expect_status 0
	has platform.tsm-present platform pass "1 TSM registered: tsm0"
	has platform.tsm-class platform warn "4 entries are no TSM: tsm5 is not a directory"
	json_is '[.checks[] | select(.id == "platform.tsm-mode") | .object]' '["tsm0"]'
	[[ "$output" != *"pci_mode exists"* ]]
	run --separate-stderr t list -J
	json_is '[.tsms[].name]' '["tsm0"]'
	[ "$stderr" = "tsmctl list: 4 entries of $ROOT/sys/class/tsm are no TSM, not listed: tsm5 is not a directory, ..." ]
	run --separate-stderr t wait --timeout 0 -J
	expect_status 0
	json_is '[.tsms[].name]' '["tsm0"]'
	for n in tsm5 tsm6 tsm7 tsm8; do
		run --separate-stderr t wait --timeout 0 "$n"
		expect_status 1
	done
}

@test "connectability, judged once: audit's hint, devices' note and connect --all agree (RCiEP, no secure SPDM)" {
	ROOT=$(static_tree tdx-connect)
	audit_json -d 6a:01.0
	has device.connected 0000:6a:01.0 skip "root complex integrated endpoint"
	[[ "$(field_of hint device.connected 0000:6a:01.0)" != *"tsmctl connect"* ]]
	run --separate-stderr t devices -d 6a:01.0
	[[ "$stderr" == *"0000:6a:01.0 cannot be connected: it is a root complex integrated endpoint"* ]]
	mount_live connect-sev-tio
	run --separate-stderr t connect --all tsm0 --dry-run -J
	expect_status 0
	json_is '[.results[].bdf] | map(select(. == "0000:41:00.0" or . == "0000:42:00.0" or . == "0000:46:00.0"))' '[]'
	[[ "$stderr" == *"--all leaves out 0000:42:00.0: its DOE mailbox lacks secure SPDM (doe_features lacks 0001:02), which SEV-TIO (tsm0) requires"* ]]
	audit_json -d 42:00.0
	has device.connected 0000:42:00.0 skip "lacks secure SPDM"
}

@test "audit -o/-n/-r/-P: a table of the results the tree shows, the same ids, objects and statuses as -J" {
	ROOT=$(static_tree broken)
	audit_json --short
	want=$(printf '%s' "$output" | jq -r '.checks[] | [.status, .id, .object] | join(" ")')
	run --separate-stderr t audit --short -n -r -o STATUS,CHECK,OBJECT
	[ "$status" -eq 1 ]
	[ "$output" = "$want" ]
	# every result without --short, and no summary line to parse around
	audit_json
	n=$(printf '%s' "$output" | jq '.checks | length')
	run --separate-stderr t audit -n -o CHECK
	[ "${#lines[@]}" -eq "$n" ]
	[[ "$output" != *"results:"* ]]
	# -P: KEY="value" pairs, -y shell names; -v adds HINT; --output-all every column
	run --separate-stderr t audit --short -P -o STATUS,CHECK,OBJECT -b pci0000:40
	[[ "${lines[0]}" == 'STATUS="'*'" CHECK="'*'" OBJECT="'* ]]
	run --separate-stderr t audit --short -v -n -r -o CHECK -d 43:00.0
	[ "$status" -eq 0 ]
	run --separate-stderr t audit --short -v -r -d 43:00.0
	[ "${lines[0]}" = "STATUS CHECK OBJECT MESSAGE HINT" ]
	run --separate-stderr t audit --short --output-all -r -d 43:00.0
	[ "${lines[0]}" = "STATUS CHECK CATEGORY PARENT OBJECT MESSAGE HINT DESCRIPTION" ]
	[[ "${lines[1]}" == "warn device.connected device platform.tsm-present 0000:43:00.0 "* ]]
	# the tree stays the default, with its summary
	run --separate-stderr t audit --short
	[[ "${lines[-1]}" == *" results: "*" fail, "* ]]
}

@test "audit -H lists its columns; -J takes no table option; a bad column is a usage error" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t audit -H
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | awk '{print $1}' | tr '\n' ' ')" = "STATUS CHECK CATEGORY PARENT OBJECT MESSAGE HINT DESCRIPTION " ]
	run --separate-stderr t audit -H -J
	json_is '[.columns[].name]' '["STATUS","CHECK","CATEGORY","PARENT","OBJECT","MESSAGE","HINT","DESCRIPTION"]'
	run --separate-stderr t audit -J -o STATUS
	[ "$status" -eq 2 ]
	run --separate-stderr t audit -o BOGUS
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl audit: --output: unknown column 'BOGUS'"$'\n'"Try 'tsmctl audit --help'." ]
	[[ "$("$TSMCTL" audit --help)" == *"Available output columns:"*"MESSAGE"* ]]
	[ "$("$TSMCTL" --list-cols audit | tr '\n' ' ')" = "STATUS CHECK CATEGORY PARENT OBJECT MESSAGE HINT DESCRIPTION " ]
}
