#!/usr/bin/env bats
# tsmctl against forged measurements: tests/hostile/forge-measurements makes,
# from directories `evidence -o` saved of genuine signed evidence (the bare
# response, request || response, the whole transcript), copies whose
# measurements were replayed under another nonce, truncated, extended,
# their signature zeroed or cut off, one bit flipped in each part, every
# manifest resealed to fit. Each is judged with --from --verify and decoded
# with -v: nothing may crash, every document is valid JSON of its schema,
# none passes evidence.signature, and every one exits 1.
#
# The copies are made once, in setup_file; the tests check them.

load lib/helpers

CERTS=$TOP/tests/sim/certs

setup_file() {
	[ -r "$CERTS/all-types.reference.json" ] || return 0
	local root=$BATS_FILE_TMPDIR/live dev
	mkdir -p "$root" "$BATS_FILE_TMPDIR/trust" "$BATS_FILE_TMPDIR/forged"
	cp "$CERTS"/*.root.pem "$BATS_FILE_TMPDIR/trust"/
	"$SIM" mount "$TOPO/evidence-signature.json" "$root"
	# 01 the bare response, 06 request || response, 07 the whole transcript
	for dev in 01 06 07; do
		TSMCTL_EVIDENCE_SOCKET=$(cat "$root/tsm-sim-evidence") "$TSMCTL" --sysroot "$root" \
			evidence "$dev:00.0" --fresh -o "$BATS_FILE_TMPDIR/genuine-$dev" >/dev/null
		"$TOP/tests/hostile/forge-measurements" "$BATS_FILE_TMPDIR/genuine-$dev" \
			"$BATS_FILE_TMPDIR/forged/$dev"
	done
	fusermount3 -u "$root" 2>/dev/null || fusermount3 -uz "$root"
}

setup() {
	[ -r "$CERTS/all-types.reference.json" ] || skip "make -C tests/sim builds the evidence objects"
}

# verdict DIR: --verify -J of a forged copy, no kernel involved.
verdict() {
	run --separate-stderr env -u TSMCTL_EVIDENCE_SOCKET "$TSMCTL" evidence --from "$1" --verify -J \
		--trust "$BATS_FILE_TMPDIR/trust"
}

# "status: message" of check ID about OBJECT in $output.
result() {
	printf '%s' "$output" | jq -r --arg id "$1" --arg obj "$2" \
		'[.checks[] | select(.id == $id and .object == $obj) | .status + ": " + .message] |
		 if length == 1 then .[0] else "\(length) results" end'
}

@test "forged measurements: the generator made every case of every form, and the genuine ones verify" {
	for dev in 01 06 07; do
		[ "$(ls "$BATS_FILE_TMPDIR/forged/$dev" | wc -l)" -eq 15 ]
		verdict "$BATS_FILE_TMPDIR/genuine-$dev"
		[ "$(printf '%s' "$output" | jq .summary.fail)" -eq 0 ]
		[[ "$(result evidence.signature measurements)" == "pass: signed by slot 0's leaf"* ]]
	done
}

@test "forged measurements: every copy exits 1, none passes evidence.signature, every document validates" {
	local dir n=0 manifest=$BATS_TEST_TMPDIR/json
	: > "$manifest"
	for dir in "$BATS_FILE_TMPDIR"/forged/*/*; do
		verdict "$dir"
		[ "$status" -eq 1 ] || { echo "$dir: exit $status"; return 1; }
		[ -z "$stderr" ] || { echo "$dir: $stderr"; return 1; }
		[[ "$(result evidence.signature measurements)" != pass* ]] || { echo "$dir passed"; return 1; }
		n=$((n + 1))
		printf '%s' "$output" > "$BATS_TEST_TMPDIR/v$n.json"
		printf 'evidence-verify\tdoc\t%s\t%s\n' "$BATS_TEST_TMPDIR/v$n.json" "$dir" >> "$manifest"
		# the decoded view of the same bytes: no crash, one document
		run --separate-stderr env -u TSMCTL_EVIDENCE_SOCKET "$TSMCTL" evidence --from "$dir" -v -J
		[ "$status" -eq 0 ] || { echo "$dir -v: exit $status: $stderr"; return 1; }
		printf '%s' "$output" > "$BATS_TEST_TMPDIR/d$n.json"
		printf 'evidence\tdoc\t%s\t%s -v\n' "$BATS_TEST_TMPDIR/d$n.json" "$dir" >> "$manifest"
	done
	[ "$n" -eq 45 ]
	"$TOP/tests/lib/check-json" "$TOP/schema" "$manifest"
}

@test "forged measurements: a replayed signature with another nonce fails, bare or with its request" {
	verdict "$BATS_FILE_TMPDIR/forged/01/replayed-nonce"
	[[ "$(result evidence.signature measurements)" == "fail: the signature does not verify with slot 0's leaf"*"answering another nonce (a replay)" ]]
	[ "$(result evidence.generation nonce)" = "skip: not shown: the measurements' signature does not vouch for the nonce sent (evidence.signature)" ]
	for dev in 06 07; do
		verdict "$BATS_FILE_TMPDIR/forged/$dev/replayed-nonce"
		[[ "$(result evidence.signature measurements)" == "fail: signed by slot 0's leaf"*", but over a GET_MEASUREMENTS with nonce "*"a response replayed from another request" ]]
		[[ "$(result evidence.generation nonce)" == "fail: the transcript's GET_MEASUREMENTS carries another nonce than the one sent"* ]]
	done
}

@test "forged measurements: a truncated transcript fails to decode; a stripped signature is unsigned where the device signs" {
	local dev n
	for dev in 01 06 07; do
		for n in 1 10 95 97; do
			verdict "$BATS_FILE_TMPDIR/forged/$dev/truncated-$n"
			[[ "$(result evidence.decode measurements)" == "fail: malformed at offset "* ]] ||
				{ echo "$dev truncated-$n: $(result evidence.decode measurements)"; return 1; }
			[ "$(result evidence.signature measurements)" = "skip: parent check evidence.decode failed (measurements)" ]
		done
	done
	# 96 bytes off a bare response leave it whole and unsigned
	verdict "$BATS_FILE_TMPDIR/forged/01/truncated-96"
	[[ "$(result evidence.signature measurements)" == "fail: the measurements are unsigned, yet CAPABILITIES says the device signs them (MEAS_CAP 2)"* ]]
	# a carried request that asked for a signature has none after its response
	for dev in 06 07; do
		verdict "$BATS_FILE_TMPDIR/forged/$dev/no-signature"
		[[ "$(result evidence.decode measurements)" == *"GET_MEASUREMENTS asked for a signature, and none follows its response" ]]
	done
}
