#!/usr/bin/env bats
# tsmctl against hostile sysroots: every case of tests/hostile/gen-trees (links
# that loop, dangle or leave the root, FIFOs, huge files, hostile bytes, odd
# names, broken config spaces, unreadable files, deep paths, crowded
# directories) under every read command, table and JSON. Nothing may crash,
# hang, print invalid JSON, pass the tree's control characters to the
# terminal, or open a file outside the root.
#
# The trees are made once, and every command is run on every case once in
# setup_file (in parallel); the tests then check the recorded results.

load lib/helpers

# The read commands; each runs as a table and with -J.
CMDS=("list" "devices" "devices --all" "streams" "streams -v" "host-bridges" "audit" "tree --all"
	"devices --all -v")
JSON_ARRAY=(tsms devices devices streams streams host_bridges checks tree devices)
JSON_VERSION=(1 1 1 1 1 2 1 1 1)	# each document's schema_version (host_bridges: tsm became tsms)
JSON_SCHEMA=(list devices devices streams streams host-bridges audit tree devices)	# schema/NAME.schema.json
# The ones that read everything the others do (devices --all ⊇ devices, streams -v ⊇ streams,
# tree --all and devices --all -v ⊇ devices --all): traced, and run as nobody.
WIDE=(0 2 4 5 6 7 8)
# A hang limit, not a speed target: a sanitizer build (make check-asan sets
# ASAN_OPTIONS) runs each allocation through its quarantine, several times slower.
LIMIT=10
[ -z "${ASAN_OPTIONS:-}" ] || LIMIT=40

# run_one CASE_DIR OUT_PREFIX CMD [ARGS...]: one bounded run, stdout, stderr and status recorded.
run_one() {
	local root=$1 out=$2 rc=0
	shift 2
	LC_ALL=C.UTF-8 timeout -k 2 "$LIMIT" "$TSMCTL" --sysroot "$root" "$@" \
		</dev/null >"$out.out" 2>"$out.err" || rc=$?
	echo "${out##*/} $rc" >>"${out%/*}/rc"
}

# Run every command on each case named on stdin; results in $OUT/CASE/N.{out,err,rc}.
run_cases() {
	local c i j
	while read -r c; do
		mkdir -p "$OUT/$c"
		i=0
		for j in "${!CMDS[@]}"; do
			# shellcheck disable=SC2086 # the command words split on purpose
			run_one "$TREES/$c" "$OUT/$c/$i" ${CMDS[$j]}
			# shellcheck disable=SC2086
			run_one "$TREES/$c" "$OUT/$c/$((i + 1))" ${CMDS[$j]} -J
			i=$((i + 2))
		done
	done
}

# in_parallel FUNC: FUNC reads case names on stdin; the cases on our stdin are dealt
# out to one FUNC per CPU (at most 4). fd 3 is closed so bats does not wait on them.
in_parallel() {
	local workers w list
	list=$(cat)
	workers=$(nproc 2>/dev/null || echo 2)
	[ "$workers" -le 4 ] || workers=4
	for ((w = 0; w < workers; w++)); do
		awk -v w=$w -v n="$workers" 'NR % n == w' <<<"$list" | "$1" 3>&- &
	done
	wait
}

setup_file() {
	export TREES=$BATS_FILE_TMPDIR/trees OUT=$BATS_FILE_TMPDIR/out
	"$TOP/tests/hostile/gen-trees" "$TREES" >/dev/null
	(cd "$TREES" && ls) | in_parallel run_cases
}

teardown_file() {
	# gen-trees left mode-000 files and dirs behind; make sure the clean-up can remove them.
	chmod -R u+rwx "$BATS_FILE_TMPDIR" 2>/dev/null || true
}

# "CASE: tsmctl CMD [-J]" for result N of a case.
describe() {
	local c=$1 n=$2
	echo "$c: tsmctl ${CMDS[$((n / 2))]}$([ $((n % 2)) -eq 1 ] && echo ' -J')"
}

cases() { (cd "$TREES" && ls); }

