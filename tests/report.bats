#!/usr/bin/env bats
# tsmctl report against the live simulator's configfs-tsm reports (ABI.md
# §1.4): the blobs checked byte for byte against the simulator's documented
# layout, the generation check (a racing writer, an inblob that did not
# take), errno advice, and no entry left in report/ after any run.

load lib/helpers

setup() {
	NONCE64=$(printf '%02x' $(seq 0 63) | tr -d '\n')	# 00 01 ... 3f
	printf "$(printf '\\x%02x' $(seq 0 63))" > "$BATS_TEST_TMPDIR/nonce64"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/nonce64")" = 64 ]
}

teardown() {
	release_held	# a process a failed test left held
	[ -z "${BG:-}" ] || kill "$BG" 2>/dev/null || true
	unmount_live
}

# mount_guest NAME [REPORT_JSON]: live topology NAME, its .report replaced when given; sets R.
mount_guest() {
	local topo="$TOPO/$1.json"
	if [ -n "${2:-}" ]; then
		topo="$BATS_TEST_TMPDIR/$1-custom.json"
		jq --argjson r "$2" '.report = $r' "$TOPO/$1.json" > "$topo"
	fi
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$topo" "$ROOT" || return 1
	R=$ROOT/sys/kernel/config/tsm/report
}

# No entry is left behind in report/.
report_empty() {
	local left
	left=$(ls -A "$R")
	[ -z "$left" ] && return 0
	echo "left in report/: $left"
	return 1
}

