#!/usr/bin/env bats
# What the evidence verification tests stand on: the MSI-X capability a
# topology's "msix" puts in config space, the evidence keys' checks, the
# certificate chains gen-cert-chain builds (bare and broken) and the objects
# gen-evidence builds, field by field (DSP0274 layouts).

load helper

CERTS=$BATS_TEST_DIRNAME/../certs

teardown() {
	teardown_sim
}

# u8/u16/u32 FILE OFFSET: a little-endian value of the file, in decimal.
u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
u16() { od -An -tu2 -j "$2" -N2 "$1" | tr -d ' '; }
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }

@test "msix: an MSI-X capability at 0x80, linked from the PCIe capability, as the topology places it" {
	build_tree evidence-host
	cfg=$T/sys/bus/pci/devices/0000:01:00.0/config
	[ "$(u8 "$cfg" 0x34)" -eq $((0x40)) ]
	[ "$(u8 "$cfg" 0x41)" -eq $((0x80)) ]	# next after the PCIe capability
	[ "$(u8 "$cfg" 0x80)" -eq $((0x11)) ]
	[ "$(u8 "$cfg" 0x81)" -eq 0 ]
	[ "$(u16 "$cfg" 0x82)" -eq 15 ]		# Message Control: table size 16 - 1, disabled
	[ "$(u32 "$cfg" 0x84)" -eq $((0x2000)) ]	# Table Offset/BIR: BAR 0 + 0x2000
	[ "$(u32 "$cfg" 0x88)" -eq $((0x3000)) ]	# PBA Offset/BIR
	# a function without "msix" ends its list at the PCIe capability
	[ "$(u8 "$T/sys/bus/pci/devices/0000:02:00.0/config" 0x41)" -eq 0 ]
}

@test "msix and evidence keys are checked: outside a BAR, unknown report kinds, bad file names" {
	T=$(mktemp -d)
	J=$(mktemp --suffix=.json)
	jq '.host_bridges[0].devices[0].children[0].msix.table_offset = "0x1fff80"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"0000:01:00.0: msix: a PCIe function's 1..2048 vectors whose table and PBA lie QWORD aligned inside BARs it has"* ]]
	jq '.host_bridges[0].devices[0].children[0].evidence.report = "sideways"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *'evidence report: true, false, "response", "range-outside-bar", "msix-misplaced", "other-function", "reserved-bits", "overlap" or "moved"'* ]]
	jq '.host_bridges[0].devices[0].children[0].evidence.vca = "../etc"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"evidence vca: a file name ([a-z0-9.-]) or true/false"* ]]
	# how the measurements are handed out and signed
	jq '.host_bridges[0].devices[0].children[0].evidence.form = "sideways"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *'evidence form is "response", "exchange" or "transcript"'* ]]
	jq '.host_bridges[0].devices[0].children[0].evidence.signature = "forged"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *'evidence signature is "good", "zero", "none" or "replay"'* ]]
	jq '.host_bridges[0].devices[0].children[0].evidence.signer = "../key"' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"evidence signer: a chain name ([a-z0-9-])"* ]]
	jq '.host_bridges[0].devices[0].children[0].evidence.truncate = 65536' "$TOPO/evidence-host.json" > "$J"
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"truncate"* ]]
	run "$SIM" build "$TOPO/evidence-signature.json" "$T/sig"
	[ "$status" -eq 0 ]
}