@test "hostile trees: the generator made every kind of case" {
	local n
	n=$(cases | wc -l)
	echo "$n cases"
	[ "$n" -ge 250 ]
	for c in tsm0-self tsm0-loop bdf-abs-passwd stream-rel-etc tsm-device-rel-etc fifo-config \
		fifo-connect fifo-available dir-config huge-config-100M huge-connect connect-nul \
		pci_mode-esc dsm-non-utf8 available-0 stream-name-huge stream-name-alpha \
		tsm-name-negative tsm-name-upper bdf-name-upper bdf-name-newline ep-config-cut-64 \
		ep-config-all-ones ep-config-random-1 ep-config-ext-loop unreadable-config \
		deep-below-hb hb-10000-entries; do
		[ -d "$TREES/$c" ] || { echo "missing case $c"; return 1; }
	done
	# 100 MiB and 1 MiB, but sparse.
	[ "$(stat -c %s "$TREES/huge-config-100M/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/config")" -eq 104857600 ]
	[ "$(du -k "$TREES/huge-config-100M/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/config" | cut -f1)" -lt 1024 ]
	[ "$(ls "$TREES/hb-10000-entries/sys/devices/pci0000:40" | wc -l)" -gt 10000 ]
}

@test "hostile trees: every read command exits 0, 1 or 2 within the hang limit (no crash, no hang)" {
	local bad=0 runs=0 c n rc
	for c in $(cases); do
		while read -r n rc; do
			runs=$((runs + 1))
			case $rc in
			0 | 1 | 2) ;;
			*)
				echo "$(describe "$c" "$n"): exit $rc$([ "$rc" -ge 124 ] && echo ' (timeout or signal)')"
				head -c 600 "$OUT/$c/$n.err"
				bad=$((bad + 1))
				;;
			esac
		done <"$OUT/$c/rc"
	done
	echo "$runs runs"
	[ "$runs" -eq $(($(cases | wc -l) * 2 * ${#CMDS[@]})) ]
	[ "$bad" -eq 0 ]
}

@test "hostile trees: 8,000 stream links cost memory in proportion, not squared (lists grow geometrically)" {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local total
	# bytes allocated over the whole run: one realloc per entry copied the list each time (549 MB)
	total=$(valgrind "$TSMCTL" --sysroot "$TREES/hb-10000-entries" streams -J 2>&1 >/dev/null |
		sed -n 's/.*total heap usage: .* frees, \([0-9,]*\) bytes allocated/\1/p' | tr -d ,)
	echo "streams -J allocated $total bytes, $((total / 8001)) per link"
	[ -n "$total" ]
	# about 13 KB a link (its JSON objects, readlink's page); squared growth was 73 KB
	[ "$((total / 8001))" -lt 25000 ]
}

@test "hostile trees: -J prints one valid JSON document with the command's array" {
	local bad=0 c n f want got files=()
	for c in $(cases); do
		for ((n = 1; n < 2 * ${#CMDS[@]}; n += 2)); do
			files+=("$OUT/$c/$n.out")
		done
	done
	# One jq for all of them: file, schema_version, the array's key and type, per document.
	if ! jq -r '[input_filename, .schema_version, (to_entries | map(select(.value | type == "array")) |
			map(.key) | join(","))] | @tsv' "${files[@]}" >"$BATS_TEST_TMPDIR/docs" 2>"$BATS_TEST_TMPDIR/jq.err"; then
		# A parse error stops jq: find every culprit one by one.
		for f in "${files[@]}"; do
			jq -e . "$f" >/dev/null 2>&1 || { echo "${f#"$OUT"/}: not JSON:"; head -c 300 "$f"; bad=$((bad + 1)); }
		done
		[ "$bad" -gt 0 ] || cat "$BATS_TEST_TMPDIR/jq.err"
		return 1
	fi
	declare -A seen=()
	while IFS=$'\t' read -r f v got; do
		n=${f##*/}
		n=${n%.out}
		want=${JSON_ARRAY[$((n / 2))]}
		seen[$f]=$((${seen[$f]:-0} + 1))
		if [ "$v" != "${JSON_VERSION[$((n / 2))]}" ] || [ "$got" != "$want" ]; then
			echo "${f#"$OUT"/}: schema_version $v, arrays '$got', want '$want'"
			bad=$((bad + 1))
		fi
	done <"$BATS_TEST_TMPDIR/docs"
	# Exactly one document per run; an empty output only from a failed run.
	for f in "${files[@]}"; do
		c=${f#"$OUT"/}
		n=${c#*/}
		n=${n%.out}
		c=${c%%/*}
		case ${seen[$f]:-0} in
		1) ;;
		0) grep -q "^$n 0\$" "$OUT/$c/rc" && { echo "$(describe "$c" "$n"): exit 0, no JSON"; bad=$((bad + 1)); } ;;
		*) echo "$(describe "$c" "$n"): ${seen[$f]} JSON documents"; bad=$((bad + 1)) ;;
		esac
	done
	[ "$bad" -eq 0 ]
}

@test "hostile trees: every -J document validates against its JSON Schema" {
	local c n man=$BATS_TEST_TMPDIR/manifest
	for c in $(cases); do
		for ((n = 1; n < 2 * ${#CMDS[@]}; n += 2)); do
			# an empty output comes only from a failed run (the test above)
			[ -s "$OUT/$c/$n.out" ] || continue
			# describe()'s words, without its two forks per document (a minute under bats)
			printf '%s\tdoc\t%s\t%s: tsmctl %s -J\n' "${JSON_SCHEMA[$((n / 2))]}" "$OUT/$c/$n.out" \
				"$c" "${CMDS[$((n / 2))]}"
		done
	done >"$man"
	run "$TOP/tests/lib/check-json" "$TOP/schema" "$man"
	echo "$output"
	[ "$status" -eq 0 ]
	# every case's documents, all but those of a failed run
	[[ "$output" =~ check-json:\ ([0-9]+)\ documents ]]
	[ "${BASH_REMATCH[1]}" -ge $(($(cases | wc -l) * ${#CMDS[@]} * 9 / 10)) ]
}

@test "hostile trees: JSON output is valid UTF-8 whatever bytes the tree held" {
	"$TOP/tests/hostile/check-bytes" "$OUT"/*/*[13579].out
}

@test "hostile trees: no control character from the tree reaches a table or stderr raw" {
	# Tables (even results) and every stderr: no C0 control but newline, no DEL, no C1
	# (U+0080..U+009F, e.g. CSI U+009B), nothing that is not UTF-8.
	"$TOP/tests/hostile/check-bytes" --no-controls "$OUT"/*/*[02468].out "$OUT"/*/*.err
}

@test "hostile trees: an ESC in tsm/connect, pci_mode, dsm, bound or a link name comes out escaped" {
	local c n
	for c in connect-esc pci_mode-esc dsm-esc bound-esc; do
		for ((n = 0; n < 2 * ${#CMDS[@]}; n += 2)); do
			grep -qF '\x1b' "$OUT/$c/$n.out" && continue 2
		done
		echo "$c: the escaped ESC shows in no table"
		return 1
	done
	# Escaped once, not twice (a pre-escaped cell came out as \x5cx1b).
	run grep -rlF --include='*.out' --include='*.err' 'x5cx1b' "$OUT"
	[ "$status" -eq 1 ]
	# The driver's name (the link target's last component) in the DRIVER column.
	run -0 "$TSMCTL" --sysroot "$TREES/driver-name-esc" devices -o BDF,DRIVER
	[[ "$output" == *'\x1b[31mevil'* ]]
	[[ "$output" != *$'\e'* ]]
	# -v reports a link leaving the root on stderr, its escapes escaped.
	run -0 --separate-stderr "$TSMCTL" --sysroot "$TREES/stream-target-esc" streams -v
	[[ "$stderr" == *'\x1b]0;owned\x07'* ]]
	# And JSON keeps the value, as a \u001b escape.
	grep -q '\\u001b\[2J' "$OUT/connect-esc/3.out"
}

@test "hostile trees: nothing read through an escaping link shows up (no /etc/passwd content)" {
	run grep -rlaE 'root:[x*!]?:0:0' "$OUT"
	[ "$status" -eq 1 ]
}

# check_strace ROOT LOG [ROOT LOG]...: tests/hostile/check-strace on traces of runs.
check_strace() {
	local asan=
	grep -q __asan_init "$TSMCTL" && asan=1
	ASAN=$asan "$TOP/tests/hostile/check-strace" "$TSMCTL" "$@"
}

# The cases whose whole point is a way out of the root, plus FIFOs, huge files, deep paths.
escape_cases() {
	cases | grep -E -- '-(abs|rel)-|-abs$|-rel$|-dotdot$|-down-then-out$|-target-esc$|^sys-|^ep-config-devzero$|^fifo-|^huge-|^devnode-|^deep-'
}

# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it.
traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		timeout -k 2 20 strace -f -y -qq -s 8192 -e trace=%file "$@"
}

# Trace every read command's JSON run on each case read from stdin; logs in $OUT/CASE/trace.N.
trace_cases() {
	local c j
	while read -r c; do
		for j in "${WIDE[@]}"; do
			# shellcheck disable=SC2086 # the command words split on purpose
			traced -o "$OUT/$c/trace.$j" "$TSMCTL" --sysroot "$TREES/$c" ${CMDS[$j]} -J \
				>/dev/null 2>&1 </dev/null || true
		done
	done
}

@test "hostile trees: no file outside the root is opened (strace: link escapes, FIFOs, huge files)" {
	command -v strace >/dev/null || skip "strace not installed"
	# What a run opens is the source's, checked on the build that ships; setup_file ran
	# these same commands on these cases under the sanitizers already, untraced.
	# (the binary says which build it is: ASAN_OPTIONS in the environment would not)
	! grep -q __asan_init "$TSMCTL" || skip "the sanitizer pass: traced on the normal build"
	local c j args=()
	escape_cases | in_parallel trace_cases
	for c in $(escape_cases); do
		for j in "${WIDE[@]}"; do
			args+=("$TREES/$c" "$OUT/$c/trace.$j")
		done
	done
	echo "$((${#args[@]} / 2)) traced runs"
	[ ${#args[@]} -ge 500 ]
	check_strace "${args[@]}"
}

@test "hostile trees: the fallback walk (no openat2) keeps to the root as well" {
	command -v strace >/dev/null || skip "strace not installed"
	local bad=0 c rc args=()
	for c in $(escape_cases); do
		rc=0
		TSMCTL_NO_OPENAT2=1 traced -o "$OUT/$c/trace.walk" "$TSMCTL" --sysroot "$TREES/$c" \
			devices --all -J >"$OUT/$c/walk.out" 2>/dev/null </dev/null || rc=$?
		case $rc in 0 | 1 | 2) ;; *) echo "$c: devices --all -J exit $rc"; bad=$((bad + 1)) ;; esac
		rc=0
		TSMCTL_NO_OPENAT2=1 timeout -k 2 "$LIMIT" "$TSMCTL" --sysroot "$TREES/$c" streams -v -J \
			>>"$OUT/$c/walk.out" 2>/dev/null </dev/null || rc=$?
		case $rc in 0 | 1 | 2) ;; *) echo "$c: streams -v -J exit $rc"; bad=$((bad + 1)) ;; esac
		args+=("$TREES/$c" "$OUT/$c/trace.walk")
	done
	check_strace "${args[@]}" || bad=$((bad + 1))
	# Two JSON documents in each walk.out: one jq for all, counted per file.
	declare -A docs=()
	local outs=() f
	for c in $(escape_cases); do outs+=("$OUT/$c/walk.out"); done
	for f in $(jq -r input_filename "${outs[@]}" 2>/dev/null); do
		docs[$f]=$((${docs[$f]:-0} + 1))
	done
	for c in $(escape_cases); do
		[ "${docs[$OUT/$c/walk.out]:-0}" = 2 ] ||
			{ echo "$c: not two JSON documents"; bad=$((bad + 1)); }
	done
	[ "$bad" -eq 0 ]
}

@test "hostile trees: as an unprivileged user, unreadable and odd files are handled too" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	# A world-traversable copy: bats' own temporary directories are private.
	local copy bad=0 c j rc outs=() errs=()
	copy=$(mktemp -d "${TMPDIR:-/tmp}/tsmctl-hostile.XXXXXX")
	chmod 755 "$copy"
	for c in $(cases | grep -E '^unreadable-|-unreadable$|^fifo-(config|connect|available)$|^huge-connect$|^huge-config-100M$|^ep-config-cut-(64|65|256)$|^tsm0-abs-passwd$|^bdf-rel-etc$|^stream-loop$'); do
		cp -a "$TREES/$c" "$copy/$c"
	done
	for c in $(cd "$copy" && ls); do
		for j in "${WIDE[@]}"; do
			rc=0
			# shellcheck disable=SC2086 # the command words split on purpose
			LC_ALL=C.UTF-8 timeout -k 2 "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$TSMCTL" --sysroot "$copy/$c" ${CMDS[$j]} -J \
				>"$OUT/$c/nobody.$j.out" 2>"$OUT/$c/nobody.$j.err" </dev/null || rc=$?
			case $rc in
			0 | 1 | 2) ;;
			*) echo "$c: tsmctl ${CMDS[$j]} -J as nobody: exit $rc"; cat "$OUT/$c/nobody.$j.err"; bad=$((bad + 1)) ;;
			esac
			[ -s "$OUT/$c/nobody.$j.out" ] && outs+=("$OUT/$c/nobody.$j.out")
			errs+=("$OUT/$c/nobody.$j.err")
		done
	done
	chmod -R u+rwx "$copy"
	rm -rf "$copy"
	[ ${#outs[@]} -ge 40 ]
	jq -e . "${outs[@]}" >/dev/null || { echo "invalid JSON as nobody"; bad=$((bad + 1)); }
	"$TOP/tests/hostile/check-bytes" --no-controls "${errs[@]}" || bad=$((bad + 1))
	[ "$bad" -eq 0 ]
}

@test "hostile trees: an unreadable config as nobody is 'needs root', not a crash or 'no IDE'" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	local copy
	copy=$(mktemp -d "${TMPDIR:-/tmp}/tsmctl-hostile.XXXXXX")
	chmod 755 "$copy"
	cp -a "$TREES/unreadable-config" "$copy/"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$copy/unreadable-config" devices -J
	rm -rf "$copy"
	[ "$status" -eq 0 ]
	json_is '[.devices[] | select(.bdf == "0000:41:00.0")] | length' 1
}

# A nodev mount: tsmctl skips the per-file type check there and keeps the walk on that
# mount (RESOLVE_NO_XDEV), so a device node must fail to open and a mount inside the
# tree must read as absent.
@test "hostile trees on a nodev mount: device nodes never open, inner mounts are absent" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount"
	command -v strace >/dev/null || skip "strace not installed"
	local mnt bad=0 c j rc args=() outs=()
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/tsmctl-nodev.XXXXXX")
	mount -t tmpfs -o nodev,nosuid tsmctl-nodev "$mnt" || skip "cannot mount tmpfs"
	echo "$mnt" >"$BATS_TEST_TMPDIR/mounts"
	for c in $(escape_cases | grep -v '^deep-') dir-config; do cp -a "$TREES/$c" "$mnt/$c"; done
	# A mount of its own (device nodes allowed) where the endpoint's tsm/ directory was.
	local inner=$mnt/fifo-config/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/tsm
	mount -t tmpfs tsmctl-inner "$inner"
	printf 'tsm0\n' >"$inner/connect"
	for c in $(cd "$mnt" && ls); do
		for j in "${WIDE[@]}"; do
			rc=0
			# shellcheck disable=SC2086 # the command words split on purpose
			traced -o "$OUT/$c/nodev.$j" "$TSMCTL" --sysroot "$mnt/$c" ${CMDS[$j]} -J \
				>"$OUT/$c/nodev.$j.out" 2>/dev/null </dev/null || rc=$?
			case $rc in 0 | 1 | 2) ;; *) echo "$c: ${CMDS[$j]} -J exit $rc"; bad=$((bad + 1)) ;; esac
			args+=("$mnt/$c" "$OUT/$c/nodev.$j")
			outs+=("$OUT/$c/nodev.$j.out")
		done
	done
	check_strace "${args[@]}" || bad=$((bad + 1))
	jq -e . "${outs[@]}" >/dev/null || { echo "invalid JSON"; bad=$((bad + 1)); }
	# Every open of a device node was refused by the mount, never handed a descriptor.
	local node
	for c in devnode-config devnode-connect; do
		[ -d "$mnt/$c" ] || continue
		node=${c#devnode-}
		[ "$node" = connect ] && node=tsm/connect
		grep -h -E "openat2\\(.*/0000:41:00\\.0/$node\"" "$OUT/$c"/nodev.[0-9] >"$OUT/$c/nodev.opens"
		[ -s "$OUT/$c/nodev.opens" ] || { echo "$c: device node never tried"; bad=$((bad + 1)); }
		if grep -v 'EACCES' "$OUT/$c/nodev.opens"; then
			echo "$c: a device node was opened"; bad=$((bad + 1))
		fi
	done
	# The inner mount's connect is not read: the endpoint shows no tsm/ group at all.
	jq -e '[.devices[] | select(.bdf == "0000:41:00.0") | .connected] | . == [null]' \
		"$OUT/fifo-config/nodev.2.out" >/dev/null || { echo "inner mount was crossed"; bad=$((bad + 1)); }
	[ "$bad" -eq 0 ]
}

teardown() {
	local m
	[ -f "$BATS_TEST_TMPDIR/mounts" ] || return 0
	while read -r m; do umount -R "$m" && rmdir "$m"; done <"$BATS_TEST_TMPDIR/mounts"
}