# expected_outblob PROVIDER PRIVLEVEL INBLOB_FILE: the simulator README's layout
expected_outblob() {
	local n=$((${#1} + 1 + ${#2} + 1 + $(stat -c %s "$3")))
	printf '%s\0%s\0' "$1" "$2"
	cat "$3"
	head -c $((1184 - n)) /dev/zero
}

# traced ARGS...: run tsmctl under strace (mkdirat/unlinkat/opens/writes to $BATS_TEST_TMPDIR/trace)
traced() {
	# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=mkdirat,unlinkat,openat,openat2,write \
		-o "$BATS_TEST_TMPDIR/trace" "$TSMCTL" --sysroot "$ROOT" "$@"
}

# held_report INJECT ARGS...: tsmctl report ARGS in the background (pid BG) under strace,
# stopped by strace's SIGSTOP injected as INJECT says ("mkdirat:when=1"); returns once it
# is held (its pid HELD). End with held_done, which lets it go and waits for it.
held_report() {
	local inject=$1
	shift
	# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=mkdirat,unlinkat,write,clock_nanosleep,nanosleep \
		-e inject="${inject%%:*}:signal=SIGSTOP:${inject#*:}" \
		"$TSMCTL" --sysroot "$ROOT" report "$@" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	BG=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
}

# held_done [SIGNAL]: send SIGNAL (if given) to the held tsmctl, let it go, its status,
# stdout and stderr into status, output and stderr.
held_done() {
	[ -z "${1:-}" ] || kill -"$1" "$HELD"
	kill -CONT "$HELD"
	status=0
	wait "$BG" || status=$?
	BG=
	output=$(cat "$BATS_TEST_TMPDIR/out")
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

mkdirs_traced() {
	grep -c 'mkdirat([0-9]*, "tsmctl\.[0-9]*\.[0-9a-f]\{16\}"' "$BATS_TEST_TMPDIR/trace" || true
}

@test "sev_guest: a 64-byte nonce and privlevel 2 give the provider's outblob, byte for byte; the entry is gone" {
	mount_guest guest-sev
	run --separate-stderr t report --nonce "$NONCE64" --privlevel 2 --outblob "$BATS_TEST_TMPDIR/out.bin"
	expect_status 0
	expected_outblob sev_guest 2 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/out.bin"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/out.bin")" = 600 ]
	[ "${lines[0]}" = "provider:     sev_guest" ]
	[ "${lines[1]}" = "generation:   2" ]
	[ "${lines[2]}" = "privlevel:    2" ]
	[ "${lines[3]}" = "inblob:       64 bytes (from --nonce)" ]
	sum=$(sha256sum < "$BATS_TEST_TMPDIR/out.bin" | cut -d' ' -f1)
	[ "${lines[4]}" = "outblob:      1184 bytes, sha256 $sum, written to $BATS_TEST_TMPDIR/out.bin" ]
	[[ "${lines[5]}" == "auxblob:      512 bytes, sha256 "*", not saved" ]]
	[ -z "$stderr" ]
	report_empty
	# no temporary file left beside the output
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c tsmctl-)" = 0 ]
}

@test "-J: the pinned keys, sizes, and SHA-256 digests equal to sha256sum of the files written" {
	mount_guest guest-sev
	run --separate-stderr t report -J --nonce "$NONCE64" --privlevel 1 \
		--outblob "$BATS_TEST_TMPDIR/o" --auxblob "$BATS_TEST_TMPDIR/a"
	expect_status 0
	json_is 'keys' '["reports","schema_version"]'
	json_is '.reports | length' 1
	json_is '.reports[0] | keys' '["attempts","auxblob","generation","inblob","manifestblob","measurement_registers","outblob","privlevel","privlevel_floor","provider","service_guid","service_manifest_version","service_provider"]'
	json_is '.reports[0] | [.provider, .generation, .attempts, .privlevel, .privlevel_floor]' '["sev_guest",2,1,1,0]'
	json_is '.reports[0].inblob | [.source, .input_size, .size, .padded]' '["--nonce",64,64,false]'
	json_is '.reports[0].inblob.sha256' "\"$(sha256sum < "$BATS_TEST_TMPDIR/nonce64" | cut -d' ' -f1)\""
	json_is '.reports[0].outblob' "{\"size\":1184,\"sha256\":\"$(sha256sum < "$BATS_TEST_TMPDIR/o" | cut -d' ' -f1)\",\"path\":\"$BATS_TEST_TMPDIR/o\"}"
	json_is '.reports[0].auxblob' "{\"size\":512,\"sha256\":\"$(sha256sum < "$BATS_TEST_TMPDIR/a" | cut -d' ' -f1)\",\"path\":\"$BATS_TEST_TMPDIR/a\"}"
	# no service report, so no manifest: not read, no digest of nothing
	json_is '.reports[0].manifestblob' null
	json_is '.reports[0] | [.service_provider, .service_guid, .service_manifest_version]' '[null,null,null]'
	# sev_guest has no measurement registers in sysfs (ABI.md §7.1)
	json_is '.reports[0].measurement_registers' null
	expected_outblob sev_guest 1 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	{ printf 'sev_guest\0certs\0'; head -c $((512 - 16)) /dev/zero; } | cmp - "$BATS_TEST_TMPDIR/a"
	[ -z "$stderr" ]
	report_empty
}

@test "a short nonce is zero-padded to the 64 bytes the providers take; -v and -J say so" {
	mount_guest guest-sev
	run --separate-stderr t report -v -J --nonce c0ffee --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 0
	json_is '.reports[0].inblob | [.input_size, .size, .padded]' '[3,64,true]'
	json_is '.reports[0] | [.generation, .privlevel]' '[1,0]'
	[[ "$stderr" == *"--nonce is 3 bytes: padded with 61 zero bytes to the 64 the providers take"* ]]
	[[ "$stderr" == *"mkdir $ROOT/sys/kernel/config/tsm/report/tsmctl."* ]]
	[[ "$stderr" == *"/inblob: 64 bytes"* ]]
	[[ "$stderr" == *"rmdir $ROOT/sys/kernel/config/tsm/report/tsmctl."* ]]
	{ printf '\xc0\xff\xee'; head -c 61 /dev/zero; } > "$BATS_TEST_TMPDIR/padded"
	expected_outblob sev_guest 0 "$BATS_TEST_TMPDIR/padded" | cmp - "$BATS_TEST_TMPDIR/o"
	report_empty
}

@test "--inblob FILE and --inblob - (stdin) carry the bytes as they are, NUL and newline included" {
	mount_guest guest-sev
	{ printf 'nonce\0with\nbytes:'; printf '%047d' 42; } > "$BATS_TEST_TMPDIR/in"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/in")" = 64 ]
	run t report --inblob "$BATS_TEST_TMPDIR/in" --outblob "$BATS_TEST_TMPDIR/o1"
	expect_status 0
	expected_outblob sev_guest 0 "$BATS_TEST_TMPDIR/in" | cmp - "$BATS_TEST_TMPDIR/o1"
	run bash -c '"$1" --sysroot "$2" report --inblob - --outblob "$3" < "$4"' _ \
		"$TSMCTL" "$ROOT" "$BATS_TEST_TMPDIR/o2" "$BATS_TEST_TMPDIR/in"
	expect_status 0
	cmp "$BATS_TEST_TMPDIR/o1" "$BATS_TEST_TMPDIR/o2"
	report_empty
}

@test "--outblob - writes the report to a pipe, and nothing else goes to stdout" {
	mount_guest guest-sev
	"$TSMCTL" --sysroot "$ROOT" report --nonce "$NONCE64" --privlevel 3 --outblob - > "$BATS_TEST_TMPDIR/piped"
	expected_outblob sev_guest 3 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/piped"
	report_empty
	# a stdout that takes nothing is named as stdout, with the cause
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c '"$0" --sysroot "$1" report --nonce 00 --outblob - >/dev/full' "$TSMCTL" "$ROOT"
	expect_status 1
	[ "$output" = "tsmctl report: --outblob - (standard output): writing: No space left on device" ]
	report_empty
}

@test "--outblob - on a terminal is refused before any entry is made" {
	mount_guest guest-sev
	command -v script >/dev/null || skip "script (util-linux) not installed"
	run script -qec "$TSMCTL --sysroot $ROOT report --nonce 00 --outblob -" /dev/null
	expect_status 2
	[[ "$output" == *"tsmctl report: --outblob -: refusing to write a binary blob to a terminal; redirect stdout or give a file"* ]]
	[[ "$output" != *sev_guest* ]]
	report_empty
}

@test "bad input is refused before mkdir: >64-byte nonce or inblob, bad hex, privlevel, GUID, option combinations" {
	mount_guest guest-sev
	command -v strace >/dev/null || skip "strace not installed"
	head -c 65 /dev/zero > "$BATS_TEST_TMPDIR/in65"
	: > "$BATS_TEST_TMPDIR/empty"
	while IFS='|' read -r args msg; do
		# shellcheck disable=SC2086  # ARGS is a word list
		run --separate-stderr traced report $args
		[ "$status" -eq 2 ] || { echo "$args: exit $status: $stderr"; return 1; }
		[[ "$stderr" == *"$msg"* ]] || { echo "$args: $stderr"; return 1; }
		[ "$(mkdirs_traced)" = 0 ] || { echo "$args made an entry"; return 1; }
	done <<-EOF
	--nonce ${NONCE64}00|--nonce is 65 bytes; the kernel takes at most 64
	--inblob $BATS_TEST_TMPDIR/in65|holds more than 64 bytes, the most the kernel takes
	--inblob $BATS_TEST_TMPDIR/empty|is empty
	--nonce abc|--nonce has an odd number of hex digits (3)
	--nonce 0g|--nonce: 'g' is not a hex digit
	--privlevel 1|give exactly one of --nonce HEX and --inblob FILE
	--nonce 00 --inblob $BATS_TEST_TMPDIR/in65|give exactly one of --nonce HEX and --inblob FILE
	--nonce 00 --privlevel 4|invalid --privlevel '4' (a whole number, 0-3)
	--nonce 00 --privlevel -1|invalid --privlevel '-1' (a whole number, 0-3)
	--nonce 00 --privlevel 1x|invalid --privlevel '1x' (a whole number, 0-3)
	--nonce 00 --privlevel 0x1|invalid --privlevel '0x1' (a whole number, 0-3)
	--nonce 00 --privlevel 1.5|invalid --privlevel '1.5' (a whole number, 0-3)
	--nonce 00 --service-provider svsm --service-guid 1234|invalid --service-guid '1234'
	--nonce 00 --service-provider svsm --service-guid 12345678-1234-1234-1234-123456789abcd|invalid --service-guid
	--nonce 00 --service-guid 12345678-1234-1234-1234-123456789abc|--service-guid and --service-manifest-version need --service-provider
	--nonce 00 --service-provider svsm --service-manifest-version 4294967296|invalid --service-manifest-version '4294967296' (a whole number, 0-4294967295)
	--nonce 00 --service-provider svsm --service-manifest-version 2.5|invalid --service-manifest-version '2.5' (a whole number, 0-4294967295)
	--nonce 00 --manifestblob $BATS_TEST_TMPDIR/m|--manifestblob needs --service-provider
	--nonce 00 --outblob - --auxblob -|only one blob can go to stdout ('-')
	--nonce 00 --outblob $BATS_TEST_TMPDIR/x --auxblob $BATS_TEST_TMPDIR/x|each blob needs its own file
	--nonce 00 -J --outblob -|--outblob -: stdout carries the JSON with --json
	EOF
	report_empty
}

@test "an output file in a missing directory fails before mkdir; an existing file is replaced whole, mode 0600" {
	mount_guest guest-sev
	command -v strace >/dev/null || skip "strace not installed"
	run --separate-stderr traced report --nonce 00 --outblob "$BATS_TEST_TMPDIR/nodir/o"
	expect_status 1
	[ "$stderr" = "tsmctl report: --outblob $BATS_TEST_TMPDIR/nodir/o: creating a temporary file: No such file or directory" ]
	[ "$(mkdirs_traced)" = 0 ]
	head -c 5000 /dev/urandom > "$BATS_TEST_TMPDIR/o"
	chmod 644 "$BATS_TEST_TMPDIR/o"
	run t report --nonce "$NONCE64" --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 0
	expected_outblob sev_guest 0 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/o")" = 600 ]
	report_empty
}

