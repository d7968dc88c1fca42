#!/usr/bin/env bats
# The decision over evidence (src/evidence/gate/evidence-decision.c, tsmctl-evidence(8) THE
# DECISION), where it gates: accept --verify, evidence --verify's exit status,
# audit's device.evidence and --require-verified, metrics, captures and
# tsmctl-collect. Fail closed: a skip stops it unless its risk's own option
# was given, and proof (identity, the measurements' signature, the report)
# is required, never the mere absence of failures. Each gate is shown to
# refuse and, the evidence proven or its one risk taken by name, to accept;
# tests/unit/test-evidence-decision.c holds the rule to hand-built results.

load lib/helpers

CERTS=$TOP/tests/sim/certs
RISK_OPTS=(--allow-first-use --allow-unsigned-measurements --allow-no-reference --allow-replay
	   --allow-report-offsets)

setup() {
	[ -r "$CERTS/all-types.reference.json" ] || skip "make -C tests/sim builds the evidence objects"
	TRUST=$BATS_TEST_TMPDIR/trust
	EMPTY=$BATS_TEST_TMPDIR/empty
	mkdir -p "$TRUST" "$EMPTY"
	cp "$CERTS"/*.root.pem "$TRUST"/
}

teardown() {
	unmount_live
}

# mount_variant TOPO JQ: topology TOPO changed by the jq program JQ, mounted live in ROOT.
mount_variant() {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	jq "$2" "$TOPO/$1.json" > "$BATS_TEST_TMPDIR/variant.json"
	"$SIM" mount "$BATS_TEST_TMPDIR/variant.json" "$ROOT"
}

# tsmctl on ROOT with its simulated device-evidence family.
act() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" "$@"
}

ctl() {
	echo "$*" > "$ROOT/tsm-sim-control"
}

# "status: message" of check ID about OBJECT in the JSON of $output.
result_of() {
	printf '%s' "$output" | jq -r --arg id "$1" --arg obj "$2" \
		'[.checks[] | select(.id == $id and .object == $obj) | .status + ": " + .message] |
		 if length == 1 then .[0] else "\(length) results" end'
}

# ---- finding 1: the gate passed on skips ----

@test "accept --verify refuses a locked TDI whose eleven objects are all empty, trust store or not; evidence --verify exits 1" {
	mount_variant evidence-guest '.host_bridges[0].devices[0].evidence = {}'
	run --separate-stderr act accept --verify --trust "$TRUST" 00:05.0
	expect_status 1
	[[ "$stderr" == "tsmctl accept 0000:00:05.0: not accepted: evidence of generation 2 does not prove the device: evidence.decode evidence: every object is empty: there is nothing to verify; "* ]]
	[ "$output" = "0000:00:05.0: failed"$'\n'"accepted 0 of 1 device (1 failed)" ]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	# every option given: none of them takes "nothing at all"
	run --separate-stderr act accept --verify --trust "$TRUST" "${RISK_OPTS[@]}" 00:05.0
	expect_status 1
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	# nothing verified is never exit 0
	run --separate-stderr act evidence 00:05.0 --verify -J --trust "$TRUST" "${RISK_OPTS[@]}"
	expect_status 1
	json_is '[.summary.fail, .decision.verdict, .decision.accepted, .decision.verified]' '[0,"unproven",false,[]]'
	json_is '[.decision.refused[] | .check + " " + .object] | index("evidence.decode evidence") != null' true
}

@test "accept --verify refuses an expired chain without a trust store (it was 8 pass, 4 skip, accepted)" {
	mount_live evidence-guest
	for opts in "" "${RISK_OPTS[*]}"; do
		# shellcheck disable=SC2086 # the options, or none
		run --separate-stderr act accept --verify --trust "$EMPTY" $opts 00:06.0
		expect_status 1
		[[ "$stderr" == "tsmctl accept 0000:00:06.0: not accepted: evidence of generation "*" does not prove the device: evidence.chain cert0: no trust store: $EMPTY holds no certificate"* ]]
		[ "$(cat "$(dev 0000:00:06.0)/tsm/accept")" = 0 ]
	done
	# with a store, the expiry itself is said
	run --separate-stderr act accept --verify --trust "$TRUST" 00:06.0
	expect_status 1
	[[ "$stderr" == *"does not verify: evidence.chain cert0: certificate has expired (certificate CN=tsm-sim expired device)" ]]
	run --separate-stderr act evidence 00:06.0 --verify --trust "$EMPTY"
	expect_status 1
}

@test "accept --verify refuses a device with no certificate slot: nothing proves whose it is" {
	mount_variant evidence-guest '.host_bridges[0].devices[0].evidence |= del(.certs)'
	run --separate-stderr act accept --verify --trust "$TRUST" 00:05.0
	expect_status 1
	# without a certificate the device has no key: its unsigned measurements are the failure said
	[[ "$stderr" == *"not accepted: evidence of generation 2 does not verify: evidence.signature measurements: the measurements are unsigned"* ]]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	run --separate-stderr act accept --verify --trust "$TRUST" "${RISK_OPTS[@]}" 00:05.0
	expect_status 1
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	run --separate-stderr act evidence 00:05.0 --verify -J --trust "$TRUST"
	expect_status 1
	json_is '[.decision.refused[] | select(.check == "evidence.chain") | .object]' '["certificates","certificates"]'
}

@test "lock names accept --verify as the next step, and that step refuses what the evidence does not prove" {
	mount_live evidence-guest
	run --separate-stderr act lock 00:09.0 tsm0
	expect_status 0
	[[ "$output" == "0000:00:09.0: locked to tsm0; next: tsmctl accept --verify 0000:00:09.0"* ]]
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.reference.json" 00:09.0
	expect_status 1
	# what is missing (a SEV-TIO guest's report gives offsets), with nothing said verified
	[[ "$stderr" == *"evidence.report-ranges report: "*"their absolute addresses are not proven (--allow-report-offsets takes this risk)"* ]]
	[[ "$stderr" != *"verified:"* ]]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 0 ]
	# accept's own nonce refreshed the evidence (generation 1 -> 2), as evidence --fresh does
	[[ "$stderr" == *"evidence of generation 2 does not prove the device"* ]]
	# --allow-replay reads it as it is: no nonce, no refresh
	run --separate-stderr act accept --verify --trust "$TRUST" --allow-replay 00:09.0
	[[ "$stderr" == *"evidence of generation 2 does not prove the device"* ]]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 0 ]
	# that risk taken by name, and everything else proven: accepted, and said how
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.reference.json" --allow-report-offsets 00:09.0
	expect_status 0
	[[ "$output" == "0000:00:09.0: accepted (locked to tsm0); evidence of generation 3 taking on trust: MMIO ranges given as offsets"*"; verified: identity (cert0: "*"measurements' signature (slot 0's key), measurements against the reference, freshness (the nonce)"* ]]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 1 ]
}

@test "evidence --verify: what was verified and what was not, per result and in -J; the options name their risk" {
	mount_live evidence-host
	run --separate-stderr act evidence 01:00.0 --verify -J --trust "$TRUST" --reference "$CERTS/all-types.reference.json"
	expect_status 1
	# proven so far, and said: identity and the report; refused for the rest
	json_is '[.decision.verified[].check]' '["evidence.chain","evidence.report-ranges","evidence.measurements"]'
	[[ "$(printf '%s' "$output" | jq -r '.decision.verified[0].text')" == "identity (cert0: verified against $TRUST (3 certificates, root CN=tsm-sim root CA, leaf CN=tsm-sim ECDSA P-384 device, "* ]]
	json_is '[.decision.taken_on_trust, [.checks[] | select(.taken_on_trust)]]' '[[],[]]'
	json_is '.decision.line | startswith("evidence of generation 1 does not prove the device: ")' true
	# every option given: the three risks this evidence has are taken, each by its own option, and said
	run --separate-stderr act evidence 01:00.0 --verify -J --trust "$TRUST" "${RISK_OPTS[@]}"
	expect_status 0
	json_is '[.checks[] | select(.risk != null) | [.id, .object, .risk, .taken_on_trust]]' \
		'[["evidence.signature","measurements","unsigned-measurements",true],["evidence.measurements","measurements","no-reference",true],["evidence.generation","nonce","replay",true]]'
	json_is '[.decision.verdict, .decision.accepted, [.decision.taken_on_trust[] | .risk], [.decision.verified[].check]]' \
		'["taken-on-trust",true,["unsigned-measurements","no-reference","replay"],["evidence.chain","evidence.report-ranges"]]'
	json_is '.decision.line | startswith("evidence of generation 1 taking on trust: measurements whose signature is not checked here")' true
	# one option short: that risk alone is refused, and named with its option
	run --separate-stderr act evidence 01:00.0 --verify -J --trust "$TRUST" --allow-unsigned-measurements --allow-no-reference
	expect_status 1
	json_is '[.decision.verdict, [.decision.refused[] | .check + " " + .object]]' '["unproven",["evidence.generation nonce"]]'
	json_is '.decision.line | endswith("(--allow-replay takes this risk)")' true
	# the text: the decision is the last line
	run --separate-stderr act evidence 01:00.0 --verify --trust "$TRUST"
	expect_status 1
	[[ "${lines[-1]}" == "0000:01:00.0: evidence of generation 1 does not prove the device: "* ]]
	# the options go with a decision, and are the same five everywhere one is made
	run act evidence 01:00.0 --allow-replay
	expect_status 2
	run act accept --allow-first-use 00:05.0
	expect_status 2
	[[ "$output" == *"--trust, --reference, --pin, --partial-chain and the --allow-* options go with --verify"* ]]
	for c in evidence accept audit metrics; do
		for o in "${RISK_OPTS[@]}"; do
			"$TSMCTL" --list-opts "$c" | grep -qx -- "$o" || { echo "$c: no $o"; return 1; }
		done
	done
}

# ---- finding 7: audit's device.evidence judged chains only ----

@test "audit device.evidence decides as evidence --verify: a zero RootHash, a range past its BAR, a misplaced MSI-X table, a P-256 VCA for a P-384 key fail" {
	mount_live evidence-host
	run --separate-stderr act audit -J --trust "$TRUST" -d 06:00.0,07:00.0,08:00.0,09:00.0,01:00.0
	expect_status 1
	[[ "$(result_of device.evidence 0000:06:00.0)" == "fail: evidence of generation 1 does not verify: evidence.root-hash cert0: RootHash 000000"* ]]
	[[ "$(result_of device.evidence 0000:07:00.0)" == "fail: "*"evidence.report-ranges report: range 1 (1 page at BAR 0 +0x200000) ends past BAR 0"* ]]
	[[ "$(result_of device.evidence 0000:08:00.0)" == "fail: "*"range 1 is marked MSI-X table but lies at BAR 0 +0x3000"* ]]
	[[ "$(result_of device.evidence 0000:09:00.0)" == "fail: "*"evidence.algorithms vca: the leaf's key is ec 384 secp384r1, the negotiated BaseAsymAlgo ecdsa_p256 needs ec 256 prime256v1" ]]
	# the chains of 01 verify, and that is no longer a pass: nothing binds its measurements
	[[ "$(result_of device.evidence 0000:01:00.0)" == "warn: evidence of generation 1 does not prove the device: "* ]]
	# each one as evidence --verify decides it
	for b in 06 07 08 09; do
		run --separate-stderr act evidence "$b:00.0" --verify -J --trust "$TRUST"
		[ "$(printf '%s' "$output" | jq -r .decision.verdict)" = failed ]
	done
}

@test "audit device.evidence: never verified without a trust store (warn, and the metric says so); needs-root for EPERM" {
	mount_live evidence-host
	run --separate-stderr act audit -J --trust "$EMPTY" -d 01:00.0
	expect_status 0
	[[ "$(result_of device.evidence 0000:01:00.0)" == "warn: never verified (no trust store): evidence of generation 1 does not prove the device: evidence.chain cert0: no trust store: $EMPTY holds no certificate; "* ]]
	run --separate-stderr act metrics --trust "$EMPTY"
	expect_status 0
	printf '%s\n' "$output" | "$TOP/tests/lib/promtext-check"
	[[ "$output" == *$'\ntsmctl_evidence_trust_store 0\n'* ]]
	[[ "$output" == *$'\ntsmctl_device_evidence{device="0000:01:00.0",state="unverified"} 1\n'* ]]
	[[ "$output" == *$'\ntsmctl_device_evidence_unverified{device="0000:01:00.0",reason="no-trust-store"} 1\n'* ]]
	# not root, no CAP_NET_ADMIN: the family's read is admin-only
	command -v setpriv >/dev/null || skip "setpriv not installed"
	open_path_to_root
	chmod -R o+rX "$TRUST"
	run env TSMCTL_EVIDENCE_SOCKET="$(cat "$ROOT/tsm-sim-evidence")" setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" audit -J --trust "$TRUST" -d 01:00.0
	[[ "$(result_of device.evidence 0000:01:00.0)" == "needs-root: "*"needs CAP_NET_ADMIN"* ]]
}

@test "metrics: a series per device, verified, trusted, unverified with why, failed; every reason written" {
	mount_live evidence-host
	run --separate-stderr act metrics --trust "$TRUST"
	expect_status 0
	printf '%s\n' "$output" | "$TOP/tests/lib/promtext-check"
	series() { printf '%s\n' "$output" | awk -v k="$1" '$1 == k { print $2 }'; }
	[ "$(series tsmctl_evidence_trust_store)" = 1 ]
	[ "$(series 'tsmctl_device_evidence{device="0000:02:00.0",state="failed"}')" = 1 ]
	[ "$(series 'tsmctl_device_evidence{device="0000:02:00.0",state="unverified"}')" = 0 ]
	[ "$(series 'tsmctl_device_evidence{device="0000:01:00.0",state="unverified"}')" = 1 ]
	[ "$(series 'tsmctl_device_evidence{device="0000:01:00.0",state="verified"}')" = 0 ]
	# the three risks its evidence has, each a reason; nothing else is missing
	for reason in unsigned-measurements no-reference replay; do
		[ "$(series "tsmctl_device_evidence_unverified{device=\"0000:01:00.0\",reason=\"$reason\"}")" = 1 ]
	done
	[ "$(series 'tsmctl_device_evidence_unverified{device="0000:01:00.0",reason="unproven"}')" = 0 ]
	[ "$(series 'tsmctl_device_evidence_unverified{device="0000:01:00.0",reason="no-trust-store"}')" = 0 ]
	# one-hot, four states and nine reasons for each of the ten connected devices
	[ "$(printf '%s\n' "$output" | grep -c '^tsmctl_device_evidence{')" -eq 40 ]
	[ "$(printf '%s\n' "$output" | grep -c '^tsmctl_device_evidence_unverified{')" -eq 90 ]
	[ "$(printf '%s\n' "$output" | awk '/^tsmctl_device_evidence\{/ { s[substr($1, 1, index($1, ",") - 1)] += $2 } END { for (d in s) if (s[d] != 1) print d }')" = "" ]
	[ "$(series 'tsmctl_audit_check_status{check="device.evidence",status="fail"}')" = 1 ]
	# the reference given and the two other risks taken by name: trusted, not verified
	run --separate-stderr act metrics --trust "$TRUST" --reference "$CERTS/all-types.reference.json" --allow-unsigned-measurements --allow-replay
	expect_status 0
	[ "$(series 'tsmctl_device_evidence{device="0000:01:00.0",state="trusted"}')" = 1 ]
	[ "$(series 'tsmctl_device_evidence{device="0000:01:00.0",state="verified"}')" = 0 ]
	[ "$(series 'tsmctl_device_evidence_unverified{device="0000:01:00.0",reason="replay"}')" = 0 ]
	# an input that cannot be used writes nothing
	run --separate-stderr act metrics --trust "$BATS_TEST_TMPDIR/nowhere" --output-file "$BATS_TEST_TMPDIR/m.prom"
	expect_status 1
	[ ! -e "$BATS_TEST_TMPDIR/m.prom" ]
}

# ---- finding 8: typos, slots, dependents ----

@test "audit --require-verified: a BDF that does not exist fails (it was ignored, exit 0); a slot is taken" {
	mount_live evidence-host
	run --separate-stderr act audit -J --trust "$TRUST" --require-verified 99:00.0
	expect_status 1
	[ "$(result_of device.evidence 0000:99:00.0)" = "fail: required to be verified, but there is no such PCI device" ]
	[ "$(printf '%s' "$output" | jq -r '.checks[] | select(.object == "0000:99:00.0") | .hint')" = "check the address: --require-verified names a device this host does not have (see 'tsmctl devices --all')" ]
	# a slot: each of its functions (it was "invalid PCI address")
	run --separate-stderr act audit -J --trust "$TRUST" --require-verified 01:00 -d 01:00.0
	expect_status 1
	[[ "$stderr" == *"01:00 is a slot: its function 0000:01:00.0"* ]]
	[[ "$(result_of device.evidence 0000:01:00.0)" == "fail: required to be verified (--require-verified): evidence of generation 1 does not prove the device: "* ]]
	# --require-connected takes a slot as connect does: its DSM, function 0
	run --separate-stderr act audit -J --require-connected 0b:00 -d 0b:00.0
	expect_status 1
	[ "$(result_of device.connected 0000:0b:00.0)" = "fail: not connected (required by --require-connected)" ]
	run --separate-stderr act audit --require-verified 41-00
	expect_status 2
}

@test "audit --require-verified: a dependent function is judged through its DSM's evidence, as evidence reads it" {
	mount_live devsec-staging
	for m in devsec_bus devsec_link_tsm devsec_tsm; do ctl modprobe $m; done
	cat "$CERTS/ecdsa-p384.spdm-chain" > "$ROOT/sys/devices/faux/devsec_link_tsm/certs"
	echo tsm0 > "$(dev 10000:01:00.0)/tsm/connect"
	run --separate-stderr act evidence 10000:01:00.1 -t cert0
	expect_status 0
	[[ "$stderr" == *"10000:01:00.1 is a dependent function of the DSM 10000:01:00.0: reading the DSM's evidence"* ]]
	run --separate-stderr act audit -J --trust "$TRUST" --require-verified 10000:01:00.1 -d 10000:01:00.1
	expect_status 1
	[[ "$(result_of device.evidence 10000:01:00.1)" == "fail: required to be verified (--require-verified): judged through its DSM 10000:01:00.0: evidence of generation 1 does not prove the device: "* ]]
	[[ "$(result_of device.evidence 10000:01:00.1)" != *"has no evidence"* ]]
}

# ---- finding 8: captures and saved directories ----

@test "--sysroot CAPTURE: evidence is judged from the capture's own, never the running kernel's" {
	mount_live evidence-host
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") TSMCTL=$TSMCTL \
		"$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" -o "$BATS_TEST_TMPDIR/c.tar.xz" >/dev/null
	CAP=$BATS_TEST_TMPDIR/c
	mkdir "$CAP"
	tar -C "$CAP" -xJf "$BATS_TEST_TMPDIR/c.tar.xz"
	# the live tree moves on: 01 refreshed (generation 2), 02 disconnected (no evidence at all)
	act evidence 01:00.0 --fresh -t vca >/dev/null 2>&1
	echo tsm0 > "$(dev 0000:02:00.0)/tsm/disconnect"
	live() { TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$CAP" "$@"; }
	run --separate-stderr live evidence 01:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	json_is '[.source, .generation]' '["directory",1]'
	[[ "$stderr" == *"$CAP is no kernel's tree (a capture or a copy): reading the evidence saved in it, not the running kernel's"* ]]
	run --separate-stderr live evidence 02:00.0 --verify -J --trust "$TRUST"
	[ "$(result_of evidence.chain cert0)" = "fail: certificate has expired (certificate CN=tsm-sim expired device)" ]
	run --separate-stderr live audit -J --trust "$TRUST" -d 01:00.0,02:00.0
	[[ "$(result_of device.evidence 0000:01:00.0)" == "warn: evidence of generation 1 does not prove the device: "* ]]
	[[ "$(result_of device.evidence 0000:02:00.0)" == "fail: evidence of generation 1 does not verify: evidence.chain cert0: certificate has expired"* ]]
	# and the socket is never as much as opened
	if command -v strace >/dev/null; then
		TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") strace -f -qq -e trace=connect,socket \
			-o "$BATS_TEST_TMPDIR/trace" "$TSMCTL" --sysroot "$CAP" audit -J --trust "$TRUST" >/dev/null || true
		if grep -E 'AF_NETLINK|tsm-sim-evidence|sun_path=.*evidence' "$BATS_TEST_TMPDIR/trace"; then false; fi
	fi
	# -o and a nonce need a kernel
	run --separate-stderr live evidence 01:00.0 --fresh
	expect_status 1
	[[ "$stderr" == *"is no kernel's tree (a capture or a copy): its evidence is what was saved in it"* ]]
	# a device the capture saved nothing of
	rm -r "$CAP/tsmctl-evidence/0000:03:00.0"
	run --separate-stderr live evidence 03:00.0 --verify
	expect_status 1
	[[ "$stderr" == *"no evidence of 0000:03:00.0 is saved in it (tsmctl-evidence/0000:03:00.0/)"* ]]
	run --separate-stderr live audit -J --trust "$TRUST" -d 03:00.0
	[[ "$(result_of device.evidence 0000:03:00.0)" == "skip: no evidence of 0000:03:00.0 is saved in this tree (tsmctl-evidence/0000:03:00.0/), and it is no kernel's (a capture or a copy)"* ]]
}

@test "tsmctl-collect fails loudly when evidence it should have cannot be saved; records why when there is none" {
	mount_live evidence-host
	sock=$(cat "$ROOT/tsm-sim-evidence")
	# the evidence keeps changing: every dump of 01's is raced, three times (EAGAIN)
	ctl evidence-fault 0000:01:00.0 eagain 2 3
	run --separate-stderr env TSMCTL_EVIDENCE_SOCKET="$sock" TSMCTL="$TSMCTL" \
		"$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" -o "$BATS_TEST_TMPDIR/c.tar.xz"
	expect_status 1
	[[ "$stderr" == "tsmctl-collect: cannot save the evidence of 0000:01:00.0: no evidence: the evidence kept changing"*"(EAGAIN) (--no-evidence captures without it): nothing written" ]]
	[ ! -e "$BATS_TEST_TMPDIR/c.tar.xz" ]
	# --no-evidence: the capture is made, without any
	ctl evidence-fault 0000:01:00.0 eagain 2 3
	run --separate-stderr env TSMCTL_EVIDENCE_SOCKET="$sock" TSMCTL="$TSMCTL" \
		"$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" --no-evidence -o "$BATS_TEST_TMPDIR/c.tar.xz"
	expect_status 0
	if tar -tJf "$BATS_TEST_TMPDIR/c.tar.xz" | grep -q tsmctl-evidence; then false; fi
	# a provider that gives a locked TDI none (the devsec sample's, ENODEV): recorded, said, not fatal
	unmount_live
	mount_live devsec-staging
	for m in devsec_bus devsec_link_tsm devsec_tsm; do ctl modprobe $m; done
	echo tsm1 > "$(dev 10000:01:00.0)/tsm/lock"
	run --separate-stderr env TSMCTL_EVIDENCE_SOCKET="$(cat "$ROOT/tsm-sim-evidence")" TSMCTL="$TSMCTL" \
		"$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" -o "$BATS_TEST_TMPDIR/d.tar.xz"
	expect_status 0
	[[ "$stderr" == *"tsmctl-collect: no evidence to save for 1 device(s) (in tsmctl-evidence/BDF.unsaved): 10000:01:00.0: no evidence: it is locked to tsm1, whose provider gives a locked TDI no evidence"*"(ENODEV)"* ]]
	mkdir "$BATS_TEST_TMPDIR/d"
	tar -C "$BATS_TEST_TMPDIR/d" -xJf "$BATS_TEST_TMPDIR/d.tar.xz"
	[[ "$(cat "$BATS_TEST_TMPDIR/d/tsmctl-evidence/10000:01:00.0.unsaved")" == "no evidence: it is locked to tsm1"*"(ENODEV)" ]]
	# the capture says why, as tsmctl said it then
	run --separate-stderr "$TSMCTL" --sysroot "$BATS_TEST_TMPDIR/d" audit -J -d 10000:01:00.0
	[ "$(result_of device.evidence 10000:01:00.0)" = "skip: $(cat "$BATS_TEST_TMPDIR/d/tsmctl-evidence/10000:01:00.0.unsaved")" ]
	run --separate-stderr "$TSMCTL" --sysroot "$BATS_TEST_TMPDIR/d" evidence 10000:01:00.0
	expect_status 1
	[[ "$stderr" == *"tsmctl-collect could not save it: no evidence: it is locked to tsm1"* ]]
}

@test "evidence -o: a -t save replaces the earlier one whole; --from says what was not saved; -o - makes no directory" {
	mount_live evidence-host
	d=$BATS_TEST_TMPDIR/s
	act evidence 01:00.0 -o "$d" >/dev/null
	[ -e "$d/vca.bin" ]
	[ -e "$d/measurements.bin" ]
	act evidence 01:00.0 -t cert0 -o "$d" >/dev/null
	# the earlier save's objects went: the directory is this save, whole
	[ "$(ls "$d" | sort | tr '\n' ' ')" = "cert0.spdm-chain config manifest.json resource " ]
	run --separate-stderr "$TSMCTL" evidence --from "$d"
	expect_status 0
	[[ "$stderr" == *"$d holds only what -t asked for: cert1, cert2, cert3, cert4, cert5, cert6, cert7, vca, measurements, report not saved"* ]]
	[ "${#lines[@]}" -eq 2 ]	# the header and cert0
	run --separate-stderr "$TSMCTL" evidence --from "$d" --verify
	expect_status 1
	[ "$stderr" = "tsmctl evidence: --from $d was saved with --type: cert1, cert2, cert3, cert4, cert5, cert6, cert7, vca, measurements, report were not saved, and --verify judges every object (save them all: tsmctl evidence BDF -o DIR)" ]
	[ -z "$output" ]
	# '-' is no directory to make
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr act evidence 01:00.0 -o -
	expect_status 2
	[[ "$stderr" == *"--output -: the evidence is saved as a directory"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/-" ]
}

# ---- the words the pages show are what tsmctl says ----

# page_block PAGE COMMAND: the output the last block that opens with "# COMMAND" shows
page_block() {
	awk -v cmd="# $2" '$0 == cmd { on = 1; b = ""; next }
		on && /^(```|# )/ { on = 0; if (b != "") last = b; next } on { b = b $0 "\n" }
		END { printf "%s", last }' "$1"
}

@test "README's and accept(8)'s refused and accepted accepts are what accept --verify says on the simulated guest" {
	mount_live evidence-guest
	# the pages show the default store; the certificates' end is the day they were made plus ten years
	shown() { sed -e "s|$TRUST|/etc/tsmctl/trust.d|g" -e 's/valid until [0-9-]*/valid until DAY/g'; }
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.reference.json" 00:05.0
	expect_status 1
	refused=$(printf '%s\n%s' "$stderr" "$output" | shown)
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.reference.json" --allow-report-offsets 00:05.0
	expect_status 0
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 1 ]
	accepted=$(printf '%s' "$output" | shown)
	for page in "$TOP/README.md" "$TOP/man/tsmctl-accept.8.scd"; do
		want=$(page_block "$page" "tsmctl accept --verify --reference nic-2.4.1.json 0000:00:05.0" | shown)
		[ "$want" = "$refused" ] || { echo "$page:"; diff <(echo "$want") <(echo "$refused"); return 1; }
		want=$(page_block "$page" "tsmctl accept --verify --reference nic-2.4.1.json --allow-report-offsets 0000:00:05.0" | shown)
		[ "$want" = "$accepted" ] || { echo "$page:"; diff <(echo "$want") <(echo "$accepted"); return 1; }
	done
}

