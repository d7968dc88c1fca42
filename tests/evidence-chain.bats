#!/usr/bin/env bats
# Chains walked as DSP0274 and libspdm walk them, the interface report bound
# to its function, and --pin, with forged evidence (the hostile cases: a
# decoy root, a shuffled chain, a foreign certificate, a report naming
# another function): live on the simulator's evidence-forged topology, and
# from saved directories whose cert0 is a chain the openssl command line made
# (tests/vectors/gen-chains, committed in tests/vectors/chains/).

load lib/helpers

CERTS=$TOP/tests/sim/certs
VEC=$TOP/tests/vectors/chains

setup() {
	[ -r "$CERTS/ecdsa-p384-decoy.spdm-chain" ] || skip "make -C tests/sim builds the evidence objects"
	TRUST=$BATS_TEST_TMPDIR/trust
	mkdir -p "$TRUST" "$BATS_TEST_TMPDIR/empty"
	cp "$CERTS"/*.root.pem "$TRUST"/
}

teardown() {
	unmount_live
}

ev() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" evidence "$@"
}

# "status: message" of check ID about OBJECT in $output ("N results" unless exactly one).
result() {
	printf '%s' "$output" | jq -r --arg id "$1" --arg obj "$2" \
		'[.checks[] | select(.id == $id and .object == $obj) | .status + ": " + .message] |
		 if length == 1 then .[0] else "\(length) results" end'
}

# from DIR [OPTIONS]: --verify -J of a saved directory, no kernel involved.
from() {
	local dir=$1
	shift
	run --separate-stderr env -u TSMCTL_EVIDENCE_SOCKET "$TSMCTL" evidence --from "$dir" --verify -J "$@"
}

# A saved copy of the good device 08:00.0 (SPDM 1.3, SHA-384), once per test: $SAVED.
# It uses the test's mount when there is one, else a mount of its own it ends.
save_good() {
	local own=
	SAVED=$BATS_TEST_TMPDIR/good
	[ -d "$SAVED" ] && return 0
	if [ -z "${ROOT:-}" ] || ! mountpoint -q "$ROOT"; then
		mount_live evidence-forged
		own=1
	fi
	ev 08:00.0 -o "$SAVED" >/dev/null
	if [ -n "$own" ]; then
		unmount_live
		ROOT=
	fi
}

# put_object DIR TYPE FILE: FILE becomes DIR's object TYPE, the manifest told its length and digests.
put_object() {
	local dir=$1 type=$2 file=$3 name
	name=$(jq -r --arg t "$type" '.evidence[0].objects[] | select(.type == $t) | .file' "$dir/manifest.json")
	cp "$file" "$dir/$name"
	jq --arg t "$type" --argjson len "$(stat -c %s "$file")" \
		--arg s256 "$(sha256sum "$file" | cut -d' ' -f1)" --arg s384 "$(sha384sum "$file" | cut -d' ' -f1)" \
		'(.evidence[0].objects[] | select(.type == $t)) |= (.length = $len | .sha256 = $s256 | .sha384 = $s384)' \
		"$dir/manifest.json" > "$dir/manifest.new"
	mv "$dir/manifest.new" "$dir/manifest.json"
}

# with_chain NAME FILE: a copy of the good device's directory whose cert0 is FILE, in $DIR.
with_chain() {
	save_good
	DIR=$BATS_TEST_TMPDIR/$1
	cp -a "$SAVED" "$DIR"
	put_object "$DIR" cert0 "$2"
}

# bare CERT...: the vectors' certificates as DER back to back, in $BATS_TEST_TMPDIR/bare.der.
bare() {
	: > "$BATS_TEST_TMPDIR/bare.der"
	for c in "$@"; do
		openssl x509 -in "$VEC/$c.pem" -outform DER >> "$BATS_TEST_TMPDIR/bare.der"
	done
}

sha384_of_pem() {
	openssl x509 -in "$1" -outform DER | sha384sum | cut -d' ' -f1
}

# ---- chains ----

@test "a chain without its root verifies to the trust store's root; RootHash is that root's" {
	mount_live evidence-forged
	run --separate-stderr ev 01:00.0 --verify -J --trust "$TRUST"
	[[ "$(result evidence.chain cert0)" == "pass: verified against $TRUST (2 certificates and the root from the trust store, root CN=tsm-sim root CA, leaf CN=tsm-sim no-root device,"* ]]
	[ "$(result evidence.root-hash cert0)" = "pass: RootHash is the root certificate's sha384 (negotiated BaseHashAlgo); the root is the trust anchor that signed the first certificate" ]
	# without the store the root is nowhere: neither check can pass, --pin cannot vouch for it
	run --separate-stderr ev 01:00.0 --verify -J --trust "$BATS_TEST_TMPDIR/empty" --pin "$BATS_TEST_TMPDIR/pins"
	[[ "$(result evidence.chain cert0)" == "skip: cannot be verified from this evidence: the chain does not carry its root certificate (its first, CN=tsm-sim intermediate CA, is issued by CN=tsm-sim root CA) and no trust store holds it"* ]]
	[[ "$(result evidence.root-hash cert0)" == "skip: cannot be verified from this evidence: the root certificate is not known"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/pins" ]
	# the openssl command line's chain of the same form, from a saved directory
	with_chain no-root "$VEC/no-root.spdm-chain"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	[[ "$(result evidence.chain cert0)" == "pass: verified against $VEC/ecp384.root.pem (2 certificates and the root from the trust store, root CN=vectors ecp384 root CA, leaf CN=vectors ecp384 responder,"* ]]
	[[ "$(result evidence.root-hash cert0)" == "pass: RootHash is the root certificate's sha384"* ]]
}

@test "hostile evidence: a decoy root placed first fails, even when the pin file names it" {
	mount_live evidence-forged
	pins=$BATS_TEST_TMPDIR/pins
	echo "0000:05:00.0 0 $(sha384_of_pem "$CERTS/ecdsa-p384-decoy.decoy.pem")" > "$pins"
	cp "$pins" "$BATS_TEST_TMPDIR/pins.before"
	run --separate-stderr ev 05:00.0 --verify -J --trust "$TRUST" --pin "$pins"
	expect_status 1
	[ "$(result evidence.chain cert0)" = "fail: certificate 1 (CN=tsm-sim root CA) is not signed by certificate 0 (CN=decoy root CA) before it: DSP0274 orders a chain from its root (or one the root signed) to the leaf, each certificate signed by the one before" ]
	[[ "$output" != *"root is the one pinned"* ]]
	cmp "$pins" "$BATS_TEST_TMPDIR/pins.before"
	# without the pin, and with the openssl command line's decoy
	with_chain decoy "$VEC/decoy.spdm-chain"
	echo "0000:08:00.0 0 $(sha384_of_pem "$VEC/other.root.pem")" > "$pins"
	from "$DIR" --trust "$VEC/ecp384.root.pem" --pin "$pins"
	expect_status 1
	[[ "$(result evidence.chain cert0)" == "fail: certificate 1 (CN=vectors ecp384 root CA) is not signed by certificate 0 (CN=vectors other root CA) before it:"* ]]
}

@test "hostile evidence: a shuffled chain and a foreign certificate inserted fail" {
	mount_live evidence-forged
	run --separate-stderr ev 06:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[[ "$(result evidence.chain cert0)" == "fail: certificate 1 (CN=tsm-sim root CA) is not signed by certificate 0 (CN=tsm-sim intermediate CA) before it:"* ]]
	run --separate-stderr ev 07:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[[ "$(result evidence.chain cert0)" == "fail: certificate 1 (CN=foreign device) is not signed by certificate 0 (CN=tsm-sim root CA) before it:"* ]]
	with_chain shuffled "$VEC/shuffled.spdm-chain"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	expect_status 1
	[[ "$(result evidence.chain cert0)" == "fail: certificate 1 (CN=vectors ecp384 root CA) is not signed by certificate 0 (CN=vectors ecp384 intermediate) before it:"* ]]
	with_chain foreign "$VEC/foreign.spdm-chain"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	expect_status 1
	[[ "$(result evidence.chain cert0)" == "fail: certificate 1 (CN=vectors other device) is not signed by certificate 0 (CN=vectors ecp384 root CA) before it:"* ]]
}

@test "libspdm's sample responder profiles pass; the leaves that break its rules fail" {
	for set in ecp256 ecp384 rsa2048 rsa3072; do
		bare "$set.root" "$set.inter" "$set.leaf"
		with_chain "$set" "$BATS_TEST_TMPDIR/bare.der"
		from "$DIR" --trust "$VEC/$set.root.pem"
		[[ "$(result evidence.chain cert0)" == "pass: verified against $VEC/$set.root.pem (3 certificates, root CN=vectors $set root CA, leaf CN=vectors $set responder,"* ]]
	done
	# the saved VCA speaks SPDM 1.3: basicConstraints is required there
	for leaf in no-ku:"the leaf has no keyUsage" ku-no-ds:"the leaf's keyUsage lacks digitalSignature" \
		v1:"the leaf is an X.509 v1 certificate, not v3" ca:"the leaf's basicConstraints is not cA FALSE" \
		no-bc:"the leaf has no basicConstraints, which SPDM 1.3 requires (cA FALSE)" \
		req-eku:"the leaf's extendedKeyUsage names id-DMTF-eku-requester-auth (1.3.6.1.4.1.412.274.4) without"; do
		bare ecp384.root ecp384.inter "leaf-${leaf%%:*}"
		with_chain "leaf-${leaf%%:*}" "$BATS_TEST_TMPDIR/bare.der"
		from "$DIR" --trust "$VEC/ecp384.root.pem"
		expect_status 1
		[[ "$(result evidence.chain cert0)" == "fail: ${leaf#*:}"* ]] ||
			{ echo "leaf-${leaf%%:*}: $(result evidence.chain cert0)"; return 1; }
	done
	for leaf in req-rsp-eku rsp-eku no-eku no-hwid; do
		bare ecp384.root ecp384.inter "leaf-$leaf"
		with_chain "leaf-$leaf" "$BATS_TEST_TMPDIR/bare.der"
		from "$DIR" --trust "$VEC/ecp384.root.pem"
		[[ "$(result evidence.chain cert0)" == "pass: verified against "* ]] ||
			{ echo "leaf-$leaf: $(result evidence.chain cert0)"; return 1; }
	done
}

@test "a chain header that does not fit says why, not that a certificate was expected at offset 0" {
	head -c 1000 "$VEC/good.spdm-chain" > "$BATS_TEST_TMPDIR/cut.spdm-chain"
	with_chain cut "$BATS_TEST_TMPDIR/cut.spdm-chain"
	from "$DIR"
	expect_status 1
	len=$(stat -c %s "$VEC/good.spdm-chain")
	[ "$(result evidence.decode cert0)" = "fail: malformed at offset 0: the header's Length $len runs past the object's 1000 bytes" ]
}

# ---- --pin ----

@test "--pin: written only for a chain that verified and a verdict that stands, and 'pinned' only once on disk" {
	mount_live evidence-forged
	pins=$BATS_TEST_TMPDIR/pins
	# a failed chain, and a good chain whose report fails: nothing pinned
	run --separate-stderr ev 05:00.0 --verify --pin "$pins"
	expect_status 1
	run --separate-stderr ev 03:00.0 --verify --pin "$pins"
	expect_status 1
	[ ! -e "$pins" ]
	[[ "$stderr" != *pinned* ]]
	# a pin file that cannot be written: an error, never "pinned"
	run --separate-stderr ev 08:00.0 --verify --pin "$BATS_TEST_TMPDIR/no-such-dir/pins"
	expect_status 1
	[[ "$stderr" == "tsmctl evidence: --pin $BATS_TEST_TMPDIR/no-such-dir/pins"* ]]
	[[ "$stderr" != *pinned* ]]
	# first use: the result says it would be pinned; the note says it was, once it is
	run --separate-stderr ev 08:00.0 --verify --pin "$pins"
	expect_status 0
	[[ "$output" == *"trust on first use: verified to its own root, which no trust anchor issued and $pins does not hold yet; it would be pinned there"* ]]
	root=$(sha384_of_pem "$CERTS/ecdsa-p384.root.pem")
	[ "$stderr" = "tsmctl evidence: pinned 0000:08:00.0 slot 0 (SHA-384 ${root:0:16}...) in $pins" ]
	grep -qx "0000:08:00.0 0 $root" "$pins"
	# vouched for from then on; the file is not written again
	cp "$pins" "$BATS_TEST_TMPDIR/pins.before"
	run --separate-stderr ev 08:00.0 --verify -J --pin "$pins"
	expect_status 0
	[[ "$(result evidence.chain cert0)" == "pass: verified to the root pinned in $pins (3 certificates, root CN=tsm-sim root CA,"* ]]
	[ -z "$stderr" ]
	cmp "$pins" "$BATS_TEST_TMPDIR/pins.before"
}

# ---- the interface report bound to its function ----

@test "hostile evidence: a report naming another function fails evidence.binding" {
	mount_live evidence-forged
	run --separate-stderr ev 02:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[ "$(result evidence.binding report)" = "fail: INTERFACE_ID names 0000:99:00.0, not 0000:02:00.0, the function judged" ]
	# the same response on its own function: a pass
	run --separate-stderr ev 01:00.0 --verify -J --trust "$TRUST"
	[ "$(result evidence.binding report)" = "pass: INTERFACE_ID names 0000:01:00.0, the function judged; every reserved bit is 0" ]
	# a report structure (no INTERFACE_ID) is the function's the kernel read it for
	run --separate-stderr ev 08:00.0 --verify -J --trust "$TRUST"
	[ "$(result evidence.binding report)" = "pass: every reserved bit is 0; the report structure names no function (a whole TDISP response carries INTERFACE_ID): it is 0000:08:00.0's as the kernel read it" ]
}

@test "a report with reserved bits set, or two ranges sharing a page, fails" {
	mount_live evidence-forged
	run --separate-stderr ev 03:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[ "$(result evidence.binding report)" = "fail: INTERFACE_INFO sets reserved bits 0x0020; range 0's attributes set reserved bits 0x0010" ]
	run --separate-stderr ev 04:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[ "$(result evidence.report-ranges report)" = "fail: ranges 0 and 4 overlap" ]
	[[ "$(result evidence.report-ranges report)" != *"by offset"* ]]
}

@test "ranges far from their BAR fail: their absolute addresses are checked, not their offsets" {
	mount_live evidence-forged
	run --separate-stderr ev 09:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	[[ "$(result evidence.report-ranges report)" == "fail: range 0 (2 pages at BAR 0 +0x40000000) ends past BAR 0 (0x200000 bytes); "* ]]
}

@test "the function's Device Serial Number against the leaf's device-info serial" {
	bare ecp384.root ecp384.inter leaf-dsn
	with_chain dsn "$BATS_TEST_TMPDIR/bare.der"
	# no serial_number saved: nothing to compare, no result
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	[ "$(result evidence.binding cert0)" = "0 results" ]
	echo 00-11-22-33-44-55-66-77 > "$DIR/serial_number"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	[ "$(result evidence.binding cert0)" = "pass: the leaf's device-info serial 00-11-22-33-44-55-66-77 is the function's Device Serial Number" ]
	echo 00-11-22-33-44-55-66-78 > "$DIR/serial_number"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	expect_status 1
	[ "$(result evidence.binding cert0)" = "fail: the leaf's device-info names the serial 00-11-22-33-44-55-66-77, but the function's Device Serial Number is 00-11-22-33-44-55-66-78" ]
	# a leaf whose serial is no DSN ("1234567890", libspdm's sample): not compared
	bare ecp384.root ecp384.inter ecp384.leaf
	put_object "$DIR" cert0 "$BATS_TEST_TMPDIR/bare.der"
	from "$DIR" --trust "$VEC/ecp384.root.pem"
	[ "$(result evidence.binding cert0)" = "0 results" ]
}
