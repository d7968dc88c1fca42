#!/usr/bin/env bats
# Every -J document validates against its JSON Schema in schema/ (draft
# 2020-12, python3-jsonschema through tests/lib/check-json): the read views
# on every test topology, static and mounted live; connect, disconnect, lock,
# accept and unlock results (dry runs, failures, skips); report; wait; and
# watch's event lines. The last test checks that each schema was used and
# rejects doctored copies of what tsmctl printed, so validation can fail.
#
# The cases are data: VIEWS below, and the actions in live_actions. A new -J
# output needs a line here and, for a new document, a schema in schema/.

load lib/helpers
load lib/netns

SCHEMAS=$TOP/schema
CHECK=$TOP/tests/lib/check-json
AS=()

# SCHEMA ARGS...: what every read view prints with -J, on every topology
# (static, and live once the actions have connected and locked what they can).
VIEWS=(
	"list list"
	"devices devices"
	"devices devices --all"
	"streams streams"
	"host-bridges host-bridges"
	"tree tree"
	"tree tree --all"
	"devices devices -v"
	"devices devices --all -v"
	"audit audit"
	"audit audit --short --strict"
	"measurements measurements"
	"mitigations mitigations"
)

setup_file() {
	export MANIFESTS=$BATS_FILE_TMPDIR/manifests
	mkdir -p "$MANIFESTS"
}

teardown() {
	stop_bg "${WPID:-}"
	unmount_live
	netns_teardown
}

# rec SCHEMA ARGS...: run tsmctl ARGS on ROOT (as the command AS, if set),
# keep its stdout for MAN (this test's manifest). Exit 0 and 1 are results;
# anything else is a broken case.
rec() {
	local schema=$1 f rc=0
	shift
	f=$(mktemp "$BATS_FILE_TMPDIR/out.XXXXXX")
	"${AS[@]}" "$TSMCTL" --sysroot "$ROOT" "$@" </dev/null >"$f" 2>"$f.err" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "$WHERE: tsmctl $*: exit $rc"
		cat "$f.err"
		return 1
	fi
	printf '%s\tdoc\t%s\t%s\n' "$schema" "$f" "$WHERE: tsmctl $* (exit $rc)" >>"$MAN"
}

# Every view of VIEWS, and wait where a TSM is registered.
rec_views() {
	local v
	for v in "${VIEWS[@]}"; do
		# shellcheck disable=SC2086 # the words of a case split on purpose
		rec $v -J || return 1
	done
	if [ -n "$("$TSMCTL" --sysroot "$ROOT" list -n -r -o NAME 2>/dev/null)" ]; then
		rec wait wait --timeout 0 -J || return 1
	fi
}

# The TSM names of one mode ("link": link or a v6.19 TSM without pci_mode).
tsms_of() {
	"$TSMCTL" --sysroot "$ROOT" list -J |
		jq -r --arg m "$1" '.tsms[] | select((.mode // "link") == $m) | .name'
}

# The BDFs of the devices whose devices -J object matches the jq FILTER.
bdfs_where() {
	"$TSMCTL" --sysroot "$ROOT" devices -J | jq -r ".devices[] | select($1) | .bdf"
}