@test "service report below an SVSM: provider, GUID and version written (4 generations), manifestblob as documented" {
	mount_guest guest-sev
	run --separate-stderr t report -J --nonce "$NONCE64" --service-provider svsm \
		--service-guid 12345678-9abc-DEF0-1234-56789abcdef0 --service-manifest-version 7 \
		--manifestblob "$BATS_TEST_TMPDIR/m"
	expect_status 0
	json_is '.reports[0] | [.generation, .service_provider, .service_guid, .service_manifest_version]' \
		'[4,"svsm","12345678-9abc-DEF0-1234-56789abcdef0",7]'
	json_is '.reports[0].manifestblob.size' 256
	json_is '.reports[0].manifestblob.sha256' "\"$(sha256sum < "$BATS_TEST_TMPDIR/m" | cut -d' ' -f1)\""
	{ printf 'svsm\0%s\0%s\0' 12345678-9abc-def0-1234-56789abcdef0 7; head -c $((256 - 44)) /dev/zero; } |
		cmp - "$BATS_TEST_TMPDIR/m"
	report_empty
}

@test "sev_guest without an SVSM: --service-provider and --manifestblob refused before any store" {
	mount_guest guest-sev '{"provider": "sev_guest"}'
	command -v strace >/dev/null || skip "strace not installed"
	run --separate-stderr traced report --nonce 00 --service-provider svsm --manifestblob "$BATS_TEST_TMPDIR/m"
	expect_status 1
	[ "$stderr" = "tsmctl report: the sev_guest provider has no service_provider attribute: it does not take --service-provider (service reports need sev_guest below an SVSM); nothing was written" ]
	[ "$(mkdirs_traced)" = 1 ]
	[ "$(grep -c 'openat2(.*O_WRONLY' "$BATS_TEST_TMPDIR/trace")" = 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/m" ]
	report_empty
}

@test "sev_guest refuses a service provider other than svsm when the report is read (EINVAL advice)" {
	mount_guest guest-sev
	run --separate-stderr t report --nonce 00 --service-provider other
	expect_status 1
	[ "$stderr" = "tsmctl report: reading outblob: the provider refused the inputs (sev_guest takes only the service provider 'svsm') (EINVAL)" ]
	report_empty
}

@test "tdx_guest: no privlevel — --privlevel refused with nothing written; the outblob carries privlevel 0" {
	mount_guest guest-tdx
	command -v strace >/dev/null || skip "strace not installed"
	run --separate-stderr traced report --nonce "$NONCE64" --privlevel 1
	expect_status 1
	[ "$stderr" = "tsmctl report: the tdx_guest provider has no privlevel attribute: it does not take --privlevel; nothing was written" ]
	# the entry was made to look at its attributes, nothing opened for writing, then removed
	[ "$(mkdirs_traced)" = 1 ]
	[ "$(grep -c 'openat2(.*"sys/kernel/config/tsm/report/tsmctl\.' "$BATS_TEST_TMPDIR/trace")" -ge 1 ]
	[ "$(grep -c 'openat2(.*O_WRONLY' "$BATS_TEST_TMPDIR/trace")" = 0 ]
	[ "$(grep -c 'unlinkat([0-9]*, "tsmctl\..*AT_REMOVEDIR) = 0' "$BATS_TEST_TMPDIR/trace")" = 1 ]
	report_empty
	run --separate-stderr t report --nonce "$NONCE64" --auxblob "$BATS_TEST_TMPDIR/a"
	expect_status 1
	[ "$stderr" = "tsmctl report: the tdx_guest provider has no auxblob attribute: it does not take --auxblob; nothing was written" ]
	[ ! -e "$BATS_TEST_TMPDIR/a" ]
	run --separate-stderr t report -J --nonce "$NONCE64" --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 0
	json_is '.reports[0] | [.provider, .generation, .privlevel, .privlevel_floor, .auxblob, .manifestblob]' \
		'["tdx_guest",1,null,null,null,null]'
	expected_outblob tdx_guest 0 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	report_empty
}

@test "privlevel below privlevel_floor: the kernel's EINVAL explained with the floor" {
	mount_guest guest-sev '{"provider": "sev_guest", "privlevel_floor": 2}'
	run --separate-stderr t report --nonce 00 --privlevel 1 --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 1
	[ "$stderr" = "tsmctl report: privlevel 1 is below this guest's privlevel_floor 2: the provider cannot report for a more privileged level than its own; use --privlevel 2-3 (EINVAL)" ]
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c tsmctl-)" = 0 ]
	report_empty
	run t report -J --nonce 00 --privlevel 2
	expect_status 0
	json_is '.reports[0] | [.privlevel, .privlevel_floor]' '[2,2]'
}

@test "no report provider (ENXIO): names the guest modules to load" {
	mount_guest guest-noprovider
	run --separate-stderr t report --nonce 00
	expect_status 1
	[ "$stderr" = "tsmctl report: no attestation report provider is registered: load this guest's driver [sev_guest (AMD SEV-SNP guest): not loaded; tdx_guest (Intel TDX guest): not loaded; arm_cca_guest (Arm CCA realm): not loaded] (ENXIO)" ]
	report_empty
}

@test "no configfs report group: says configfs is missing, or that tsm_report is not there" {
	mount_guest no-tsm
	run --separate-stderr t report --nonce 00
	expect_status 1
	[ "$stderr" = "tsmctl report: no $ROOT/sys/kernel/config: configfs is not mounted (mount -t configfs none /sys/kernel/config) (ENOENT)" ]
	# a tree with configfs mounted but no tsm group
	mkdir -p "$BATS_TEST_TMPDIR/cfg/sys/kernel/config"
	run --separate-stderr "$TSMCTL" --sysroot "$BATS_TEST_TMPDIR/cfg" report --nonce 00
	expect_status 1
	[[ "$stderr" == "tsmctl report: no $BATS_TEST_TMPDIR/cfg/sys/kernel/config/tsm: the kernel lacks configfs-tsm reports (CONFIG_TSM_REPORTS, module tsm_report) or it is not loaded [sev_guest"*"(ENOENT)" ]]
}

@test "not root: mkdir's EACCES says root is needed" {
	mount_guest guest-sev
	command -v setpriv >/dev/null || skip "setpriv not installed"
	open_path_to_root
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" report --nonce 00
	expect_status 1
	[ "$stderr" = "tsmctl report: creating a report entry in $ROOT/sys/kernel/config/tsm/report needs root: run tsmctl as root (EACCES)" ]
	report_empty
}

@test "a writer that races in every entry (concurrent_writer): 3 fresh entries, then a failure that says so" {
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"concurrent_writer": 1}}'
	command -v strace >/dev/null || skip "strace not installed"
	run --separate-stderr traced report --nonce 00 --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 1
	[ "$stderr" = "tsmctl report: another writer kept changing the report inputs: in each of 3 fresh entries the generation moved past the 1 write made (last 2); find and stop the other writer, then try again (EAGAIN)" ]
	[ "$(mkdirs_traced)" = 3 ]
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
	report_empty
}

