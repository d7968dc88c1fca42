#!/usr/bin/env bats
# tsmctl evidence -v and --verify, accept --verify and audit's device.evidence
# against the simulator's evidence-host and evidence-guest topologies, whose
# devices carry the objects tests/sim/gen-cert-chain and gen-evidence build:
# every check passes, fails and skips on a live mount, and the same from the
# directory `evidence -o` saved (--from), read with no kernel involved. The
# decision over the results (exit status, accept, audit) is fail-closed: until
# the measurements' signature is checked (evidence.signature), no device here
# is proven, so every --verify exits 1 (tests/evidence-gate.bats has the rule).

load lib/helpers

CERTS=$TOP/tests/sim/certs

setup() {
	[ -r "$CERTS/all-types.reference.json" ] || skip "make -C tests/sim builds the evidence objects"
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

act() {
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") "$TSMCTL" --sysroot "$ROOT" "$@"
}

ctl() {
	echo "$*" > "$ROOT/tsm-sim-control"
}

# judge BDF [OPTIONS]: --verify -J of BDF on the live mount (LIVE, LIVE_STATUS), then
# of the copy -o saved (SAVED, SAVED_STATUS, directory SAVED_DIR).
judge() {
	local bdf=$1
	shift
	SAVED_DIR=$(mktemp -d "$BATS_TEST_TMPDIR/saved.XXXXXX")
	run --separate-stderr ev "$bdf" --verify -J "$@"
	LIVE=$output
	LIVE_STATUS=$status
	ev "$bdf" -o "$SAVED_DIR" >/dev/null
	from "$SAVED_DIR" "$@"
	SAVED=$output
	SAVED_STATUS=$status
}

# from DIR [OPTIONS]: --verify -J of a saved directory, no kernel (no socket) involved.
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

# Both runs exited with STATUS.
both_exit() {
	[ "$LIVE_STATUS" -eq "$1" ] && [ "$SAVED_STATUS" -eq "$1" ] ||
		{ echo "exit: live $LIVE_STATUS, saved $SAVED_STATUS, expected $1"; return 1; }
}

# ---- a good device: everything that can be checked passes ----

@test "a good device: every check passes live and from -o's copy; what the evidence cannot show is skip" {
	mount_live evidence-host
	judge 01:00.0 --trust "$TRUST" --reference "$CERTS/all-types.reference.json"
	# every check passes, and still nothing binds the measurements to the chain: not proven
	both_exit 1
	for obj in cert0 cert1 vca measurements report; do
		expect evidence.decode "$obj" pass "well-formed"
	done
	expect evidence.chain cert0 pass "verified against $TRUST (3 certificates, root CN=tsm-sim root CA, leaf CN=tsm-sim ECDSA P-384 device, ec 384"
	expect evidence.chain cert1 pass "leaf CN=tsm-sim RSA-3072 device, rsa 3072"
	expect evidence.root-hash cert0 pass "RootHash is the root certificate's sha384 (negotiated BaseHashAlgo)"
	expect evidence.algorithms vca pass "SPDM 1.3: ecdsa_p384 with the ec 384 key of slot 0's leaf, sha384, measurements sha384; all allowed by the reference"
	for i in 1 2 3 4 5 6 7 8 9 253 254; do
		expect evidence.measurements "measurements/$i" pass "index $i"
	done
	expect evidence.measurements measurements/2 pass "(mutable_firmware): the digest is one of the 2 the reference accepts"
	expect evidence.measurements measurements/5 pass "(version): the raw value is one of the 1"
	expect evidence.measurements measurements/device-mode pass "index 254: operational mode normal, device mode state none"
	expect evidence.measurements measurements/svn pass "index 6: security version 7, at least the 7 required"
	# the bare response's request is rebuilt from a nonce of ours: without one, not verified
	expect evidence.signature measurements skip "cannot be verified from this evidence: a bare MEASUREMENTS response: the GET_MEASUREMENTS it answers is not handed out, and no nonce of this reader's was sent to rebuild it"
	expect evidence.report-ranges report pass "4 ranges inside their BARs, as 4 KiB pages (BAR 0: 4); MSI-X table (BAR 0 +0x2000) and PBA (BAR 0 +0x3000) where the capability puts them; non-TEE: range 1 (BAR 0 +0x2000, 1 page), range 2 (BAR 0 +0x3000, 1 page)"
	expect evidence.generation evidence pass "all 11 objects are of generation 1"
	expect evidence.generation nonce skip "no nonce was sent"
	# nothing else is not a pass, and the document is audit's family
	for doc in "$LIVE" "$SAVED"; do
		[ "$(printf '%s' "$doc" | jq -c '[.checks[] | select(.status != "pass") | .id + " " + .object]')" = '["evidence.signature measurements","evidence.generation nonce"]' ]
		[ "$(printf '%s' "$doc" | jq -c '[.schema_version, .bdf, .generation, .summary.fail, .summary.total == (.checks | length)]')" = '[1,"0000:01:00.0",1,0,true]' ]
		[ "$(printf '%s' "$doc" | jq -c '[.decision.verdict, .decision.accepted, [.decision.refused[] | .check + " " + .object]]')" = \
			'["unproven",false,["evidence.signature measurements","evidence.generation nonce"]]' ]
	done
	[ "$(printf '%s' "$LIVE" | jq -r .source)$(printf '%s' "$SAVED" | jq -r .source)" = kerneldirectory ]
	# the table: one line per result in audit's form, the counts, the decision last
	run ev 01:00.0 --verify --trust "$TRUST"
	expect_status 1
	[[ "${lines[0]}" =~ ^pass\ +evidence\.decode\ +cert0\ +well-formed:\ 3\ certificates,\ with\ the\ DSP0274\ header$ ]]
	[[ "${lines[-2]}" =~ ^[0-9]+\ results:\ [0-9]+\ pass,\ 0\ warn,\ 0\ fail,\ [0-9]+\ skip,\ 0\ needs-root$ ]]
	[[ "${lines[-1]}" == "0000:01:00.0: evidence of generation 1 does not prove the device: evidence.signature measurements: cannot be verified from this evidence: "*" (--allow-unsigned-measurements takes this risk); evidence.measurements measurements: no reference manifest: 11 blocks not judged (--allow-no-reference takes this risk); "* ]]
	run ev 01:00.0 --verify --trust "$TRUST" -v
	[[ "$output" =~ skip\ +evidence\.measurements\ +measurements\ +no\ reference\ manifest:\ 11\ blocks\ not\ judged\ \[--allow-no-reference\ takes\ this\ risk\]$'\n'\ +hint:\ write\ the\ vendor\'s\ reference\ values\ into\ a\ manifest ]]
}

# ---- evidence.chain ----

@test "evidence.chain fails an expired, a not yet valid, a foreign-issued and a self-signed leaf" {
	mount_live evidence-host
	judge 02:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.chain cert0 fail "certificate has expired (certificate CN=tsm-sim expired device)"
	[[ "$(printf '%s' "$LIVE" | jq -r '.checks[] | select(.id == "evidence.chain") | .hint')" == "the certificate expired on "*": the vendor must provision the device anew (or this machine's clock is wrong)" ]]
	judge 03:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.chain cert0 fail "certificate is not yet valid (certificate CN=tsm-sim not-yet-valid device)"
	judge 04:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.chain cert0 fail "certificate 2 (CN=tsm-sim wrong-issuer device) is not signed by certificate 1 (CN=tsm-sim intermediate CA) before it"
	judge 05:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.chain cert0 fail "certificate 2 (CN=tsm-sim self-signed device) is not signed by certificate 1 (CN=tsm-sim intermediate CA) before it"
	# a good chain whose root is not in the store
	judge 01:00.0 --trust "$CERTS/ecdsa-p384-expired.root.pem"
	expect evidence.chain cert0 fail "self-signed certificate in certificate chain"
	# --partial-chain lets the intermediate anchor it
	sed -n '/BEGIN/,/END/p' "$CERTS/ecdsa-p384.chain.pem" | awk '/BEGIN/ { n++ } n == 2' > "$BATS_TEST_TMPDIR/int.pem"
	judge 01:00.0 --trust "$BATS_TEST_TMPDIR/int.pem"
	expect evidence.chain cert0 fail
	judge 01:00.0 --trust "$BATS_TEST_TMPDIR/int.pem" --partial-chain
	expect evidence.chain cert0 pass "verified against $BATS_TEST_TMPDIR/int.pem"
}

@test "evidence.chain skips without a trust store, saying how to make one" {
	mount_live evidence-host
	judge 01:00.0 --trust "$BATS_TEST_TMPDIR/empty"
	both_exit 1
	expect evidence.chain cert0 skip "no trust store: $BATS_TEST_TMPDIR/empty holds no certificate"
	[[ "$(printf '%s' "$SAVED" | jq -r '.checks[] | select(.id == "evidence.chain" and .object == "cert0") | .hint')" == "put the device vendors' root CA certificates (PEM) in $BATS_TEST_TMPDIR/empty, or name a store with --trust FILE|DIR; --pin FILE trusts the first root seen" ]]
	if [ ! -e /etc/tsmctl/trust.d ]; then
		judge 01:00.0
		expect evidence.chain cert1 skip "no trust store: /etc/tsmctl/trust.d does not exist"
	fi
	# a store named that is not there is an error, not a skip
	run ev 01:00.0 --verify --trust "$BATS_TEST_TMPDIR/nowhere"
	expect_status 1
	[[ "$output" == "tsmctl evidence: $BATS_TEST_TMPDIR/nowhere: No such file or directory" ]]
	echo "not a certificate" > "$BATS_TEST_TMPDIR/junk.pem"
	run ev 01:00.0 --verify --trust "$BATS_TEST_TMPDIR/junk.pem"
	expect_status 1
	[[ "$output" == *"junk.pem: no certificate (PEM or DER) in it" ]]
}

@test "--pin: a root is recorded only when the decision accepts; a recorded one is compared, a change fails" {
	mount_live evidence-host
	pins=$BATS_TEST_TMPDIR/pins
	judge 01:00.0 --trust "$BATS_TEST_TMPDIR/empty" --pin "$pins"
	both_exit 1
	# a first use the decision refused records nothing: a later read would take it as vouched for
	[[ "$(result_in "$LIVE" evidence.chain cert0)" == "skip: trust on first use: verified to its own root, which no trust anchor issued and $pins does not hold yet; it would be pinned there"* ]]
	[ "$(printf '%s' "$LIVE" | jq -r .decision.verdict)" = unproven ]
	[ ! -e "$pins" ]
	# the roots recorded as an accepting decision writes them: compared
	root0=$(openssl x509 -in "$CERTS/ecdsa-p384.root.pem" -outform DER | sha384sum | cut -d' ' -f1)
	root1=$(openssl x509 -in "$CERTS/rsa-3072.root.pem" -outform DER | sha384sum | cut -d' ' -f1)
	printf '0000:01:00.0 0 %s\n0000:01:00.0 1 %s\n' "$root0" "$root1" > "$pins"
	judge 01:00.0 --trust "$BATS_TEST_TMPDIR/empty" --pin "$pins"
	both_exit 1
	expect evidence.chain cert0 pass "verified to the root pinned in $pins (3 certificates, root CN=tsm-sim root CA, "
	expect evidence.chain cert1 pass "verified to the root pinned in $pins"
	# another device's root in the pinned slot: a failure, the pin file untouched
	sed -i "s/^0000:01:00.0 0 .*/0000:01:00.0 0 $(printf '%096d' 0)/" "$pins"
	cp "$pins" "$BATS_TEST_TMPDIR/pins.before"
	judge 01:00.0 --trust "$TRUST" --pin "$pins"
	both_exit 1
	expect evidence.chain cert0 fail "the root changed since it was pinned in $pins"
	expect evidence.chain cert1 pass "root is the one pinned in $pins"
	cmp "$pins" "$BATS_TEST_TMPDIR/pins.before"
	printf 'garbage\n' > "$pins"
	run ev 01:00.0 --verify --pin "$pins"
	expect_status 1
	[[ "$output" == *"$pins:1: not \"BDF SLOT SHA-384\""* ]]
}

# ---- evidence.root-hash ----

@test "evidence.root-hash: the negotiated hash of the root; a zero RootHash fails; bare DER and no VCA" {
	mount_live evidence-host
	judge 06:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.root-hash cert0 fail "RootHash $(printf '%096d' 0) is not the root certificate's sha384 "
	expect evidence.chain cert0 pass
	judge 0a:00.0 --trust "$TRUST"
	expect evidence.root-hash cert0 skip "cannot be verified from this evidence: the chain came without its DSP0274 header"
	expect evidence.decode cert0 pass "bare DER (no DSP0274 header)"
	expect evidence.chain cert0 pass
	# without the VCA (a provider that leaves it empty), the lengths that fit say
	ev 01:00.0 -o "$BATS_TEST_TMPDIR/novca" >/dev/null
	d=$BATS_TEST_TMPDIR/novca
	rm "$d/vca.bin"
	jq '(.evidence[0].objects[] | select(.type == "vca")) |= (.length = 0 | .sha256 = null | .sha384 = null | .file = null)' \
		"$d/manifest.json" > "$d/m" && mv "$d/m" "$d/manifest.json"
	from "$d" --trust "$TRUST"
	[ "$(result_in "$output" evidence.root-hash cert0)" = "pass: without the VCA the hash algorithm is not known: the 48-byte RootHash is the root certificate's sha384 (header lengths that fitted: 48)" ]
	[ "$(result_in "$output" evidence.algorithms vca)" = "skip: cannot be verified from this evidence: the VCA transcript is empty, so the negotiated algorithms are not known" ]
}

# ---- evidence.algorithms ----

@test "evidence.algorithms: a P-256 selection for a P-384 leaf fails, so does one the reference does not allow" {
	mount_live evidence-host
	judge 09:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.algorithms vca fail "the leaf's key is ec 384 secp384r1, the negotiated BaseAsymAlgo ecdsa_p256 needs ec 256 prime256v1"
	judge 01:00.0 --trust "$TRUST" --reference "$CERTS/all-types.weak-algorithms.reference.json"
	both_exit 1
	expect evidence.algorithms vca fail "BaseAsymAlgo ecdsa_p384 is not among the reference's"
	judge 0a:00.0 --trust "$TRUST"
	expect evidence.algorithms vca skip "the VCA transcript is empty"
}

# ---- evidence.measurements ----

@test "evidence.measurements: each broken manifest fails the index it breaks; none given is skip" {
	mount_live evidence-host
	refs=$CERTS/all-types
	judge 01:00.0 --trust "$TRUST" --reference "$refs.wrong-digest.reference.json"
	both_exit 1
	expect evidence.measurements measurements/2 fail "index 2 (mutable_firmware): the digest"
	expect evidence.measurements measurements/1 pass
	judge 01:00.0 --trust "$TRUST" --reference "$refs.wrong-value.reference.json"
	expect evidence.measurements measurements/5 fail "index 5 (version): the raw value \"2.4.1\" is none of the 1 the reference accepts"
	judge 01:00.0 --trust "$TRUST" --reference "$refs.low-svn.reference.json"
	expect evidence.measurements measurements/svn fail "index 6: security version 7, the reference requires 9 or later"
	judge 01:00.0 --trust "$TRUST" --reference "$refs.wrong-mode.reference.json"
	expect evidence.measurements measurements/device-mode fail "index 254: operational mode normal, the reference requires manufacturing"
	judge 01:00.0 --trust "$TRUST" --reference "$refs.missing-index.reference.json"
	expect evidence.measurements measurements/42 fail "index 42 is in the reference manifest but not in the measurements"
	judge 01:00.0 --trust "$TRUST" --reference "$refs.unknown-index.reference.json"
	both_exit 1
	expect evidence.measurements measurements/8 fail "index 8 (informational raw value) is not in the reference manifest"
	# unknown indices may warn instead; a reference with no measurement list leaves them all unknown
	jq '.unknown_indices = "warn" | .measurements = []' "$refs.reference.json" > "$BATS_TEST_TMPDIR/warn.json"
	judge 01:00.0 --trust "$TRUST" --reference "$BATS_TEST_TMPDIR/warn.json"
	both_exit 1	# no failure, and still not proven
	[ "$(printf '%s' "$LIVE" | jq -r .decision.verdict)" = unproven ]
	expect evidence.measurements measurements/1 warn "not in the reference manifest"
	judge 01:00.0 --trust "$TRUST"
	expect evidence.measurements measurements skip "no reference manifest: 11 blocks not judged"
	# the generated SPDM 1.2 measurements of 0a against the all-types manifest
	judge 0a:00.0 --trust "$TRUST" --reference "$refs.reference.json"
	expect evidence.measurements measurements/6 fail "index 6 is in the reference manifest but not in the measurements"
	expect evidence.measurements measurements/svn fail "carry no raw security version number"
	# signed, but without the VCA neither L1 nor the hash is known; the leaf's key sizes the signature
	expect evidence.signature measurements skip "cannot be verified from this evidence: a 96-byte signature, as slot 0's leaf (CN=tsm-sim bare device, ec 384) makes, but without the VCA"
}

@test "a reference manifest that does not parse is refused before the kernel is asked" {
	mount_live evidence-host
	printf '{"schema_version": 1, "measurement": []}' > "$BATS_TEST_TMPDIR/typo.json"
	run ev 01:00.0 --verify --reference "$BATS_TEST_TMPDIR/typo.json"
	expect_status 1
	[ "$output" = "tsmctl evidence: $BATS_TEST_TMPDIR/typo.json: unknown member \"measurement\"" ]
	printf '{"schema_version": 1, "measurements": [{"index": 1, "digests": ["xyz"]}]}' > "$BATS_TEST_TMPDIR/bad.json"
	run ev 01:00.0 --verify --reference "$BATS_TEST_TMPDIR/bad.json"
	expect_status 1
	[[ "$output" == *'measurements[0]: "digests"[0] must be a string of hex digit pairs' ]]
	# every shipped manifest validates against the schema
	for f in "$CERTS"/*.reference.json; do
		printf 'reference\tdoc\t%s\t%s\n' "$f" "$(basename "$f")"
	done > "$BATS_TEST_TMPDIR/man"
	"$TOP/tests/lib/check-json" "$TOP/schema" "$BATS_TEST_TMPDIR/man"
}

# ---- evidence.report-ranges ----

@test "evidence.report-ranges: a range past its BAR and a misplaced MSI-X table fail; without the BARs, skip" {
	mount_live evidence-host
	judge 07:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.report-ranges report fail "range 1 (1 page at BAR 0 +0x200000) ends past BAR 0 (0x200000 bytes)"
	judge 08:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.report-ranges report fail "range 1 is marked MSI-X table but lies at BAR 0 +0x3000 (1 page), where the capability has no MSI-X table (BAR 0 +0x2000, 256 bytes); no range marked MSI-X table holds the one the capability places at BAR 0 +0x2000 (256 bytes)"
	judge 0a:00.0 --trust "$TRUST"
	expect evidence.report-ranges report skip "cannot be verified from this evidence: the interface report is empty"
	# a saved directory without the function's resource file cannot say where the BARs are
	rm "$SAVED_DIR/resource"
	ev 01:00.0 -o "$SAVED_DIR" >/dev/null
	rm "$SAVED_DIR/resource"
	from "$SAVED_DIR" --trust "$TRUST"
	expect_status 1
	[ "$(result_in "$output" evidence.report-ranges report)" = "skip: cannot be verified from this evidence: the saved directory has no resource file of the function, so its BARs are not known" ]
	# and without its config the MSI-X placement cannot be checked
	ev 01:00.0 -o "$SAVED_DIR" >/dev/null
	rm "$SAVED_DIR/config"
	from "$SAVED_DIR" --trust "$TRUST"
	[[ "$(result_in "$output" evidence.report-ranges report)" == "skip: 4 ranges inside their BARs (BAR 0: 4); MSI-X cannot be verified from this evidence: the saved directory has no config file of the function; non-TEE: "* ]]
}

@test "evidence.report-ranges needs root for MSI-X: config past 64 bytes; never a pass" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	mount_live evidence-host
	open_path_to_root
	chmod -R o+rX "$BATS_TEST_TMPDIR/trust"
	run env TSMCTL_EVIDENCE_SOCKET="$(cat "$ROOT/tsm-sim-evidence")" setpriv --reuid=65534 \
		--regid=65534 --clear-groups --inh-caps +net_admin --ambient-caps +net_admin \
		"$TSMCTL" --sysroot "$ROOT" evidence 01:00.0 --verify -J --trust "$TRUST"
	expect_status 1
	json_is .decision.verdict '"needs-root"'
	[[ "$(result_in "$output" evidence.report-ranges report)" == "needs-root: 4 ranges inside their BARs (BAR 0: 4); MSI-X cannot be verified from this evidence: config space past the 64-byte header needs root; "* ]]
}

# ---- evidence.generation and evidence.decode ----

@test "evidence.generation: one generation; a nonce's refresh is seen live, not from a copy; mixed reads fail" {
	mount_live evidence-host
	run --separate-stderr ev 01:00.0 --verify -J --trust "$TRUST" --fresh
	expect_status 1
	[ "$(result_in "$output" evidence.generation refresh)" = "pass: the nonce refreshed the evidence: generation 1 before, 2 after" ]
	[ "$(result_in "$output" evidence.generation nonce)" = "pass: the measurements are signed over the 32-byte nonce this reader sent: made for this read" ]
	[[ "$(result_in "$output" evidence.signature measurements)" == "pass: signed by slot 0's leaf"* ]]
	d=$BATS_TEST_TMPDIR/fresh
	ev 01:00.0 --fresh -o "$d" >/dev/null
	from "$d" --trust "$TRUST"
	[ "$(result_in "$output" evidence.generation evidence)" = "pass: all 11 objects are of generation 3 (as the saved manifest records)" ]
	[ "$(result_in "$output" evidence.generation refresh)" = "skip: cannot be verified from this evidence: a saved directory does not record the generation before the nonce's refresh" ]
	# the copy's signature verifies as the live one did; its nonce is only the manifest's word
	[[ "$(result_in "$output" evidence.signature measurements)" == "pass: signed by slot 0's leaf"* ]]
	[ "$(result_in "$output" evidence.generation nonce)" = "skip: the measurements are signed over the nonce the saved manifest records; a saved directory cannot show who sent it, or when" ]
	# a directory put together from two reads
	jq '(.evidence[0].objects[] | select(.type == "report")).generation = 5' "$d/manifest.json" > "$d/m"
	mv "$d/m" "$d/manifest.json"
	from "$d" --trust "$TRUST"
	expect_status 1
	[ "$(result_in "$output" evidence.generation evidence)" = "fail: the objects are of generations 3 to 5: the directory mixes reads" ]
	# one object saved with -t: --verify judges every object, so it refuses and says what is missing
	d=$BATS_TEST_TMPDIR/one
	ev 01:00.0 -t report -o "$d" >/dev/null
	from "$d" --trust "$TRUST"
	expect_status 1
	[[ "$stderr" == "tsmctl evidence: --from $d was saved with --type: cert0, "*"measurements were not saved, and --verify judges every object"* ]]
}

@test "evidence.decode: 16 MiB of zeros as cert0 (devsec.sh's) fails at offset 0 and its children skip" {
	mount_live devsec-staging
	for m in devsec_bus devsec_link_tsm devsec_tsm; do ctl modprobe $m; done
	head -c 16777216 /dev/zero > "$ROOT/sys/devices/faux/devsec_link_tsm/certs"
	head -c 4096 /dev/zero > "$ROOT/sys/devices/faux/devsec_link_tsm/transcript"
	echo tsm0 > "$(dev 10000:01:00.0)/tsm/connect"
	judge 10000:01:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.decode cert0 fail "malformed at offset 0: byte 0x00 where a certificate (a DER SEQUENCE) belongs"
	expect evidence.chain cert0 skip "parent check evidence.decode failed (cert0)"
	expect evidence.root-hash cert0 skip "parent check evidence.decode failed"
	expect evidence.decode measurements fail "malformed at offset 1: code 0x00, not MEASUREMENTS (0x60)"
	expect evidence.measurements measurements skip "parent check evidence.decode failed"
	expect evidence.report-ranges report skip "the interface report is empty"
	[ "$(stat -c %s "$SAVED_DIR/cert0.spdm-chain")" -eq 16777216 ]
}

@test "evidence.decode skips when every object is empty (the devsec sample without inputs): nothing to verify, exit 1" {
	mount_live devsec-staging
	for m in devsec_bus devsec_link_tsm devsec_tsm; do ctl modprobe $m; done
	echo tsm0 > "$(dev 10000:01:00.0)/tsm/connect"
	judge 10000:01:00.0 --trust "$TRUST"
	both_exit 1
	expect evidence.decode evidence skip "every object is empty: there is nothing to verify"
	expect evidence.chain certificates skip "cannot be verified from this evidence: every certificate slot is empty"
	expect evidence.generation evidence pass "all 11 objects are of generation 1"
}

# ---- -v: the decoded objects ----

@test "-v shows each object decoded; -J -v carries them as \"decoded\"; the manifest does not" {
	mount_live evidence-host
	run --separate-stderr ev 01:00.0 -v
	expect_status 0
	[[ "$output" == *$'\ncert0:\n  form: DSP0274 chain: Length '*"RootHash (48 bytes) "* ]]
	[[ "$output" == *"CN=tsm-sim ECDSA P-384 device"*"ec 384 secp384r1 hardware-identity,responder-auth"* ]]
	[[ "$output" == *$'\nvca:\n  SPDM 1.3 (VERSION offered 1.2, 1.3)'* ]]
	[[ "$output" == *"selected: BaseAsymAlgo ecdsa_p384, BaseHashAlgo sha384, MeasurementHashAlgo sha384"* ]]
	[[ "$output" == *"SPDM 1.3 MEASUREMENTS, 11 of 11 blocks, slot 0, signed (96 bytes)"* ]]
	[[ "$output" == *"254 device_mode"*"raw"*"operational normal, debug none"* ]]
	[[ "$output" =~ $'\n'\ +6\ svn\ +raw\ +8\ 7$'\n' ]]
	[[ "$output" == *"interface info: dma_no_pasid"*"MSI-X 0x000f (16 entries)"* ]]
	[[ "$output" == *"msix_table,non_tee"*"msix_pba,non_tee"* ]]
	run --separate-stderr ev 01:00.0 -v -J -o "$BATS_TEST_TMPDIR/v"
	expect_status 0
	json_is '[.evidence[0].objects[] | select(.decoded) | .type]' '["cert0","cert1","vca","measurements","report"]'
	json_is '[.evidence[0].objects[] | .decoded.error] | unique' '[null]'
	json_is '.evidence[0].objects[0].decoded | [.form, (.certificates | length), .certificates[2].key_type, .certificates[2].hardware_identity, .certificates[2].eku_responder_auth]' '["header",3,"ec",true,true]'
	json_is '.evidence[0].objects[8].decoded | [.version, .versions, .base_asym, .measurement_hash]' '["1.3",["1.2","1.3"],"ecdsa_p384","sha384"]'
	json_is '[.evidence[0].objects[9].decoded.blocks[].type] | sort' \
		'["device_mode","firmware_config","hardware_config","hash_extend","immutable_rom","informational","manifest","mutable_firmware","structured_manifest","svn","version"]'
	json_is '.evidence[0].objects[9].decoded | [.signature, .signature_length, (.requester_context | length)]' '["present",96,16]'
	# BAR 0 (2 MiB at 0x4000200000) cut at the MSI-X table (0x2000) and PBA (0x3000) pages
	json_is '[.evidence[0].objects[10].decoded.ranges[] | [.first_page, .pages, .range_id, .attributes]]' \
		'[[67109376,2,0,[]],[67109378,1,0,["msix_table","non_tee"]],[67109379,1,0,["msix_pba","non_tee"]],[67109380,508,0,[]]]'
	json_is '[.evidence[0].objects[] | select(.length == 0) | .decoded] | unique' '[null]'
	[ "$(jq -c '[.evidence[0].objects[].decoded] | unique' "$BATS_TEST_TMPDIR/v/manifest.json")" = '[null]' ]
	# --from shows the same objects, read from the copy
	run --separate-stderr "$TSMCTL" evidence --from "$BATS_TEST_TMPDIR/v" -J -v
	expect_status 0
	json_is '.evidence[0] | [.bdf, .source, .family, .attempts, .generation]' '["0000:01:00.0","directory",null,null,1]'
	json_is '.evidence[0].objects[9].decoded.blocks | length' 11
}

# ---- --from ----

@test "--from: the BDF must match, a capture's tsmctl-evidence/BDF is found, a changed copy is refused" {
	mount_live evidence-host
	d=$BATS_TEST_TMPDIR/s
	ev 01:00.0 -o "$d" >/dev/null
	run "$TSMCTL" evidence --from "$d" 02:00.0
	expect_status 1
	[ "$output" = "tsmctl evidence: --from $d holds the evidence of 0000:01:00.0, not of 0000:02:00.0" ]
	run "$TSMCTL" evidence --from "$d" 01:00.0
	expect_status 0
	printf 'x' >> "$d/report.bin"
	run "$TSMCTL" evidence --from "$d" --verify
	expect_status 1
	[ "$output" = "tsmctl evidence: --from $d/report.bin: other length than the manifest says: the directory was changed after it was saved" ]
	run "$TSMCTL" evidence --from "$BATS_TEST_TMPDIR/nowhere" 01:00.0
	expect_status 1
	[[ "$output" == *"no manifest.json, and no tsmctl-evidence/0000:01:00.0/manifest.json"* ]]
	# a tsmctl-collect capture holds each connected DSM's evidence
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence") TSMCTL=$TSMCTL \
		"$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" -o "$BATS_TEST_TMPDIR/c.tar.xz" >/dev/null
	mkdir "$BATS_TEST_TMPDIR/c"
	tar -C "$BATS_TEST_TMPDIR/c" -xJf "$BATS_TEST_TMPDIR/c.tar.xz"
	[ "$(ls "$BATS_TEST_TMPDIR/c/tsmctl-evidence" | wc -l)" -eq 10 ]	# not 0b, which is not connected
	from "$BATS_TEST_TMPDIR/c" 07:00.0 --trust "$TRUST"
	expect_status 1
	[[ "$(result_in "$output" evidence.report-ranges report)" == "fail: range 1 (1 page at BAR 0 +0x200000) ends past BAR 0"* ]]
	from "$BATS_TEST_TMPDIR/c" --trust "$TRUST"
	expect_status 1
	[ "$stderr" = "tsmctl evidence: --from $BATS_TEST_TMPDIR/c: no manifest.json (in a tsmctl-collect capture, name the device: tsmctl evidence --from $BATS_TEST_TMPDIR/c BDF)" ]
}

@test "usage: options of one mode only" {
	mount_live evidence-host
	run ev 01:00.0 --from /tmp -o "$BATS_TEST_TMPDIR/x"
	expect_status 2
	[[ "$output" == *"--from reads a saved directory: -o, --nonce, --nonce-file and --fresh need the kernel"* ]]
	run ev 01:00.0 --trust "$TRUST"
	expect_status 2
	[[ "$output" == *"--trust, --reference, --pin, --partial-chain and the --allow-* options go with --verify"* ]]
	run ev 01:00.0 --verify -t cert0
	expect_status 2
	[[ "$output" == *"--verify judges every object: drop --type"* ]]
}

# ---- accept --verify ----

@test "accept --verify: a SEV-TIO guest's report of offsets is refused unless its risk is taken by name; then accepted, saying so" {
	mount_live evidence-guest
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.reference.json" 00:05.0
	expect_status 1
	[ "$output" = "0000:00:05.0: failed"$'\n'"accepted 0 of 1 device (1 failed)" ]
	[[ "$stderr" == "tsmctl accept 0000:00:05.0: not accepted: evidence of generation 2 does not prove the device: evidence.report-ranges report: "*"their absolute addresses are not proven (--allow-report-offsets takes this risk)" ]]
	[[ "$stderr" != *"verified:"* ]]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	run --separate-stderr act accept --verify --allow-report-offsets --trust "$TRUST" --reference "$CERTS/all-types.reference.json" 00:05.0
	echo "$output"
	expect_status 0
	[[ "$output" == "0000:00:05.0: accepted (locked to tsm0); evidence of generation 3 taking on trust: MMIO ranges given as offsets (their addresses not proven) (report; --allow-report-offsets); verified: identity (cert0: "*"), measurements' signature (slot 0's key), measurements against the reference, freshness (the nonce)"* ]]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 1 ]
}

@test "accept --verify refuses a bad chain, a mismatched measurement, a range outside its BAR, a misplaced MSI-X table" {
	mount_live evidence-guest
	run --separate-stderr act accept --verify --trust "$TRUST" --keep-going 00:06.0 00:07.0 00:08.0
	expect_status 1
	[ "${lines[*]}" = "0000:00:06.0: failed 0000:00:07.0: failed 0000:00:08.0: failed accepted 0 of 3 devices (3 failed)" ]
	[[ "$stderr" == *"tsmctl accept 0000:00:06.0: not accepted: evidence of generation 2 does not verify: evidence.chain cert0: certificate has expired"* ]]
	[[ "$stderr" == *"tsmctl accept 0000:00:07.0: not accepted: evidence of generation 2 does not verify: evidence.report-ranges report: range 1 (1 page at BAR 0 +0x200000) ends past BAR 0"* ]]
	[[ "$stderr" == *"tsmctl accept 0000:00:08.0: not accepted: "*"range 1 is marked MSI-X table but lies at BAR 0 +0x3000"* ]]
	run --separate-stderr act accept --verify --trust "$TRUST" --reference "$CERTS/all-types.wrong-digest.reference.json" -J 00:05.0
	expect_status 1
	json_is '.results[0] | [.result, .errno, .accepted, .locked]' '["failed",null,false,"tsm0"]'
	[[ "$(printf '%s' "$output" | jq -r '.results[0].message')" == "not accepted: evidence of generation 2 does not verify: evidence.measurements measurements/2: index 2 (mutable_firmware): the digest "* ]]
	for b in 05 06 07 08; do
		[ "$(cat "$(dev 0000:00:$b.0)/tsm/accept")" = 0 ]
	done
	# a dry run decides as the accept would, and writes nothing
	run --separate-stderr act accept --verify --dry-run --trust "$TRUST" 00:05.0
	expect_status 1
	[[ "$stderr" == "tsmctl accept 0000:00:05.0: not accepted: evidence of generation 3 does not prove the device: "* ]]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	# an unreadable reference stops before any device
	run --separate-stderr act accept --verify --reference "$BATS_TEST_TMPDIR/none.json" 00:05.0
	expect_status 1
	[[ "$stderr" == "tsmctl accept: --verify: $BATS_TEST_TMPDIR/none.json: No such file or directory" ]]
}

@test "accept --verify refuses evidence that changed after it was verified: re-read, or the family's validate" {
	mount_live evidence-guest
	act lock 00:09.0 tsm0 >/dev/null
	# the generation tie is reached only by a decision that accepts: with the measurements'
	# signature checked (evidence.signature); until then accept --verify refuses before it
	ev 00:09.0 --verify --trust "$TRUST" --allow-replay --allow-no-reference >/dev/null ||
		skip "no decision accepts 00:09.0's evidence yet (the measurements' signature is not checked)"
	# the evidence is refreshed after the verifying read, before the accept
	ctl evidence-fault 0000:00:09.0 refresh 1
	run --separate-stderr act accept --verify --trust "$TRUST" --allow-replay --allow-no-reference 00:09.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:09.0: not accepted: the evidence changed after it was verified (generation 1 verified, 2 now): run accept --verify again" ]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 0 ]
	ctl evidence-validate on
	ctl evidence-fault 0000:00:09.0 refresh 1
	run --separate-stderr act accept --verify --trust "$TRUST" --allow-replay --allow-no-reference 00:09.0
	expect_status 1
	[ "$stderr" = "tsmctl accept 0000:00:09.0: not accepted: the evidence changed after it was verified (the kernel's validate refused generation 2): run accept --verify again" ]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 0 ]
	# nothing moves it now: validate takes the generation verified, the accept is written
	run --separate-stderr act accept --verify --trust "$TRUST" --allow-replay --allow-no-reference 00:09.0
	expect_status 0
	[[ "$output" == "0000:00:09.0: accepted (locked to tsm0); evidence of generation 3 taking on trust: "*"; verified: identity (cert0: "* ]]
	[ "$(cat "$(dev 0000:00:09.0)/tsm/accept")" = 1 ]
}

@test "accept --verify of an unlocked TDI: no evidence is read, the kernel's EINVAL says lock it" {
	mount_live evidence-guest
	run --separate-stderr act accept --verify --trust "$TRUST" 00:09.0
	expect_status 1
	[[ "$stderr" == "tsmctl accept 0000:00:09.0: "*"(EINVAL)" ]]
}

# ---- audit ----

@test "audit device.evidence: the decision of evidence --verify per device; --require-verified" {
	mount_live evidence-host
	run --separate-stderr act audit -J --trust "$TRUST"
	expect_status 1
	ids() { printf '%s' "$output" | jq -c "[.checks[] | select(.id == \"device.evidence\" and .status == \"$1\") | .object]"; }
	# nothing is proven: audit sends no nonce, so a bare MEASUREMENTS response's signature is unchecked; the good ones warn
	[ "$(ids pass)" = '[]' ]
	[ "$(ids warn)" = '["0000:01:00.0","0000:0a:00.0"]' ]
	[ "$(ids fail)" = '["0000:02:00.0","0000:03:00.0","0000:04:00.0","0000:05:00.0","0000:06:00.0","0000:07:00.0","0000:08:00.0","0000:09:00.0"]' ]
	[[ "$(result_in "$output" device.evidence 0000:01:00.0)" == "warn: evidence of generation 1 does not prove the device: evidence.signature measurements: cannot be verified from this evidence: "* ]]
	[ "$(result_in "$output" device.evidence 0000:02:00.0)" = "fail: evidence of generation 1 does not verify: evidence.chain cert0: certificate has expired (certificate CN=tsm-sim expired device)" ]
	[ "$(result_in "$output" device.evidence 0000:0b:00.0)" = "0 results" ]
	run --separate-stderr act audit -J --trust "$BATS_TEST_TMPDIR/empty" -d 01:00.0
	expect_status 0
	[[ "$(result_in "$output" device.evidence 0000:01:00.0)" == "warn: never verified (no trust store): evidence of generation 1 does not prove the device: evidence.chain cert0: no trust store: $BATS_TEST_TMPDIR/empty holds no certificate; "* ]]
	run --separate-stderr act audit -J --trust "$BATS_TEST_TMPDIR/empty" --require-verified 01:00.0,0b:00.0 -d 01:00.0,0b:00.0
	expect_status 1
	[[ "$(result_in "$output" device.evidence 0000:01:00.0)" == "fail: required to be verified (--require-verified): never verified (no trust store): "* ]]
	[[ "$(result_in "$output" device.evidence 0000:0b:00.0)" == "fail: required to be verified (--require-verified), but it has no evidence"* ]]
	run --separate-stderr act audit -J --trust "$TRUST" --require-verified all -d 01:00.0,0b:00.0
	expect_status 1
	[[ "$(result_in "$output" device.evidence 0000:01:00.0)" == "fail: required to be verified (--require-verified): evidence of generation 1 does not prove the device: "* ]]
	# no evidence interface: skip with the kernel's reason
	run --separate-stderr "$TSMCTL" --sysroot "$ROOT" audit -J --trust "$TRUST" -d 01:00.0
	[[ "$(result_in "$output" device.evidence 0000:01:00.0)" == "skip: "*"device-evidence generic netlink family"* ]] ||
		skip "this kernel has a device-evidence family"
}

@test "audit device.evidence in a guest: each locked TDI, its report judged (a range past its BAR, a misplaced MSI-X table fail)" {
	mount_live evidence-guest
	run --separate-stderr act audit -J --trust "$TRUST"
	[ "$(printf '%s' "$output" | jq -c '[.checks[] | select(.id == "device.evidence") | [.object, .status]]')" = \
		'[["0000:00:05.0","warn"],["0000:00:06.0","fail"],["0000:00:07.0","fail"],["0000:00:08.0","fail"]]' ]
}