# What the actions print on a live mount: dry runs, successes, what is there
# already, failures and what is skipped after one; the views in between.
live_actions() {
	local t
	for t in $(tsms_of link); do
		rec results connect --dry-run --all "$t" -J &&
			rec results connect --all "$t" -J &&
			rec results connect --all --keep-going "$t" -J || return 1
		set -- $(bdfs_where ".connected == \"$t\"")
		if [ $# -gt 0 ]; then
			rec results connect "$@" "$t" -J &&
				rec results connect --strict --keep-going "$@" "$t" -J || return 1
		fi
		rec_views &&
			rec results disconnect --dry-run --all -J &&
			rec results disconnect --all "$t" -J &&
			rec results disconnect --all --keep-going -J || return 1
		# disconnected already: done, nothing written
		if [ $# -gt 0 ]; then
			rec results disconnect "$@" -J || return 1
		fi
	done
	for t in $(tsms_of devsec); do
		rec results lock --dry-run --all "$t" -J &&
			rec results lock --all --keep-going "$t" -J || return 1
		set -- $(bdfs_where ".locked == \"$t\"")
		if [ $# -gt 0 ]; then
			rec results lock "$@" "$t" -J &&
				rec results accept "$@" -J &&
				rec results accept --keep-going "$@" -J || return 1
		fi
		rec results accept --all -J &&
			rec_views &&
			rec results unlock --dry-run --all -J &&
			rec results unlock --all --keep-going "$t" -J &&
			rec results lock --all "$t" -J || return 1
	done
}

# check MANIFEST...: validate the outputs they name.
check() {
	run --separate-stderr "$CHECK" "$SCHEMAS" <(cat "$@")
	echo "$output"
	[ -z "$stderr" ] || echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 0 problems" ]]
}

@test "static trees: every view's -J on every topology validates" {
	local topo v
	MAN=$MANIFESTS/static
	for topo in "$TOPO"/*.json; do
		ROOT=$(static_tree "$(basename "$topo" .json)")
		WHERE="static $(basename "$topo")"
		rec_views
	done
	WHERE="any tree"
	rec audit-checks audit --list-checks -J
	for v in list devices streams host-bridges tree audit measurements mitigations; do
		rec columns "$v" -H -J
	done
	check "$MAN"
}

@test "live mounts: views and connect/disconnect/lock/accept/unlock results on every topology validate" {
	local topo
	MAN=$MANIFESTS/live
	for topo in "$TOPO"/*.json; do
		ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
		# topologies with late TSMs send uevents: those mount only in a namespace of their own
		if jq -e '[.tsms[]? | .register_after_ms, .register_manually] | any' "$topo" >/dev/null; then
			continue
		fi
		"$SIM" mount "$topo" "$ROOT"
		WHERE="live $(basename "$topo")"
		live_actions
		unmount_live
	done
	# a reader without root gets 64 bytes of config: what lies past them is null
	mount_live sev-tio
	open_path_to_root
	WHERE="live sev-tio.json as nobody"
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	rec_views
	AS=()
	grep -q '"config_access": "needs_root"' $(grep 'as nobody' "$MAN" | cut -f3)
	check "$MAN"
	# the cases reach every action and result
	run bash -c "cut -f3 '$MAN' | xargs jq -r '.results[]? | .action + \" \" + .result' | sort -u | tr '\n' ' '"
	for want in "connect ok" "disconnect ok" "lock ok" "accept ok" "unlock ok" "connect already" \
		"lock already" "accept already" "connect failed" "disconnect failed" "skipped" \
		"connect dry-run" "disconnect dry-run" "lock dry-run" "disconnect already" "connect insecure"; do
		[[ " $output" == *" $want "* ]] || { echo "no '$want' result in: $output"; return 1; }
	done
}

@test "report -J validates (sev_guest with and without saved blobs, below an SVSM; tdx_guest)" {
	MAN=$MANIFESTS/report
	nonce=$(printf '%02x' $(seq 0 63) | tr -d '\n')
	head -c 40 /dev/urandom >"$BATS_TEST_TMPDIR/in40"
	for topo in guest-sev guest-tdx; do
		mount_live "$topo"
		WHERE="live $topo.json"
		rec report report --nonce "$nonce" -J
		rec report report --inblob "$BATS_TEST_TMPDIR/in40" --outblob "$BATS_TEST_TMPDIR/o" -J
		if [ "$topo" = guest-sev ]; then
			rec report report --nonce 00 --privlevel 2 --service-provider svsm \
				--service-guid 12345678-9abc-def0-1234-56789abcdef0 --service-manifest-version 7 \
				--auxblob "$BATS_TEST_TMPDIR/a" --manifestblob "$BATS_TEST_TMPDIR/m" -J
		fi
		unmount_live
	done
	check "$MAN"
	[ "$(wc -l <"$MAN")" -eq 5 ]
}

@test "extend and verify-mitigation -J validate (ok, dry-run, already, refused, failed, skipped)" {
	MAN=$MANIFESTS/platform
	digest=$(printf '%096d' 7)
	mount_live guest-tdx
	WHERE="live guest-tdx.json"
	rec extend extend rtmr2 --digest "$digest" --no-syslog -J
	rec extend extend rtmr3 --digest "$digest" --dry-run -J
	rec extend extend mrtd --digest "$digest" --no-syslog -J
	rec extend extend rtmr9 --digest "$digest" --no-syslog -J
	unmount_live
	# a copy takes no store: refused, failed
	ROOT=$(static_tree guest-tdx)
	WHERE="static guest-tdx.json"
	rec extend extend rtmr2 --digest "$digest" --no-syslog -J
	mount_live sev-tio-posture
	WHERE="live sev-tio-posture.json"
	rec verify-mitigation verify-mitigation 1 --dry-run -J
	rec verify-mitigation verify-mitigation 0 1 --no-syslog -J
	rec verify-mitigation verify-mitigation 2 3 --no-syslog -J
	rec verify-mitigation verify-mitigation all 3 --keep-going --no-syslog -J
	unmount_live
	check "$MAN"
	run bash -c "cut -f3 '$MAN' | xargs jq -r '.results[] | .action + \" \" + .result' | sort -u | tr '\n' ' '"
	[ "$output" = "extend dry-run extend failed extend ok verify-mitigation already verify-mitigation dry-run verify-mitigation failed verify-mitigation ok verify-mitigation skipped " ]
}

@test "evidence -J and the -o manifest validate (host DSM, guest TDI, with nonce and files); -v, --verify, --from, reference manifests" {
	MAN=$MANIFESTS/evidence
	mount_live sev-tio
	WHERE="live sev-tio.json"
	export TSMCTL_EVIDENCE_SOCKET
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence")
	rec evidence evidence 41:00.0 -J
	rec evidence evidence 41:00.0 -t cert0,report --fresh -J -o "$BATS_TEST_TMPDIR/ev"
	printf 'evidence\tdoc\t%s\t%s\n' "$BATS_TEST_TMPDIR/ev/manifest.json" "$WHERE: manifest.json" >>"$MAN"
	unmount_live
	mount_live guest-sev
	WHERE="live guest-sev.json"
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence")
	"$TSMCTL" --sysroot "$ROOT" lock 00:05.0 tsm0 >/dev/null
	rec evidence evidence 00:05.0 --nonce 00112233 -J
	unmount_live
	# decoded (-v), judged (--verify), live and from a saved copy; the reference manifests
	mount_live evidence-host
	WHERE="live evidence-host.json"
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence")
	certs=$TOP/tests/sim/certs
	mkdir -p "$BATS_TEST_TMPDIR/trust"
	cp "$certs"/*.root.pem "$BATS_TEST_TMPDIR/trust"
	rec evidence evidence 01:00.0 -J -v
	rec evidence evidence 0a:00.0 -J -v -o "$BATS_TEST_TMPDIR/ev0a"
	rec evidence evidence --from "$BATS_TEST_TMPDIR/ev0a" -J -v
	for b in 01 02 06 07 08 09 0a; do
		rec evidence-verify evidence $b:00.0 --verify -J --trust "$BATS_TEST_TMPDIR/trust" \
			--reference "$certs/all-types.reference.json"
	done
	rec evidence-verify evidence --from "$BATS_TEST_TMPDIR/ev0a" --verify -J
	for f in "$certs"/*.reference.json; do
		printf 'reference\tdoc\t%s\t%s\n' "$f" "$WHERE: $(basename "$f")" >>"$MAN"
	done
	check "$MAN"
	[ "$(wc -l <"$MAN")" -eq 23 ]
}

@test "watch -J: every event line validates (TSM, device, stream and pool events)" {
	MAN=$MANIFESTS/watch
	netns_setup
	# sev-tio with one stream slot below pci0000:80, and tsm0 registered by hand
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true } |
		(.host_bridges[] | select(.bus == "0x80")).streams = 1'
	out=$BATS_TEST_TMPDIR/watch.jsonl
	err=$BATS_TEST_TMPDIR/watch.err
	nsenter --net="$NS" "$TSMCTL" --sysroot "$ROOT" -v watch -J -i 0.1 >"$out" 2>"$err" &
	WPID=$!
	wait_for_line "$err" "checking every"
	sim_ctl register tsm0
	wait_for_line "$out" '"tsm-added"'
	WHERE="live sev-tio.json (watched)"
	rec results connect 81:00.0 41:00.0 tsm0 -J
	wait_for_line "$out" '"pool-exhausted"'
	sim_ctl drop 0000:41:00.0 rp
	wait_for_line "$out" '"stream-insecure"'
	sim_ctl ide-fail 0000:81:00.0 both
	wait_for_line "$out" '"stream-ide-fail"'
	rec results disconnect --all -J
	wait_for_line "$out" '"pool-available"'
	sim_ctl unregister tsm0
	wait_for_line "$out" '"tsm-removed"'
	kill -TERM "$WPID"
	wait "$WPID"
	WPID=
	printf 'watch\tlines\t%s\t%s\n' "$out" "live sev-tio.json: tsmctl watch -J" >>"$MAN"
	check "$MAN"
	run jq -r .event "$out"
	for e in tsm-added device-connected stream-added pool-exhausted stream-insecure stream-ide-fail \
		device-disconnected stream-removed pool-available tsm-removed; do
		[[ " ${lines[*]} " == *" $e "* ]] || { echo "no $e in: ${lines[*]}"; return 1; }
	done
}

@test "the schemas are strict: each is used, and rejects doctored copies of the documents" {
	for part in static live report evidence watch platform; do
		[ -s "$MANIFESTS/$part" ] || skip "needs the earlier tests of this file"
	done
	run --separate-stderr "$CHECK" --doctor "$SCHEMAS" <(cat "$MANIFESTS"/*)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ against\ 19\ schemas,\ ([0-9]+)\ doctored\ copies:\ 0\ problems$ ]]
	[ "${BASH_REMATCH[1]}" -gt 300 ]
	# and the check itself reports a document that does not fit
	bad=$BATS_TEST_TMPDIR/bad.json
	jq '.devices[0].tee_io = "yes" | del(.devices[0].bdf)' "$(cut -f3 "$MANIFESTS/static" | head -2 | tail -1)" >"$bad"
	run "$CHECK" "$SCHEMAS" <(printf 'devices\tdoc\t%s\tdoctored\n' "$bad")
	[ "$status" -eq 1 ]
	[[ "$output" == *"doctored: devices.schema.json: at /devices/0: 'bdf' is a required property"* ]]
	[[ "$output" == *"doctored: devices.schema.json: at /devices/0/tee_io: 'yes' is not of type 'boolean', 'null'"* ]]
}

@test "tree's schema holds host-bridges' host_bridge and devices' definitions, unchanged" {
	local def
	for def in $(jq -r '."$defs" | keys[]' "$SCHEMAS/devices.schema.json"); do
		diff <(jq -S --arg d "$def" '."$defs"[$d]' "$SCHEMAS/devices.schema.json") \
			<(jq -S --arg d "$def" '."$defs"[$d]' "$SCHEMAS/tree.schema.json") ||
			{ echo "tree.schema.json: \$defs/$def differs from devices.schema.json"; return 1; }
	done
	diff <(jq -S '."$defs".host_bridge' "$SCHEMAS/host-bridges.schema.json") \
		<(jq -S '."$defs".host_bridge' "$SCHEMAS/tree.schema.json")
	# and a change to one of them shows
	run diff <(jq -S '."$defs".device' "$SCHEMAS/devices.schema.json") \
		<(jq -S '."$defs".device | .required -= ["detail"]' "$SCHEMAS/tree.schema.json")
	[ "$status" -ne 0 ]
}

# make check shares check-json's passes between its two builds (TSMCTL_JSON_VERDICTS):
# the memo may skip only what validated, against the very same schemas.
@test "check-json's memo: a pass is recorded and reused; a failure never is; another schema misses it" {
	local memo=$BATS_TEST_TMPDIR/memo good=$BATS_TEST_TMPDIR/good.json bad=$BATS_TEST_TMPDIR/bad.json
	local schemas=$BATS_TEST_TMPDIR/schemas
	"$TSMCTL" --sysroot "$(static_tree sev-tio)" devices -J >"$good"
	jq '.devices[0].tee_io = "yes"' "$good" >"$bad"
	TSMCTL_JSON_VERDICTS=$memo run "$CHECK" "$SCHEMAS" <(printf 'devices\tdoc\t%s\tgood\n' "$good")
	[ "$status" -eq 0 ]
	[ "$(ls "$memo" | wc -l)" -eq 1 ]
	[[ "$output" == *"check-json: 0 passes taken from $memo"* ]]
	# the same document again: the recorded pass is the verdict, nothing new is written
	TSMCTL_JSON_VERDICTS=$memo run "$CHECK" "$SCHEMAS" <(printf 'devices\tdoc\t%s\tgood\n' "$good")
	[ "$status" -eq 0 ]
	[[ "$output" == *"check-json: 1 passes taken from $memo"* ]]
	[ "$(ls "$memo" | wc -l)" -eq 1 ]
	# a failure is reported on every run and never recorded
	for _ in 1 2; do
		TSMCTL_JSON_VERDICTS=$memo run "$CHECK" "$SCHEMAS" <(printf 'devices\tdoc\t%s\tbad\n' "$bad")
		[ "$status" -eq 1 ]
		[[ "$output" == *"bad: devices.schema.json: at /devices/0/tee_io: 'yes' is not of type"* ]]
		[ "$(ls "$memo" | wc -l)" -eq 1 ]
	done
	# a pass against other schemas is no pass against these: one byte changed misses the memo
	cp -r "$SCHEMAS" "$schemas"
	jq '.description += "."' "$SCHEMAS/list.schema.json" >"$schemas/list.schema.json"
	TSMCTL_JSON_VERDICTS=$memo run "$CHECK" "$schemas" <(printf 'devices\tdoc\t%s\tgood\n' "$good")
	[ "$status" -eq 0 ]
	[[ "$output" == *"check-json: 0 passes taken from $memo"* ]]
	[ "$(ls "$memo" | wc -l)" -eq 2 ]
	# without the variable nothing is written
	rm "$memo"/*
	TSMCTL_JSON_VERDICTS= run "$CHECK" "$SCHEMAS" <(printf 'devices\tdoc\t%s\tgood\n' "$good")
	[ "$status" -eq 0 ]
	[[ "$output" != *"passes taken"* ]]
	[ -z "$(ls "$memo")" ]
}