@test "a writer that races once: the first entry is abandoned, a fresh one gives the report" {
	mount_guest guest-sev
	command -v strace >/dev/null || skip "strace not installed"
	# tsmctl is held right after its first mkdir returns, while another process stores
	# privlevel into that entry
	held_report mkdirat:when=1 -J -v --nonce "$NONCE64" --privlevel 2 --outblob "$BATS_TEST_TMPDIR/o"
	d=$(echo "$R"/*/)
	[ -d "$d" ]
	echo 0 > "$d/privlevel"
	held_done
	expect_status 0
	json_is '.reports[0] | [.attempts, .generation]' '[2,2]'
	[[ "$stderr" == *"generation 3 after 2 writes: another writer raced; trying a fresh entry"* ]]
	expected_outblob sev_guest 2 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	report_empty
}

@test "an inblob commit that fails at close (commit_errno): the unchanged generation is caught" {
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"commit_errno": "EBUSY"}}'
	run --separate-stderr t report --nonce 00 --privlevel 1 --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 1
	[ "$stderr" = "tsmctl report: the kernel did not apply the inblob: generation is 1 after 2 writes. configfs commits a binary attribute at close and drops the commit's error (e.g. the generation guard's EBUSY), so the report would not carry this nonce" ]
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
	report_empty
}

@test "outblob EBUSY: retried with backoff; a provider that stays busy is explained" {
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"outblob_errno": "EBUSY", "outblob_errno_reads": 2}}'
	run --separate-stderr t report -J -v --nonce "$NONCE64" --outblob "$BATS_TEST_TMPDIR/o"
	expect_status 0
	[ "$(grep -c 'outblob busy, again in' <<< "$stderr")" = 2 ]
	expected_outblob sev_guest 0 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	report_empty
	unmount_live
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"outblob_errno": "EBUSY"}}'
	run --separate-stderr t report --nonce 00 --outblob "$BATS_TEST_TMPDIR/o2"
	expect_status 1
	[ "$stderr" = "tsmctl report: reading outblob: the provider stayed busy through 4 retries (another report or a TDX quote in flight?); try again later (EBUSY)" ]
	[ ! -e "$BATS_TEST_TMPDIR/o2" ]
	report_empty
}

@test "outblob EFBIG: the report is over the kernel's configfs maximum" {
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"outblob_errno": "EFBIG"}}'
	run --separate-stderr t report --nonce 00
	expect_status 1
	[ "$stderr" = "tsmctl report: reading outblob: the report is larger than the kernel's configfs maximum (32 KiB up to v6.19, 16 MiB since v7.0) (EFBIG)" ]
	report_empty
}

# interrupt_busy SIGNAL: tsmctl held in its first EBUSY backoff sleep (stopped there, so
# the signal comes during it whatever the machine's speed), then SIGNAL
interrupt_busy() {
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"outblob_errno": "EBUSY"}}'
	command -v strace >/dev/null || skip "strace not installed"
	held_report clock_nanosleep,nanosleep:when=1 --nonce 00 --outblob "$BATS_TEST_TMPDIR/o"
	[ -n "$(ls -A "$R")" ]
	held_done "$1"
}

@test "SIGINT mid-report: the entry is removed, exit 130, no output file" {
	interrupt_busy INT
	expect_status 130
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "tsmctl report: interrupted by SIGINT; the report entry was removed" ]
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c tsmctl-)" = 0 ]
	report_empty
}

@test "SIGTERM mid-report: the entry is removed, exit 143" {
	interrupt_busy TERM
	expect_status 143
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "tsmctl report: interrupted by SIGTERM; the report entry was removed" ]
	report_empty
}

@test "SIGINT while a store is held in the kernel: the store completes, nothing more is written, the entry goes" {
	mount_guest guest-sev
	command -v strace >/dev/null || skip "strace not installed"
	# held (stopped) as its first store, privlevel, returns: the signal queued then is taken
	# where one that came during the store is, as the store returns
	held_report write:when=1 --nonce 00 --privlevel 1
	[ -n "$(ls -A "$R")" ]
	held_done INT
	expect_status 130
	grep -q 'write([0-9]*, "1", 1)' "$BATS_TEST_TMPDIR/trace"
	# the inblob was never written; the entry was removed
	[ "$(grep -c 'write([0-9]*, .*, 64)' "$BATS_TEST_TMPDIR/trace")" = 0 ]
	[ "$(grep -c 'unlinkat([0-9]*, "tsmctl\..*AT_REMOVEDIR) = 0' "$BATS_TEST_TMPDIR/trace")" = 1 ]
	grep -q 'interrupted by SIGINT; the report entry was removed' "$BATS_TEST_TMPDIR/err"
	report_empty
}

@test "bash completion: file names after --inblob and --outblob, nothing after --nonce" {
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	ln -s "$TSMCTL" "$BIN/tsmctl"
	mkdir "$BATS_TEST_TMPDIR/files"
	touch "$BATS_TEST_TMPDIR/files/nonce.bin" "$BATS_TEST_TMPDIR/files/report.bin"
	complete_words() {
		PATH=$BIN:$PATH bash -c '
			source "$1/completions/tsmctl.bash"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			_tsmctl
			printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP" "$@"
	}
	run complete_words tsmctl report --inblob "$BATS_TEST_TMPDIR/files/n"
	[ "$output" = "$BATS_TEST_TMPDIR/files/nonce.bin" ]
	run complete_words tsmctl report --nonce 00 --outblob "$BATS_TEST_TMPDIR/files/r"
	[ "$output" = "$BATS_TEST_TMPDIR/files/report.bin" ]
	run complete_words tsmctl report --nonce ""
	[ -z "$output" ]
	run complete_words tsmctl report --out
	[ "$output" = "--outblob" ]
}

@test "a store between the generation check and the blob reads is caught by the second check" {
	# outblob is EBUSY 4 times per entry: tsmctl is held in its first backoff sleep, after
	# the first check, while another process stores privlevel into the entry
	mount_guest guest-sev '{"provider": "sev_guest", "faults": {"outblob_errno": "EBUSY", "outblob_errno_reads": 4}}'
	command -v strace >/dev/null || skip "strace not installed"
	held_report clock_nanosleep,nanosleep:when=1 -J -v --nonce "$NONCE64" --outblob "$BATS_TEST_TMPDIR/o"
	d=$(echo "$R"/*/)
	[ "$(cat "$d/generation")" = 1 ]	# its inblob took
	echo 3 > "$d/privlevel"
	held_done
	expect_status 0
	json_is '.reports[0] | [.attempts, .generation, .privlevel]' '[2,1,0]'
	# the first entry got past the first check and into the reads before the race was seen
	first=$(sed -n '1,/another writer raced/p' <<< "$stderr")
	[[ "$first" == *"outblob busy, again in"* ]]
	[[ "$first" == *"generation 2 after 1 write: another writer raced; trying a fresh entry" ]]
	# the report is ours: privlevel 0, not the other writer's 3
	expected_outblob sev_guest 0 "$BATS_TEST_TMPDIR/nonce64" | cmp - "$BATS_TEST_TMPDIR/o"
	report_empty
}

