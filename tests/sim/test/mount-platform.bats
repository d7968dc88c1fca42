#!/usr/bin/env bats
# The platform state beside the TSM on a live mount (ABI.md §7, doc/sim-sources.md
# "The platform state beside the TSM"): tdx_guest's measurement registers and
# their extend, the PSP's security attributes, the SEV-SNP mitigation vectors
# and their verification, PCI serial_number.

load helper

teardown() {
	teardown_sim
}

MR=sys/devices/virtual/misc/tdx_guest/measurements
VULN=sys/firmware/sev/vulnerabilities
PSP=sys/bus/pci/devices/0000:02:00.1

# hex REG: the register's 48 bytes as hex
hex() {
	od -An -v -tx1 "$M/$MR/$1" | tr -d ' \n'
}

# extended OLD_HEX DATA_FILE: SHA-384(OLD || DATA), the TDX module's RTMR extend
extended() {
	{ printf '%s' "$1" | xxd -r -p; cat "$2"; } | sha384sum | cut -d' ' -f1
}

# as_nobody CMD...: run CMD as an unprivileged user (skips when that is not possible)
as_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

@test "tdx_guest: measurements/ with tsm-mr's names, modes and 48-byte binary registers" {
	mount_topo guest-tdx
	[ "$(readlink -f "$M/sys/class/misc/tdx_guest")" = "$(readlink -f "$M/sys/devices/virtual/misc/tdx_guest")" ]
	[ "$(cd "$M/$MR" && ls | tr '\n' ' ')" = "mrconfigid mrowner mrownerconfig mrtd:sha384 rtmr0:sha384 rtmr1:sha384 rtmr2:sha384 rtmr3:sha384 " ]
	for f in rtmr0:sha384 rtmr1:sha384 rtmr2:sha384 rtmr3:sha384; do
		[ "$(stat -c '%a %s' "$M/$MR/$f")" = "644 48" ]
	done
	for f in mrtd:sha384 mrconfigid mrowner mrownerconfig; do
		[ "$(stat -c '%a %s' "$M/$MR/$f")" = "444 48" ]
	done
	[ "$(hex rtmr0:sha384)" = "$(jq -r '.tdx_guest.measurements.rtmr0' "$TOPO/guest-tdx.json")" ]
	[ "$(hex mrtd:sha384)" = "$(jq -r '.tdx_guest.measurements.mrtd' "$TOPO/guest-tdx.json")" ]
	# a read past the register's 48 bytes gives nothing
	[ "$(dd if="$M/$MR/rtmr0:sha384" bs=1 skip=48 status=none | wc -c)" -eq 0 ]
}

@test "extend: one write of 48 bytes at offset 0 makes RTMR SHA-384(RTMR || data), and returns 48" {
	mount_topo guest-tdx
	D=$(mktemp)
	head -c 48 /dev/urandom > "$D"
	old=$(hex rtmr2:sha384)
	put_blob "$D" "$M/$MR/rtmr2:sha384"
	[ "$status" -eq 0 ]
	[ "$(hex rtmr2:sha384)" = "$(extended "$old" "$D")" ]
	# the others are untouched
	[ "$(hex rtmr1:sha384)" = "$(jq -r '.tdx_guest.measurements.rtmr1' "$TOPO/guest-tdx.json")" ]
	# twice: it extends what it became
	new=$(hex rtmr2:sha384)
	put_blob "$D" "$M/$MR/rtmr2:sha384"
	[ "$(hex rtmr2:sha384)" = "$(extended "$new" "$D")" ]
	rm -f "$D"
}

