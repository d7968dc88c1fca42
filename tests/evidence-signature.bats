#!/usr/bin/env bats
# evidence.signature: the measurements' signature checked with the leaf key
# of the slot they name, on the simulator's evidence-signature topology,
# whose devices sign over the nonce they were sent or break it on purpose
# (tests/sim/src/sim-evidence-sign.c): a genuine signature passes, a
# forged measurement (the right digests, a wrong or no signature) fails, on
# the live mount and from the directory `evidence -o` saved, whose manifest
# digests anyone can write; the nonce result says what was proven fresh.

load lib/helpers

CERTS=$TOP/tests/sim/certs

setup() {
	[ -r "$CERTS/all-types.reference.json" ] || skip "make -C tests/sim builds the evidence objects"
	TRUST=$BATS_TEST_TMPDIR/trust
	mkdir -p "$TRUST"
	cp "$CERTS"/*.root.pem "$TRUST"/
	REF=$CERTS/all-types.reference.json
}

teardown() {
	unmount_live
}

ev() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" evidence "$@"
}

# from DIR [OPTIONS]: --verify -J of a saved directory, no kernel involved.
from() {
	local dir=$1
	shift
	run --separate-stderr env -u TSMCTL_EVIDENCE_SOCKET "$TSMCTL" evidence --from "$dir" --verify -J "$@"
}

# "status: message" of check ID about OBJECT in DOC ("N results" unless exactly one).
result_in() {
	printf '%s' "$1" | jq -r --arg id "$2" --arg obj "$3" \
		'[.checks[] | select(.id == $id and .object == $obj) | .status + ": " + .message] |
		 if length == 1 then .[0] else "\(length) results" end'
}

# judge BDF [OPTIONS]: --verify -J --fresh of BDF live (LIVE, LIVE_STATUS), then of a
# fresh read saved with -o (SAVED, SAVED_STATUS, directory SAVED_DIR).
judge() {
	local bdf=$1
	shift
	SAVED_DIR=$(mktemp -d "$BATS_TEST_TMPDIR/saved.XXXXXX")
	run --separate-stderr ev "$bdf" --verify -J --fresh --trust "$TRUST" "$@"
	LIVE=$output
	LIVE_STATUS=$status
	ev "$bdf" --fresh -o "$SAVED_DIR" >/dev/null
	from "$SAVED_DIR" --trust "$TRUST" "$@"
	SAVED=$output
	SAVED_STATUS=$status
}

# expect ID OBJECT STATUS [TEXT]: so on the live mount and from the saved copy.
expect() {
	local doc where got
	for where in live saved; do
		doc=$LIVE
		[ "$where" = saved ] && doc=$SAVED
		got=$(result_in "$doc" "$1" "$2")
		if [[ "$got" != "$3: "* || "$got" != *"${4:-}"* ]]; then
			echo "$where: $1 $2: expected '$3: ...${4:-}...', got '$got'"
			return 1
		fi
	done
}

both_exit() {
	[ "$LIVE_STATUS" -eq "$1" ] && [ "$SAVED_STATUS" -eq "$1" ] ||
		{ echo "exit: live $LIVE_STATUS, saved $SAVED_STATUS, expected $1"; return 1; }
}

# Neither run failed a check (what a skip does to the exit status is the gate's to say).
no_failure() {
	[ "$(printf '%s' "$LIVE" | jq .summary.fail)$(printf '%s' "$SAVED" | jq .summary.fail)" = 00 ] ||
		{ echo "failures: live $(printf '%s' "$LIVE" | jq -c .summary), saved $(printf '%s' "$SAVED" | jq -c .summary)"; return 1; }
}

# reseal DIR TYPE: the manifest's length and digests made to fit the object's file again,
# as anyone who writes a saved directory can.
reseal() {
	local f=$1/$2.bin
	jq --argjson n "$(stat -c %s "$f")" --arg a "$(sha256sum < "$f" | cut -d' ' -f1)" \
		--arg b "$(sha384sum < "$f" | cut -d' ' -f1)" --arg t "$2" \
		'(.evidence[0].objects[] | select(.type == $t)) |= (.length = $n | .sha256 = $a | .sha384 = $b)' \
		"$1/manifest.json" > "$1/m" && mv "$1/m" "$1/manifest.json"
}

LEAF_CN="slot 0's leaf (CN=tsm-sim ECDSA P-384 device, ec 384)"

@test "a genuine signature over the nonce sent passes, live and from its saved copy; the nonce is proven fresh live only" {
	mount_live evidence-signature
	judge 01:00.0 --reference "$REF"
	[ "$LIVE_STATUS" -eq 0 ]
	no_failure
	expect evidence.signature measurements pass "signed by $LEAF_CN with ecdsa_p384 over SPDM 1.3's L1: the vca object, GET_MEASUREMENTS rebuilt for the nonce sent (every block, slot 0, with the requester context), the response"
	expect evidence.measurements measurements/2 pass "the digest is one of the 2 the reference accepts"
	[ "$(result_in "$LIVE" evidence.generation nonce)" = "pass: the measurements are signed over the 32-byte nonce this reader sent: made for this read" ]
	[ "$(result_in "$SAVED" evidence.generation nonce)" = "skip: the measurements are signed over the nonce the saved manifest records; a saved directory cannot show who sent it, or when" ]
	# everything else passed live: the one skip left is the refresh no copy records
	[ "$(printf '%s' "$LIVE" | jq -c '[.checks[] | select(.status != "pass") | .id + " " + .object]')" = '[]' ]
	[ "$(printf '%s' "$SAVED" | jq -c '[.checks[] | select(.status != "pass") | .object]')" = '["refresh","nonce"]' ]
	# RSA-3072 (RSASSA) over the generated SPDM 1.2 exchange
	judge 0a:00.0
	no_failure
	expect evidence.signature measurements pass "signed by slot 0's leaf (CN=tsm-sim RSA-3072 device, rsa 3072) with rsassa_3072 over SPDM 1.2's L1"
}

@test "without a nonce of ours a bare response is not verified: skip, never pass" {
	mount_live evidence-signature
	run --separate-stderr ev 01:00.0 --verify -J --trust "$TRUST" --reference "$REF"
	[ "$(result_in "$output" evidence.signature measurements)" = "skip: cannot be verified from this evidence: a bare MEASUREMENTS response: the GET_MEASUREMENTS it answers is not handed out, and no nonce of this reader's was sent to rebuild it" ]
	[[ "$(printf '%s' "$output" | jq -r '.checks[] | select(.id == "evidence.signature") | .hint')" == "--fresh (or --nonce) sends a nonce from which the request can be rebuilt" ]]
	[[ "$(result_in "$output" evidence.generation nonce)" == "skip: no nonce was sent: the evidence is as old as generation 1, and a replay of older evidence is not excluded" ]]
	# a short nonce is padded as the simulator's provider pads it
	run --separate-stderr ev 01:00.0 --verify -J --trust "$TRUST" --nonce 0011aabb
	[[ "$(result_in "$output" evidence.signature measurements)" == "pass: signed by $LEAF_CN"* ]]
	[ "$(result_in "$output" evidence.generation nonce)" = "pass: the measurements are signed over the 4-byte nonce this reader sent: made for this read" ]
}

@test "a forged measurement with the right digests fails on the live mount and from a saved directory: zeroed, none, another key, another nonce" {
	mount_live evidence-signature
	# every digest is the reference's: only the signature tells these from device 01
	for dev in 02:00.0 03:00.0 04:00.0 05:00.0; do
		judge "$dev" --reference "$REF"
		both_exit 1
		expect evidence.measurements measurements/2 pass "the digest is one of the 2 the reference accepts"
		[ "$(printf '%s' "$LIVE" | jq -c '[.checks[] | select(.status == "fail") | .id]')" = '["evidence.signature"]' ]
		[ "$(printf '%s' "$SAVED" | jq -c '[.checks[] | select(.status == "fail") | .id]')" = '["evidence.signature"]' ]
		case $dev in
		03:00.0)
			expect evidence.signature measurements fail "the measurements are unsigned, yet CAPABILITIES says the device signs them (MEAS_CAP 2)" ;;
		*)
			expect evidence.signature measurements fail "the signature does not verify with $LEAF_CN over any of the 2 GET_MEASUREMENTS requests the nonce sent rebuilds: forged, made by another key, or answering another nonce (a replay)" ;;
		esac
		expect evidence.generation nonce skip "not shown: the measurements' signature does not vouch for the nonce sent"
	done
}

@test "a saved directory is forged as easily as its manifest is rewritten: a swapped digest, a zeroed or stripped signature fail" {
	mount_live evidence-signature
	d=$BATS_TEST_TMPDIR/good
	ev 01:00.0 --fresh -o "$d" >/dev/null
	from "$d" --trust "$TRUST" --reference "$REF"
	[ "$(printf '%s' "$output" | jq .summary.fail)" -eq 0 ]
	m=$d/measurements.bin
	cp "$m" "$BATS_TEST_TMPDIR/genuine"
	# index 2 holds the other digest the reference accepts ("an older image"), the manifest resealed
	older=$(jq -r '.measurements[] | select(.index == 2) | .digests[0]' "$REF")
	now=$(jq -r '.measurements[] | select(.index == 2) | .digests[1]' "$REF")
	hex=$(od -An -tx1 -v "$m" | tr -d ' \n')
	before=${hex%%"$now"*}
	[ "$before" != "$hex" ]
	[ $((${#before} % 2)) -eq 0 ]
	off=$((${#before} / 2))
	printf "$(sed 's/../\\x&/g' <<<"$older")" | dd of="$m" bs=1 seek="$off" conv=notrunc status=none
	reseal "$d" measurements
	from "$d" --trust "$TRUST" --reference "$REF"
	expect_status 1
	[ "$(result_in "$output" evidence.measurements measurements/2)" = "pass: index 2 (mutable_firmware): the digest is one of the 2 the reference accepts" ]
	[[ "$(result_in "$output" evidence.signature measurements)" == "fail: the signature does not verify with $LEAF_CN"* ]]
	# the genuine bytes, the signature zeroed
	size=$(stat -c %s "$BATS_TEST_TMPDIR/genuine")
	{ head -c $((size - 96)) "$BATS_TEST_TMPDIR/genuine"; head -c 96 /dev/zero; } > "$m"
	reseal "$d" measurements
	from "$d" --trust "$TRUST"
	expect_status 1
	[[ "$(result_in "$output" evidence.signature measurements)" == "fail: the signature does not verify"* ]]
	# no signature at all, from a device whose CAPABILITIES says it signs
	head -c $((size - 96)) "$BATS_TEST_TMPDIR/genuine" > "$m"
	reseal "$d" measurements
	from "$d" --trust "$TRUST"
	expect_status 1
	[ "$(result_in "$output" evidence.signature measurements)" = "fail: the measurements are unsigned, yet CAPABILITIES says the device signs them (MEAS_CAP 2): the signed response was stripped, or a signature never asked for" ]
	# the genuine response under another nonce in the manifest: a replay
	cp "$BATS_TEST_TMPDIR/genuine" "$m"
	reseal "$d" measurements
	jq '.evidence[0].nonce = "'"$(printf '%064d' 0)"'"' "$d/manifest.json" > "$d/x" && mv "$d/x" "$d/manifest.json"
	from "$d" --trust "$TRUST"
	expect_status 1
	[[ "$(result_in "$output" evidence.signature measurements)" == *"answering another nonce (a replay)" ]]
}

@test "request || response and the whole transcript verify as carried, with or without a nonce" {
	mount_live evidence-signature
	judge 06:00.0
	no_failure
	expect evidence.decode measurements pass "11 measurement blocks, signed, after its GET_MEASUREMENTS"
	expect evidence.signature measurements pass "signed by $LEAF_CN with ecdsa_p384 over SPDM 1.3's L1: the vca object, 1 GET_MEASUREMENTS request and response carried"
	[ "$(result_in "$LIVE" evidence.generation nonce)" = "pass: the measurements are signed over the 32-byte nonce this reader sent: made for this read" ]
	# without a nonce the carried request is still the device's: authentic, not shown fresh
	run --separate-stderr ev 06:00.0 --verify -J --trust "$TRUST"
	[[ "$(result_in "$output" evidence.signature measurements)" == "pass: signed by $LEAF_CN"* ]]
	[[ "$(result_in "$output" evidence.generation nonce)" == "skip: no nonce was sent"* ]]
	# the VCA in front and no vca object (the staging sample's transcript); with the vca object too
	for dev in 07:00.0 0d:00.0; do
		judge "$dev"
		no_failure
		expect evidence.decode measurements pass "5 measurement blocks, signed, in a transcript with its VCA"
		expect evidence.signature measurements pass "signed by $LEAF_CN with ecdsa_p384 over SPDM 1.2's L1: the VCA it carries, 1 GET_MEASUREMENTS request and response carried"
	done
}

@test "a replayed request || response fails the signature and the nonce; a truncated transcript fails to decode or by the leaf key's size" {
	mount_live evidence-signature
	judge 09:00.0
	both_exit 1
	expect evidence.signature measurements fail "signed by $LEAF_CN, but over a GET_MEASUREMENTS with nonce "
	expect evidence.signature measurements fail "a response replayed from another request"
	expect evidence.generation nonce fail "the transcript's GET_MEASUREMENTS carries another nonce than the one sent"
	# the VCA in front delimits the signature: 10 bytes short is malformed
	judge 08:00.0
	both_exit 1
	expect evidence.decode measurements fail "86 bytes after the opaque data; the negotiated ecdsa_p384 signature is 96"
	expect evidence.signature measurements skip "parent check evidence.decode failed (measurements)"
	# without a VCA nothing delimits it, but the leaf's key says how long it must be
	judge 0b:00.0
	both_exit 1
	expect evidence.signature measurements fail "86 bytes follow the opaque data, where $LEAF_CN makes 96-byte signatures"
}

@test "a device without a key to sign with is skip (the risk of unsigned measurements), not pass" {
	mount_live evidence-signature
	judge 0c:00.0
	no_failure
	expect evidence.signature measurements skip "cannot be verified from this evidence: the measurements are unsigned: the device cannot sign them (CAPABILITIES MEAS_CAP 1)"
	expect evidence.generation nonce skip "only the measurements' signature binds the nonce, and it cannot be checked here"
}

@test "decoding slips: bytes after ALGORITHMS, and a MEASUREMENTS of another version than the VCA's, are malformed" {
	mount_live evidence-signature
	d=$BATS_TEST_TMPDIR/slip
	ev 01:00.0 --fresh -o "$d" >/dev/null
	cp "$d/vca.bin" "$BATS_TEST_TMPDIR/vca"
	# the VCA object with a GET_DIGESTS after it
	{ cat "$BATS_TEST_TMPDIR/vca"; printf '\x13\x81\x00\x00'; } > "$d/vca.bin"
	reseal "$d" vca
	from "$d" --trust "$TRUST"
	expect_status 1
	[ "$(result_in "$output" evidence.decode vca)" = "fail: malformed at offset $(stat -c %s "$BATS_TEST_TMPDIR/vca"): 4 bytes after ALGORITHMS: the VCA is the six messages from GET_VERSION to ALGORITHMS and nothing else" ]
	# a VCA that negotiated 1.2 beside the device's 1.3 response
	cp "$CERTS/spdm12-ecdsa-p384.vca" "$d/vca.bin"
	reseal "$d" vca
	from "$d" --trust "$TRUST"
	expect_status 1
	[ "$(result_in "$output" evidence.decode vca)" = "pass: well-formed: SPDM 1.2 negotiated in six messages" ]
	[ "$(result_in "$output" evidence.decode measurements)" = "fail: malformed at offset 0: MEASUREMENTS speaks SPDM 1.3, the VCA negotiated 1.2" ]
}

@test "the simulator's signature verifies with the openssl command line alone, and not over another nonce" {
	mount_live evidence-signature
	leaf=$BATS_TEST_TMPDIR/leaf.pem
	sed -n '/BEGIN/,/END/p' "$CERTS/ecdsa-p384.chain.pem" | awk '/BEGIN/ { n++ } n == 3' > "$leaf"
	nonce=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
	d=$BATS_TEST_TMPDIR/r
	ev 01:00.0 --nonce "$nonce" -o "$d" >/dev/null
	run "$TOP/tests/lib/meas-sig-openssl" "$d/vca.bin" "$d/measurements.bin" "$leaf" "$nonce"
	[ "$output" = verified ]
	run "$TOP/tests/lib/meas-sig-openssl" "$d/vca.bin" "$d/measurements.bin" "$leaf" "ff${nonce:2}"
	[ "$status" -eq 1 ]
	[ "$output" = "not verified" ]
	# request || response, and the transcript with its VCA
	ev 06:00.0 --nonce "$nonce" -o "$BATS_TEST_TMPDIR/x" >/dev/null
	run "$TOP/tests/lib/meas-sig-openssl" "$BATS_TEST_TMPDIR/x/vca.bin" "$BATS_TEST_TMPDIR/x/measurements.bin" "$leaf"
	[ "$output" = verified ]
	ev 07:00.0 --nonce "$nonce" -o "$BATS_TEST_TMPDIR/t" >/dev/null
	run "$TOP/tests/lib/meas-sig-openssl" - "$BATS_TEST_TMPDIR/t/measurements.bin" "$leaf"
	[ "$output" = verified ]
	# the request the transcript carries (SPDM 1.2, a signature, every block) holds the nonce sent
	od -An -tx1 -v "$BATS_TEST_TMPDIR/t/measurements.bin" | tr -d ' \n' | grep -q "12e001ff${nonce}00"
}