@test "--outblob, --auxblob: a symbolic link or device node is refused before mkdir, never replaced" {
	mount_guest guest-sev
	command -v strace >/dev/null || skip "strace not installed"
	echo keep > "$BATS_TEST_TMPDIR/target"
	ln -s target "$BATS_TEST_TMPDIR/link"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run --separate-stderr traced report --nonce 00 --outblob "$BATS_TEST_TMPDIR/link"
	expect_status 1
	[ "$stderr" = "tsmctl report: --outblob $BATS_TEST_TMPDIR/link: a symbolic link, not a regular file: refusing to replace it (name a regular file, or '-' for stdout)" ]
	[ "$(mkdirs_traced)" = 0 ]
	[ -L "$BATS_TEST_TMPDIR/link" ]
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = keep ]
	run --separate-stderr traced report --nonce 00 --outblob "$BATS_TEST_TMPDIR/o" --auxblob "$BATS_TEST_TMPDIR/fifo"
	expect_status 1
	[[ "$stderr" == *"--auxblob $BATS_TEST_TMPDIR/fifo: a FIFO, not a regular file"* ]]
	[ "$(mkdirs_traced)" = 0 ]
	[ -p "$BATS_TEST_TMPDIR/fifo" ]
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
	if ls -A "$BATS_TEST_TMPDIR" | grep -q tsmctl-; then false; fi
	report_empty
}