@test "extend: fewer than 48 bytes, or any offset but 0, is EINVAL; at 48 EFBIG; nothing changes" {
	mount_topo guest-tdx
	D=$(mktemp)
	head -c 48 /dev/urandom > "$D"
	old=$(hex rtmr0:sha384)
	run dd if="$D" of="$M/$MR/rtmr0:sha384" bs=47 count=1 conv=notrunc status=none
	expect_errno "$EINVAL"
	run dd if="$D" of="$M/$MR/rtmr0:sha384" bs=47 count=1 seek=1 oflag=seek_bytes conv=notrunc status=none
	expect_errno "$EINVAL"
	run dd if="$D" of="$M/$MR/rtmr0:sha384" bs=48 count=1 seek=1 oflag=seek_bytes conv=notrunc status=none
	expect_errno "$EINVAL"
	run dd if="$D" of="$M/$MR/rtmr0:sha384" bs=1 count=1 seek=48 oflag=seek_bytes conv=notrunc status=none
	expect_errno "$EFBIG"
	[ "$(hex rtmr0:sha384)" = "$old" ]
	rm -f "$D"
}

@test "extend: a longer write takes the first 48 bytes and returns 48; the next write on that descriptor is EFBIG" {
	mount_topo guest-tdx
	D=$(mktemp)
	head -c 64 /dev/urandom > "$D"
	old=$(hex rtmr3:sha384)
	# python's os.write shows the short count the kernel returns
	run python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
data = open(sys.argv[2], "rb").read()
print(os.write(fd, data))
try:
    os.write(fd, data[:48])
except OSError as e:
    print(e.errno)
' "$M/$MR/rtmr3:sha384" "$D"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 48 ]
	[ "${lines[1]}" = 27 ]	# EFBIG
	[ "$(hex rtmr3:sha384)" = "$(extended "$old" <(head -c 48 "$D"))" ]
	rm -f "$D"
}

@test "the read-only registers refuse a write at open (EACCES); a non-root writer too" {
	mount_topo guest-tdx
	D=$(mktemp)
	head -c 48 /dev/zero > "$D"
	old=$(hex mrtd:sha384)
	put_blob "$D" "$M/$MR/mrtd:sha384"
	expect_errno "$EACCES"
	[ "$(hex mrtd:sha384)" = "$old" ]
	old=$(hex rtmr0:sha384)
	chmod o+r "$D"
	as_nobody dd if="$D" of="$M/$MR/rtmr0:sha384" bs=48 count=1 conv=notrunc status=none
	expect_errno "$EACCES"
	[ "$(hex rtmr0:sha384)" = "$old" ]
	# reading needs no privilege (0444)
	as_nobody od -An -tx1 "$M/$MR/rtmr0:sha384"
	[ "$status" -eq 0 ]
	rm -f "$D"
}

@test "extend_errno: the TDCALL's error, and the register keeps its value" {
	mount_jq guest-tdx '.tdx_guest.faults = { "extend_errno": "EBUSY" }'
	D=$(mktemp)
	head -c 48 /dev/urandom > "$D"
	old=$(hex rtmr2:sha384)
	put_blob "$D" "$M/$MR/rtmr2:sha384"
	expect_errno "$EBUSY"
	[ "$(hex rtmr2:sha384)" = "$old" ]
	rm -f "$D"
}

@test "tdx_guest's misc device goes with its module" {
	mount_topo guest-tdx
	[ -d "$M/$MR" ]
	"$SIM" modprobe "$M" -r tdx_guest
	[ ! -e "$M/sys/devices/virtual/misc/tdx_guest" ]
	[ ! -e "$M/sys/class/misc/tdx_guest" ]
	"$SIM" modprobe "$M" tdx_guest
	[ "$(stat -c %s "$M/$MR/rtmr0:sha384")" = 48 ]
}

@test "topology: a register is 96 hex digits; unknown registers are refused" {
	T=$(mktemp -d)
	jq '.tdx_guest.measurements.rtmr0 = "00"' "$TOPO/guest-tdx.json" > "$T/a.json"
	run "$SIM" build "$T/a.json" "$T/a"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a register is 96 hex digits"* ]]
	jq '.tdx_guest.measurements.rtmr9 = .tdx_guest.measurements.rtmr0' "$TOPO/guest-tdx.json" > "$T/b.json"
	run "$SIM" build "$T/b.json" "$T/b"
	[ "$status" -eq 1 ]
	[[ "$output" == *'unknown register "rtmr9"'* ]]
}

