#!/usr/bin/env bats
# The platform state beside the TSM (ABI.md §7) through tsmctl: measurements
# and extend in a TDX guest, mitigations and verify-mitigation on a 7.3
# SEV-TIO host, the PSP's attributes in list -v and audit, serial_number in
# devices -v, the registers report covers. Every store is judged by what the
# simulated kernel shows afterwards: the register's bytes, the verified vector.

load lib/helpers

teardown() {
	unmount_live
}

MR=sys/devices/virtual/misc/tdx_guest/measurements
VULN=sys/firmware/sev/vulnerabilities

# hex REG: the register's bytes in ROOT, as hex
hex() {
	od -An -v -tx1 "$ROOT/$MR/$1" | tr -d ' \n'
}

# extended OLD_HEX DATA_HEX: SHA-384(OLD || DATA), the TDX module's RTMR extend
extended() {
	printf '%s%s' "$1" "$2" | xxd -r -p | sha384sum | cut -d' ' -f1
}

verified() {
	cat "$ROOT/$VULN/verified_mitigations"
}

# as_nobody CMD...: tsmctl as an unprivileged user, on ROOT
as_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	open_path_to_root
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" "$@"
}

# ---- measurements ----

@test "measurements -J: every register with the bytes the kernel shows, its hash and whether it extends" {
	ROOT=$(static_tree guest-tdx)
	run --separate-stderr t measurements -J
	expect_status 0
	json_is '[.measurements[] | .file]' '["mrconfigid","mrowner","mrownerconfig","mrtd:sha384","rtmr0:sha384","rtmr1:sha384","rtmr2:sha384","rtmr3:sha384"]'
	json_is '[.measurements[] | select(.extendable) | .name]' '["rtmr0","rtmr1","rtmr2","rtmr3"]'
	json_is '[.measurements[] | .hash] | unique' '[null,"sha384"]'
	json_is '[.measurements[] | .size, .device] | unique' '[48,"tdx_guest"]'
	for r in mrtd:sha384 rtmr1:sha384 mrowner; do
		[ "$(printf '%s' "$output" | jq -r --arg f "$r" '.measurements[] | select(.file == $f) | .value')" = "$(hex "$r")" ]
	done
	run --separate-stderr t measurements rtmr1 mrtd:sha384 -o NAME,VALUE -n -r
	expect_status 0
	[ "${lines[0]}" = "mrtd $(hex mrtd:sha384)" ]
	[ "${lines[1]}" = "rtmr1 $(hex rtmr1:sha384)" ]
}

@test "measurements: a register that names nothing is exit 1 with the empty document; a host without any says why" {
	ROOT=$(static_tree guest-tdx)
	run --separate-stderr t measurements rtmr9 -J
	expect_status 1
	json_is '.measurements' '[]'
	[ "$stderr" = "tsmctl measurements: no measurement register 'rtmr9' (tsmctl measurements lists them)" ]
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t measurements -J
	expect_status 0
	json_is '.measurements' '[]'
	[[ "$stderr" == *"no measurement registers: no misc device in /sys/class/misc has a measurements/ group"*"it is not loaded"* ]]
}

# ---- extend ----

@test "extend --digest: one store, and the register then reads SHA-384(old || digest)" {
	mount_live guest-tdx
	d=$(printf '%048x' 0xc0ffee; printf '%048x' 7)
	old=$(hex rtmr2:sha384)
	want=$(extended "$old" "$d")
	run --separate-stderr t extend rtmr2 --digest "$d" --no-syslog
	expect_status 0
	[ "$output" = "rtmr2: extended; now $want" ]
	[ "$(hex rtmr2:sha384)" = "$want" ]
	# the others are untouched
	[ "$(hex rtmr1:sha384)" = "$(jq -r .tdx_guest.measurements.rtmr1 "$TOPO/guest-tdx.json")" ]
	# again, by file name, with -J: before, after and expected as the kernel shows them
	run --separate-stderr t extend rtmr2:sha384 --digest "$d" --no-syslog -J
	expect_status 0
	json_is '.results[0] | [.register, .file, .device, .action, .result, .errno]' '["rtmr2","rtmr2:sha384","tdx_guest","extend","ok",null]'
	json_is '.results[0].before' "\"$want\""
	json_is '.results[0].after' "\"$(hex rtmr2:sha384)\""
	json_is '.results[0].expected' "\"$(extended "$want" "$d")\""
	json_is '.results[0].data' "\"$d\""
}