@test "gen-cert-chain: the header form, the bare form, and the broken variants make builds" {
	[ -r "$CERTS/ecdsa-p384-bare.spdm-chain" ] || skip "make -C tests/sim builds the chains"
	f=$CERTS/ecdsa-p384.spdm-chain
	# Length (the whole), Reserved 0, a 48-byte RootHash, then a DER SEQUENCE
	[ "$(u16 "$f" 0)" -eq "$(stat -c %s "$f")" ]
	[ "$(u16 "$f" 2)" -eq 0 ]
	[ "$(u8 "$f" 52)" -eq $((0x30)) ]
	[ "$(head -c 52 "$f" | tail -c 48 | od -An -tx1 | tr -d ' \n')" = \
		"$(openssl x509 -in "$CERTS/ecdsa-p384.root.pem" -outform DER | sha384sum | cut -d' ' -f1)" ]
	# bare: the certificates from byte 0
	[ "$(u8 "$CERTS/ecdsa-p384-bare.spdm-chain" 0)" -eq $((0x30)) ]
	[ "$(head -c 52 "$CERTS/ecdsa-p384-wrong-root-hash.spdm-chain" | tail -c 48 | tr -d '\0' | wc -c)" -eq 0 ]
	# the leaves as openssl sees them
	openssl x509 -in <(sed -n '/BEGIN/,/END/p' "$CERTS/ecdsa-p384-expired.chain.pem" | awk '/BEGIN/ { n++ } n == 3') \
		-noout -checkend 0 && return 1
	leaf=$(sed -n '/BEGIN/,/END/p' "$CERTS/ecdsa-p384-self-signed.chain.pem" | awk '/BEGIN/ { n++ } n == 3')
	[ "$(openssl x509 -noout -subject <<<"$leaf" | sed 's/subject=//')" = \
		"$(openssl x509 -noout -issuer <<<"$leaf" | sed 's/issuer=//')" ]
}

# subjects FILE: the CN of each DER certificate after FILE's CERT_CHAIN header (Length, Reserved, 48-byte RootHash).
subjects() {
	local f=$1 off=52 size hl l
	size=$(stat -c %s "$f")
	while [ "$off" -lt "$size" ]; do
		read -r hl l < <(openssl asn1parse -inform DER -in "$f" -offset "$off" 2>/dev/null | head -1 |
			sed -E 's/.*hl= *([0-9]+) l= *([0-9]+).*/\1 \2/')
		tail -c +$((off + 1)) "$f" | head -c $((hl + l)) | openssl x509 -inform DER -noout -subject |
			sed 's/.*CN *= *//'
		off=$((off + hl + l))
	done | paste -sd,
}

@test "gen-cert-chain --forge: no root, a decoy root first, shuffled, a foreign certificate inserted" {
	[ -r "$CERTS/ecdsa-p384-foreign.spdm-chain" ] || skip "make -C tests/sim builds the chains"
	[ "$(subjects "$CERTS/ecdsa-p384.spdm-chain")" = "tsm-sim root CA,tsm-sim intermediate CA,tsm-sim ECDSA P-384 device" ]
	[ "$(subjects "$CERTS/ecdsa-p384-no-root.spdm-chain")" = "tsm-sim intermediate CA,tsm-sim no-root device" ]
	[ "$(subjects "$CERTS/ecdsa-p384-decoy.spdm-chain")" = "decoy root CA,tsm-sim root CA,tsm-sim intermediate CA,tsm-sim decoy device" ]
	[ "$(subjects "$CERTS/ecdsa-p384-shuffled.spdm-chain")" = "tsm-sim intermediate CA,tsm-sim root CA,tsm-sim shuffled device" ]
	[ "$(subjects "$CERTS/ecdsa-p384-foreign.spdm-chain")" = "tsm-sim root CA,foreign device,tsm-sim intermediate CA,tsm-sim foreign device" ]
	# RootHash: the root's digest without it in the chain; the decoy's when it stands first
	digest() { openssl x509 -in "$1" -outform DER | sha384sum | cut -d' ' -f1; }
	roothash() { head -c 52 "$1" | tail -c 48 | od -An -tx1 | tr -d ' \n'; }
	[ "$(roothash "$CERTS/ecdsa-p384-no-root.spdm-chain")" = "$(digest "$CERTS/ecdsa-p384-no-root.root.pem")" ]
	[ "$(roothash "$CERTS/ecdsa-p384-decoy.spdm-chain")" = "$(digest "$CERTS/ecdsa-p384-decoy.decoy.pem")" ]
	[ "$(u16 "$CERTS/ecdsa-p384-no-root.spdm-chain" 0)" -eq "$(stat -c %s "$CERTS/ecdsa-p384-no-root.spdm-chain")" ]
}