# ---- SEV-SNP mitigation vectors ----

@test "vulnerabilities: 0400 and 0600, 0x%llx, no uevent file" {
	mount_topo sev-tio-posture
	[ "$(stat -c %a "$M/$VULN/supported_mitigations")" = 400 ]
	[ "$(stat -c %a "$M/$VULN/verified_mitigations")" = 600 ]
	[ "$(cat "$M/$VULN/supported_mitigations")" = 0x7 ]
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x1 ]
	[ ! -e "$M/$VULN/uevent" ]
	[ ! -e "$M/sys/firmware/sev/uevent" ]
	as_nobody cat "$M/$VULN/supported_mitigations"
	expect_errno "$EACCES"
}

@test "verify: one bit verifies it; the kernel's kstrtoull forms" {
	mount_topo sev-tio-posture
	try_write 0x2 "$M/$VULN/verified_mitigations"
	[ "$status" -eq 0 ]
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x3 ]
	# verifying a verified bit again reaches the firmware and succeeds
	try_write $'1\n' "$M/$VULN/verified_mitigations"
	[ "$status" -eq 0 ]
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x3 ]
	[ "$(cat "$M/$VULN/supported_mitigations")" = 0x7 ]
}

@test "verify: not exactly one bit, or no number, is EINVAL; too large ERANGE; nothing changes" {
	mount_topo sev-tio-posture
	for v in 0x6 3 0 0x 0x2junk "0x2 " -2 ""; do
		try_write "$v" "$M/$VULN/verified_mitigations"
		[ -z "$v" ] && continue	# an empty write is no store at all
		expect_errno "$EINVAL" || { echo "value '$v'"; return 1; }
	done
	try_write 0x10000000000000000 "$M/$VULN/verified_mitigations"
	expect_errno "$ERANGE"
	# octal: 010 is 8, one bit, but one the firmware does not support
	try_write 010 "$M/$VULN/verified_mitigations"
	expect_errno "$EINVAL"
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x1 ]
}

@test "verify: a bit that fails to verify is EINVAL; verify_errno and status_errno the firmware's errors" {
	mount_topo sev-tio-posture
	try_write 0x4 "$M/$VULN/verified_mitigations"
	expect_errno "$EINVAL"
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x1 ]
	teardown_sim
	mount_jq sev-tio-posture '.sev_firmware.faults = { "verify_errno": "EIO" }'
	try_write 0x2 "$M/$VULN/verified_mitigations"
	expect_errno "$EIO"
	[ "$(cat "$M/$VULN/verified_mitigations")" = 0x1 ]
	teardown_sim
	mount_jq sev-tio-posture '.sev_firmware.faults = { "status_errno": "EIO" }'
	run cat "$M/$VULN/supported_mitigations"
	expect_errno "$EIO"
	run cat "$M/$VULN/verified_mitigations"
	expect_errno "$EIO"
}

@test "vulnerabilities go with ccp (SNP shut down) and exist only with sev_firmware" {
	mount_topo sev-tio-posture
	"$SIM" modprobe "$M" -r ccp
	[ ! -e "$M/sys/firmware/sev" ]
	teardown_sim
	mount_topo sev-tio
	[ ! -e "$M/sys/firmware/sev" ]
}

# ---- the PSP's security attributes ----

@test "psp: the nine HSTI bits and the versions, 0444, while ccp is bound" {
	mount_topo sev-tio
	for f in fused_part boot_integrity debug_lock_on tsme_status anti_rollback_status \
		 rpmc_production_enabled rpmc_spirom_available hsp_tpm_available rom_armor_enforced \
		 bootloader_version tee_version; do
		[ "$(stat -c %a "$M/$PSP/$f")" = 444 ] || { echo "$f"; return 1; }
	done
	[ "$(cat "$M/$PSP/fused_part") $(cat "$M/$PSP/debug_lock_on") $(cat "$M/$PSP/tsme_status")" = "1 1 0" ]
	[ "$(cat "$M/$PSP/bootloader_version")" = 00.2d.00.78 ]
	[ "$(cat "$M/$PSP/tee_version")" = 00.27.00.1a ]
	# the driver's dev_groups go when it unbinds, and come back when it binds
	try_write 0000:02:00.1 "$M/sys/bus/pci/drivers/ccp/unbind"
	[ "$status" -eq 0 ]
	[ ! -e "$M/$PSP/fused_part" ]
	[ ! -e "$M/$PSP/bootloader_version" ]
	try_write 0000:02:00.1 "$M/sys/bus/pci/drivers/ccp/bind"
	[ "$(cat "$M/$PSP/fused_part")" = 1 ]
}