@test "extend --event FILE and --digest-file: the file's SHA-384, or its 48 bytes" {
	mount_live guest-tdx
	printf 'an event\n' > "$BATS_TEST_TMPDIR/ev"
	ev=$(sha384sum "$BATS_TEST_TMPDIR/ev" | cut -d' ' -f1)
	old=$(hex rtmr3:sha384)
	run --separate-stderr t extend rtmr3 --event "$BATS_TEST_TMPDIR/ev" --no-syslog
	expect_status 0
	[ "$(hex rtmr3:sha384)" = "$(extended "$old" "$ev")" ]
	old=$(hex rtmr3:sha384)
	printf '%s' "$ev" | xxd -r -p > "$BATS_TEST_TMPDIR/d"
	run --separate-stderr t extend rtmr3 --digest-file - --no-syslog < "$BATS_TEST_TMPDIR/d"
	expect_status 0
	[ "$(hex rtmr3:sha384)" = "$(extended "$old" "$ev")" ]
}

@test "extend refuses before the write what the kernel would: a wrong length, a read-only register" {
	mount_live guest-tdx
	before=$(cd "$ROOT/$MR" && md5sum ./*)
	run --separate-stderr t extend rtmr2 --digest "$(printf '%094d' 0)"
	expect_status 2
	[[ "$stderr" == *"the data is 47 bytes; rtmr2:sha384 takes exactly 48 (the kernel refuses any other length with EINVAL)"* ]]
	run --separate-stderr t extend mrtd --digest "$(printf '%096d' 0)" -J
	expect_status 1
	json_is '.results' '[]'
	[[ "$stderr" == *"mrtd:sha384 is read-only (mode 0444)"* ]]
	run --separate-stderr t extend rtmr2 --digest 00 --event /dev/null
	expect_status 2
	run --separate-stderr t extend --digest 00
	expect_status 2
	run --separate-stderr t extend rtmr2 --dry-run --digest "$(printf '%096d' 0)"
	expect_status 0
	[[ "$output" == "rtmr2: would write 48 bytes to $ROOT/$MR/rtmr2:sha384; it would then read $(extended "$(hex rtmr2:sha384)" "$(printf '%096d' 0)")" ]]
	[ "$(cd "$ROOT/$MR" && md5sum ./*)" = "$before" ]
}

@test "extend: the kernel's errors said (EBUSY from the TDX module, EACCES without root), nothing changed" {
	jq '.tdx_guest.faults = { "extend_errno": "EBUSY" }' "$TOPO/guest-tdx.json" > "$BATS_TEST_TMPDIR/t.json"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/t.json" "$ROOT"
	old=$(hex rtmr0:sha384)
	run --separate-stderr t extend rtmr0 --digest "$(printf '%096d' 3)" --no-syslog -J
	expect_status 1
	json_is '.results[0] | [.result, .errno, .before, .after]' "[\"failed\",\"EBUSY\",\"$old\",\"$old\"]"
	[ "$(hex rtmr0:sha384)" = "$old" ]
	unmount_live
	mount_live guest-tdx
	old=$(hex rtmr0:sha384)
	as_nobody extend rtmr0 --digest "$(printf '%096d' 3)" --no-syslog
	expect_status 1
	[ "$stderr" = "tsmctl extend: rtmr0: extending rtmr0:sha384 needs root (mode 0644): run tsmctl as root" ]
	[ "$(hex rtmr0:sha384)" = "$old" ]
	# a copy takes no store
	unmount_live
	ROOT=$(static_tree guest-tdx)
	old=$(hex rtmr0:sha384)
	run --separate-stderr t extend rtmr0 --digest "$(printf '%096d' 3)" --no-syslog
	expect_status 1
	[[ "$stderr" == *"not written: "*"(EROFS)" ]]
	[ "$(hex rtmr0:sha384)" = "$old" ]
}

@test "report names the registers it covers, with their values after it; sev_guest has none" {
	mount_live guest-tdx
	run --separate-stderr t report --nonce 01 -J
	expect_status 0
	json_is '[.reports[0].measurement_registers[] | .file]' '["mrconfigid","mrowner","mrownerconfig","mrtd:sha384","rtmr0:sha384","rtmr1:sha384","rtmr2:sha384","rtmr3:sha384"]'
	json_is '[.reports[0].measurement_registers[] | .extended_during_report] | unique' '[false]'
	"$TSMCTL" --sysroot "$ROOT" extend rtmr1 --digest "$(printf '%096d' 5)" --no-syslog >/dev/null
	run --separate-stderr t report --nonce 01 -J
	json_is '.reports[0].measurement_registers[] | select(.name == "rtmr1") | .value' "\"$(hex rtmr1:sha384)\""
	run --separate-stderr t report --nonce 01
	expect_status 0
	[[ "$output" == *"registers:    mrconfigid mrowner mrownerconfig mrtd rtmr0 rtmr1 rtmr2 rtmr3 (tdx_guest's, all in the report; tsmctl measurements shows them)"* ]]
}

@test "report: an RTMR extended while the report was made is said, and marked in -J" {
	jq '.report.faults = { "concurrent_extend": 3 }' "$TOPO/guest-tdx.json" > "$BATS_TEST_TMPDIR/t.json"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/t.json" "$ROOT"
	run --separate-stderr t report --nonce 01 -J
	expect_status 0
	json_is '[.reports[0].measurement_registers[] | select(.extended_during_report) | .name]' '["rtmr2"]'
	json_is '.reports[0].measurement_registers[] | select(.name == "rtmr2") | .value' "\"$(hex rtmr2:sha384)\""
	run --separate-stderr t report --nonce 02
	expect_status 0
	[ "$stderr" = "tsmctl report: rtmr2:sha384 was extended while the report was made: the report holds its value from before or after (tsmctl measurements shows it now)" ]
}

# ---- mitigations, verify-mitigation ----

@test "mitigations: one row a bit of either vector; --unverified; needs root, said, exit 1" {
	mount_live sev-tio-posture
	run --separate-stderr t mitigations -J
	expect_status 0
	json_is '.mitigations' '[{"bit":0,"mask":1,"supported":true,"verified":true},{"bit":1,"mask":2,"supported":true,"verified":false},{"bit":2,"mask":4,"supported":true,"verified":false}]'
	[ "$stderr" = "tsmctl mitigations: supported but not verified: bits 1, 2; after reading AMD's security bulletin for them: tsmctl verify-mitigation 1 2" ]
	run --separate-stderr t mitigations --unverified -n -r -o BIT,MASK
	[ "${lines[*]}" = "1 0x2 2 0x4" ]
	as_nobody mitigations -J
	expect_status 1
	json_is '.mitigations' '[]'
	[[ "$stderr" == *"reading the mitigation vectors needs root"* ]]
	unmount_live
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t mitigations
	expect_status 0
	[[ "$stderr" == *"no /sys/firmware/sev/vulnerabilities: the kernel is older than 7.3"* ]]
}

@test "verify-mitigation BIT: one bit per store, and the kernel then shows it verified" {
	mount_live sev-tio-posture
	[ "$(verified)" = 0x1 ]
	run --separate-stderr t verify-mitigation 1 --no-syslog
	expect_status 0
	[ "${lines[0]}" = "bit 1 (0x2): verified; verified_mitigations now 0x3" ]
	[ "${lines[1]}" = "verified 1 of 1 mitigation" ]
	[ "$(verified)" = 0x3 ]
	[ "$(cat "$ROOT/$VULN/supported_mitigations")" = 0x7 ]
}

@test "verify-mitigation writes nothing for a bit verified already, nor for one the firmware does not support" {
	command -v strace >/dev/null || skip "strace not installed"
	mount_live sev-tio-posture
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run --separate-stderr strace -f -e trace=openat -o "$BATS_TEST_TMPDIR/trace" \
		"$TSMCTL" --sysroot "$ROOT" verify-mitigation 0x1 --no-syslog
	expect_status 0
	[ "$stderr" = "tsmctl verify-mitigation: bit 0 (0x1): verified already (verified_mitigations 0x1); nothing written" ]
	if grep -q 'verified_mitigations", O_WRONLY' "$BATS_TEST_TMPDIR/trace"; then false; fi
	run --separate-stderr t verify-mitigation 0 --strict --no-syslog -J
	expect_status 1
	json_is '.results[0] | [.result, .verified_mitigations]' '["already",1]'
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run --separate-stderr strace -f -e trace=openat -o "$BATS_TEST_TMPDIR/trace" \
		"$TSMCTL" --sysroot "$ROOT" verify-mitigation 3 --no-syslog
	expect_status 1
	[[ "$stderr" == *"bit 3 (0x8): not written: bit 3 is no mitigation the SEV firmware supports (supported_mitigations 0x7)"* ]]
	if grep -q 'verified_mitigations", O_WRONLY' "$BATS_TEST_TMPDIR/trace"; then false; fi
	[ "$(verified)" = 0x1 ]
	# and a vector of two bits is the kernel's EINVAL: a usage error, before any read
	run --separate-stderr t verify-mitigation 0x6
	expect_status 2
	[[ "$stderr" == *"'0x6' has 2 bits set: the kernel verifies exactly one per store (else EINVAL)"* ]]
	run --separate-stderr t verify-mitigation 64
	expect_status 2
}

@test "verify-mitigation all: each unverified bit in turn; the firmware's failure said, the rest skipped or tried" {
	mount_live sev-tio-posture
	run --separate-stderr t verify-mitigation all --no-syslog -J
	expect_status 1
	json_is '[.results[] | [.bit, .result, .errno]]' '[[1,"ok",null],[2,"failed","EINVAL"]]'
	json_is '.results[1].message' '"the SEV firmware could not verify mitigation 2 (EINVAL: a failure status): AMD'"'"'s security bulletin for it says what it needs, often a firmware or microcode update; see dmesg (\"Verify Mitigation\")"'
	[ "$(verified)" = 0x3 ]
	run --separate-stderr t verify-mitigation 2 1 --no-syslog -J
	expect_status 1
	json_is '[.results[] | .result]' '["failed","skipped"]'
	run --separate-stderr t verify-mitigation 2 1 --keep-going --no-syslog -J
	json_is '[.results[] | .result]' '["failed","already"]'
	[ "$(verified)" = 0x3 ]
}

# ---- audit, list -v, devices -v ----

@test "audit on the engineering sample: the PSP's four, the unverified mitigations, each citing its attribute" {
	mount_live sev-tio-posture
	run --separate-stderr t audit -J
	expect_status 1
	json_is '[.checks[] | select(.id | startswith("psp.") or . == "platform.sev-mitigations") | [.id, .object, .status]]' \
		'[["psp.fused-part","tsm0","fail"],["psp.debug-lock","tsm0","fail"],["psp.anti-rollback","tsm0","warn"],["psp.boot-integrity","tsm0","warn"],["platform.sev-mitigations","platform","warn"]]'
	for a in fused_part debug_lock_on anti_rollback_status boot_integrity; do
		printf '%s' "$output" | jq -e --arg a "$a" 'any(.checks[]; .message | startswith($a + " reads 0 on the PSP (0000:02:00.1): "))' >/dev/null ||
			{ echo "no message citing $a"; return 1; }
	done
	json_is '.checks[] | select(.id == "platform.sev-mitigations") | .message' '"SEV-SNP mitigations supported but not verified: bits 1, 2 (supported_mitigations 0x7, verified_mitigations 0x1): until the firmware verifies them it does not vouch that those fixes are in effect"'
	# verified one: the check names only the other
	"$TSMCTL" --sysroot "$ROOT" verify-mitigation 1 --no-syslog >/dev/null
	run --separate-stderr t audit -J
	json_is '.checks[] | select(.id == "platform.sev-mitigations") | [.status, .hint]' '["warn","read AMD'"'"'s security bulletin for each bit, then: tsmctl verify-mitigation 2"]'
	# without root the vectors are unknown: needs-root, not a failure
	as_nobody audit -J
	json_is '.checks[] | select(.id == "platform.sev-mitigations") | .status' '"needs-root"'
}

@test "list -v: the PSP's attributes with what each means; -v takes no table option" {
	ROOT=$(static_tree sev-tio-posture)
	run --separate-stderr t list -v
	expect_status 0
	[[ "$output" == *"    PSP security (0000:02:00.1, sysfs-driver-ccp):"* ]]
	[[ "$output" == *"        fused_part 0: not fused (a pre-production part)"* ]]
	[[ "$output" == *"        debug_lock_on 0: unlocked for debugging"* ]]
	[[ "$output" == *"    PSP firmware: bootloader 00.24.00.11, TEE not shown"* ]]
	run --separate-stderr t list -J
	json_is '.tsms[0].psp | [.security.fused_part, .security.debug_lock_on, .security.tsme_status, .bootloader_version, .tee_version]' '[false,false,true,"00.24.00.11",null]'
	run --separate-stderr t list -v -o NAME
	expect_status 2
	# a kernel before 7.0: no boot_integrity, said as such
	jq '(.. | objects | select(.bdf? == "0000:02:00.1") | .psp.security) |= del(.boot_integrity)' \
		"$TOPO/sev-tio.json" > "$BATS_TEST_TMPDIR/t.json"
	ROOT=$BATS_TEST_TMPDIR/tree
	"$SIM" build "$BATS_TEST_TMPDIR/t.json" "$ROOT" >/dev/null
	run --separate-stderr t list -v
	[[ "$output" == *"        boot_integrity: not shown by this kernel (added in Linux 7.0)"* ]]
	run --separate-stderr t list -J
	json_is '.tsms[0].psp.security.boot_integrity' null
	run --separate-stderr t audit -J
	json_is '.checks[] | select(.id == "psp.boot-integrity") | .status' '"skip"'
}

@test "devices -v: serial_number as the kernel prints it; needs root; EIO when the DSN reads 0" {
	mount_live sev-tio-posture
	run --separate-stderr t devices -v 41:00.0
	expect_status 0
	[[ "$output" == *"    Serial number: $(cat "$(dev 0000:41:00.0)/serial_number")"$'\n'* ]]
	run --separate-stderr t devices -v -J 41:00.0
	json_is '.devices[0].detail | [.serial_number, .serial_number_error]' '["b8-ce-f6-03-00-a1-b2-c3",null]'
	run --separate-stderr t devices -v --all 81:00.0
	[[ "$output" == *"    Serial number: unreadable (EIO: the Device Serial Number reads 0 now)"* ]]
	run --separate-stderr t devices -v --all -J 81:00.0
	json_is '.devices[0].detail | [.serial_number, .serial_number_error]' '[null,"EIO"]'
	as_nobody devices -v 41:00.0
	[[ "$output" == *"    Serial number: needs root (serial_number is 0400)"* ]]
	# a function without a DSN has no line and null
	run --separate-stderr t devices -v -J --all 40:01.1
	json_is '.devices[0].detail | [.serial_number, .serial_number_error]' '[null,null]'
	[[ "$(t devices -v --all 40:01.1)" != *"Serial number"* ]]
}