@test "completion offers the risk options where a decision is made" {
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	ln -s "$TSMCTL" "$BIN/tsmctl"
	for c in evidence accept audit metrics; do
		run env PATH="$BIN:$PATH" bash -c 'source "$1/completions/tsmctl.bash"; COMP_WORDS=(tsmctl "$2" --allow-); COMP_CWORD=2; _tsmctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP" "$c"
		[ "${lines[*]}" = "${RISK_OPTS[*]}" ] || { echo "$c: ${lines[*]}"; return 1; }
	done
}

@test "accept --verify --pin: a first use is pinned only once the kernel shows the device accepted" {
	mount_variant evidence-guest '.host_bridges[0].devices[0].faults = {"accept_errno": "ETIMEDOUT"}'
	pins=$BATS_TEST_TMPDIR/pins
	opts=(--pin "$pins" --allow-first-use --allow-report-offsets --reference "$CERTS/all-types.reference.json")
	# the decision accepts (its root taken on first use), the kernel's accept fails: nothing pinned
	run --separate-stderr act accept --verify --trust "$EMPTY" "${opts[@]}" 00:05.0
	expect_status 1
	[[ "$stderr" == "tsmctl accept 0000:00:05.0: "*"(ETIMEDOUT)" ]]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	[ ! -e "$pins" ]
	[[ "$output$stderr" != *pinned* ]]
	# the same device where the kernel's accept succeeds: the pin written, and said once it is on disk
	unmount_live
	mount_live evidence-guest
	run --separate-stderr act accept --verify --trust "$EMPTY" "${opts[@]}" 00:05.0
	expect_status 0
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 1 ]
	root=$(openssl x509 -in "$CERTS/ecdsa-p384.root.pem" -outform DER | sha384sum | cut -d' ' -f1)
	grep -qx "0000:00:05.0 0 $root" "$pins"
	[[ "${lines[0]}" == "0000:00:05.0: accepted (locked to tsm0); evidence of generation "*" taking on trust: a root pinned on first use"*"; pinned 0000:00:05.0 slot 0 (SHA-384 ${root:0:16}...) in $pins" ]]
}

@test "evidence --verify -J: a verdict that accepts, then a --pin that cannot be written: one document, exit 1" {
	mount_live evidence-guest
	pins=$BATS_TEST_TMPDIR/no-such-dir/pins
	opts=(--pin "$pins" --allow-first-use --allow-report-offsets --reference "$CERTS/all-types.reference.json")
	run --separate-stderr act evidence --verify --fresh -J --trust "$EMPTY" "${opts[@]}" 00:05.0
	expect_status 1
	# the verdict printed once: no second (fallback) document after the failure
	[ "$(printf '%s' "$output" | jq -s length)" = 1 ]
	[ "$(printf '%s' "$output" | jq -r .decision.accepted)" = true ]
	[ "$(printf '%s' "$output" | jq -r .decision.verdict)" = taken-on-trust ]
	[ "$(printf '%s' "$output" | jq -r .bdf)" = 0000:00:05.0 ]
	[[ "$stderr" == "tsmctl evidence: --pin $pins: "*"No such file or directory" ]]
	[[ "$stderr" != *pinned* ]]
	[ ! -e "$BATS_TEST_TMPDIR/no-such-dir" ]
}