@test "psp: no security group without reporting, boot_integrity only where given, a version all ones hidden" {
	mount_jq sev-tio '(.. | objects | select(.bdf? == "0000:02:00.1") | .psp) = { "bootloader_version": "0xffffffff", "tee_version": "0x01020304" }'
	[ ! -e "$M/$PSP/fused_part" ]
	[ ! -e "$M/$PSP/boot_integrity" ]
	[ ! -e "$M/$PSP/bootloader_version" ]
	[ "$(cat "$M/$PSP/tee_version")" = 01.02.03.04 ]
	teardown_sim
	mount_jq sev-tio '(.. | objects | select(.bdf? == "0000:02:00.1") | .psp.security) |= del(.boot_integrity)'
	[ "$(cat "$M/$PSP/fused_part")" = 1 ]
	[ ! -e "$M/$PSP/boot_integrity" ]
}

# ---- serial_number ----

@test "serial_number: 0400, %8phD most significant byte first, the DSN capability behind it" {
	mount_topo sev-tio-posture
	N=sys/bus/pci/devices/0000:41:00.0
	[ "$(stat -c %a "$M/$N/serial_number")" = 400 ]
	[ "$(cat "$M/$N/serial_number")" = b8-ce-f6-03-00-a1-b2-c3 ]
	[ "$(cat "$M/sys/bus/pci/devices/0000:41:00.1/serial_number")" = b8-ce-f6-03-00-a1-b2-c3 ]
	o=$(ext_cap "$M/$N/config" 0x0003)
	[ -n "$o" ]
	[ "$(u32 "$M/$N/config" $((o + 8)))$(u32 "$M/$N/config" $((o + 4)))" = b8cef60300a1b2c3 ]
	# the IDE capability kept its offset: the DSN comes last
	[ "$(ext_cap "$M/$N/config" 0x30)" = "$(ext_cap "$M/sys/bus/pci/devices/0000:81:00.0/config" 0x30)" ]
	[ ! -e "$M/$PSP/serial_number" ]
	as_nobody cat "$M/$N/serial_number"
	expect_errno "$EACCES"
}

@test "serial_number: EIO when the DSN reads 0 now" {
	mount_topo sev-tio-posture
	run cat "$M/sys/bus/pci/devices/0000:81:00.0/serial_number"
	expect_errno "$EIO"
	[ "$(cat "$M/sys/bus/pci/devices/0000:82:00.0/serial_number")" = 00-25-38-b9-21-a4-c6-e1 ]
}

@test "report fault concurrent_extend: once a report is made, RTMR N-1 moves by SHA-384(old || 0x5a...)" {
	mount_jq guest-tdx '.report.faults = { "concurrent_extend": 4 }'
	old=$(hex rtmr3:sha384)
	R=$M/sys/kernel/config/tsm/report
	mkdir "$R/e"
	head -c 64 /dev/zero > "$R/e/inblob"
	[ "$(hex rtmr3:sha384)" = "$old" ]
	cat "$R/e/outblob" > /dev/null
	D=$(mktemp)
	head -c 48 /dev/zero | tr '\0' '\132' > "$D"
	[ "$(hex rtmr3:sha384)" = "$(extended "$old" "$D")" ]
	# once per report made: reading it again changes nothing
	new=$(hex rtmr3:sha384)
	cat "$R/e/outblob" > /dev/null
	[ "$(hex rtmr3:sha384)" = "$new" ]
	rmdir "$R/e"
	rm -f "$D"
}