@test "gen-evidence: SPDM 1.2 and 1.3 VCA, MEASUREMENTS of every value type, signed and not, manifests" {
	[ -r "$CERTS/all-types.meas" ] || skip "make -C tests/sim builds the evidence objects"
	v=$CERTS/spdm13-ecdsa-p384.vca
	# GET_VERSION (1.0), VERSION 1.0 offering 1.2 and 1.3, then GET_CAPABILITIES speaking 1.3
	[ "$(od -An -tx1 -N14 "$v" | tr -d ' \n')" = 1084000010040000000200120013 ]
	[ "$(u8 "$v" 14)" -eq $((0x13)) ]
	[ "$(u8 "$v" 15)" -eq $((0xe1)) ]
	# 1.2 alone offered: GET_CAPABILITIES after 4 + 6 + 2 bytes, speaking 1.2
	[ "$(u8 "$CERTS/spdm12-ecdsa-p384.vca" 12)" -eq $((0x12)) ]
	[ "$(u8 "$CERTS/spdm12-ecdsa-p384.vca" 13)" -eq $((0xe1)) ]
	# ALGORITHMS at the end: its Length (52) and BaseAsymSel (ECDSA P-384 bit 7; P-256 bit 4)
	for f in spdm13-ecdsa-p384:128 spdm13-ecdsa-p256:16; do
		size=$(stat -c %s "$CERTS/${f%:*}.vca")
		[ "$(u16 "$CERTS/${f%:*}.vca" $((size - 52 + 4)))" -eq 52 ]
		[ "$(u32 "$CERTS/${f%:*}.vca" $((size - 52 + 12)))" -eq "${f#*:}" ]
	done
	m=$CERTS/all-types.meas
	# MEASUREMENTS 1.3, 11 blocks; every DMTF value type 0..10 once
	[ "$(u8 "$m" 0)" -eq $((0x13)) ]
	[ "$(u8 "$m" 1)" -eq $((0x60)) ]
	[ "$(u8 "$m" 4)" -eq 11 ]
	rec=$(($(u16 "$m" 5) + 65536 * $(u8 "$m" 7)))
	off=8 types=""
	while [ "$off" -lt $((8 + rec)) ]; do
		types+="$(($(u8 "$m" $((off + 4))) & 0x7f)) "
		off=$((off + 4 + $(u16 "$m" $((off + 2)))))
	done
	[ "$(tr ' ' '\n' <<<"$types" | grep . | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 10 " ]
	# nonce, opaque length 0, requester context; the signed one adds 96 bytes (ECDSA P-384 r||s)
	[ "$(stat -c %s "$m")" -eq $((8 + rec + 32 + 2 + 8)) ]
	[ "$(stat -c %s "$CERTS/all-types-signed.meas")" -eq $(($(stat -c %s "$m") + 96)) ]
	cmp -n "$(stat -c %s "$m")" "$m" "$CERTS/all-types-signed.meas"
	for f in "$CERTS"/all-types*.reference.json; do
		jq -e '.schema_version == 1' "$f" >/dev/null
	done
	[ "$(ls "$CERTS"/all-types.*.reference.json | wc -l)" -eq 7 ]
}

@test "evidence-fault refresh takes a kind, a count of dumps and a device with evidence" {
	mount_topo evidence-host
	run bash -c "echo 'evidence-fault 0000:01:00.0 refresh 1' > '$M/tsm-sim-control'"
	[ "$status" -eq 0 ]
	run bash -c "echo 'evidence-fault 0000:01:00.0 refresh x' > '$M/tsm-sim-control'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid argument"* ]]
	run bash -c "echo 'evidence-fault 0000:0b:00.0 refresh 1' > '$M/tsm-sim-control'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such device"* ]]
}
