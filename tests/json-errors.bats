#!/usr/bin/env bats
# Every -J exit prints a document that validates against its command's schema
# (tests/lib/check-json): usage errors wherever -J stands, refused operands,
# names the tree lacks, timeouts, a tree without the interface, reads that
# failed in part. A JSON consumer never gets an empty stdout.
#
# The cases are data (CASES); the last test holds them to every command that
# takes -J, so a new command or a new exit needs a line here.

load lib/helpers

teardown() {
	unmount_live
}

# SCHEMA|TREE|EXIT|ARGS: TREE a topology's static tree, or "-" for a --sysroot
# that does not exist. ARGS split on blanks.
CASES=(
	# usage errors: -J before or after the mistake, options -J refuses
	"list|sev-tio|2|list -J extra"
	"list|sev-tio|2|list --bogus -J"
	"list|sev-tio|2|list -o NAME -J"
	"list|sev-tio|2|list -J -r"
	"list|sev-tio|2|list -J -t tsm0,"
	"list|-|2|list -J"
	"list|sev-tio|1|list -J -t tsm9"
	"devices|sev-tio|2|devices -J -d 41:00.0,"
	"devices|sev-tio|2|devices -J x"
	"devices|sev-tio|1|devices -J -d 99:00.0"
	"devices|sev-tio|0|devices -J --connected -d 81:00.0"
	"devices|no-tsm|0|devices -J"
	"streams|sev-tio|2|streams -J --state bogus"
	"streams|sev-tio|2|streams -J --state secure,"
	"streams|sev-tio|1|streams -J -b pci0000:99"
	"streams|no-tsm|0|streams -J"
	"host-bridges|sev-tio|1|host-bridges -J -d 99:00.0"
	"host-bridges|sev-tio|2|host-bridges -J extra"
	"tree|sev-tio|1|tree -J -t tsm7"
	"tree|sev-tio|2|tree -J -o NAME"
	"audit|sev-tio|2|audit -J extra"
	"audit|sev-tio|2|audit --short --bogus -J"
	"audit|sev-tio|1|audit -J -d 99:00.0"
	"audit|sev-tio|2|audit -J --require-connected 41-00"
	"audit|sev-tio|1|audit -J --trust /nonexistent/trust"
	# refused operands, names the tree lacks, waits that time out
	"results|sev-tio|2|connect -J 01:00.0"
	"results|sev-tio|2|connect -J 81:00.0 tsm0 extra"
	"results|sev-tio|2|connect -J 81:00.0,41:00.0 tsm0"
	"results|sev-tio|1|connect -J 99:00.0 tsm0"
	"results|sev-tio|1|connect -J 81:00.0 tsm9"
	"results|sev-tio|1|connect -J --wait 0.2 81:00.0 tsm5"
	"results|no-tsm|1|connect -J --all tsm0"
	"results|sev-tio|2|disconnect -J"
	"results|sev-tio|1|disconnect -J 99:00.0"
	"results|sev-tio|1|lock -J 81:00.0 tsm0"
	"results|guest-sev|2|lock -J 00:05.0"
	"results|guest-sev|1|accept -J 00:09.0"
	"results|guest-sev|2|unlock -J --all 00:05.0"
	"wait|sev-tio|1|wait -J --timeout 0 tsm9"
	"wait|sev-tio|1|wait -J --timeout 0.2 tsm9"
	"wait|sev-tio|2|wait -J --timeout soon"
	"wait|sev-tio|2|wait -J tsm0 tsm0"
	"report|guest-sev|2|report -J"
	"report|guest-sev|2|report -J --nonce 00 --privlevel 1.5"
	"report|sev-tio|1|report -J --nonce 00"
	# reads that failed in part (dangling links, files that are no attribute) and stores refused
	"devices|broken|0|devices -J --all"
	"streams|broken|0|streams -J"
	"audit|broken|1|audit -J"
	"results|broken|1|connect -J --all tsm0"
	"results|broken|1|disconnect -J --all"
	# the platform state: usage errors, a register or bit the tree lacks
	"measurements|guest-tdx|2|measurements -J --bogus"
	"measurements|guest-tdx|1|measurements -J rtmr9"
	"mitigations|sev-tio-posture|2|mitigations -J extra"
	"extend|guest-tdx|2|extend -J"
	"extend|guest-tdx|1|extend -J rtmr9 --digest 00"
	"verify-mitigation|sev-tio-posture|2|verify-mitigation -J"
	"verify-mitigation|guest-tdx|2|verify-mitigation -J 99"
	# evidence's fetch: a usage error, a device the tree lacks, no evidence interface
	"evidence|sev-tio|2|evidence -J"
	"evidence|sev-tio|1|evidence -J 99:00.0"
	"evidence|sev-tio|1|evidence -J 41:00.0"
	# --verify's judgement of nothing: unproven, with the reason nothing was read
	"evidence-verify|sev-tio|2|evidence -J --verify"
	"evidence-verify|sev-tio|2|evidence -J --verify 41:00.0 extra"
	"evidence-verify|sev-tio|2|evidence -J --verify 41-00"
	"evidence-verify|sev-tio|1|evidence -J --verify 99:00.0"
	"evidence-verify|sev-tio|1|evidence -J --verify 41:00.0"
	"evidence-verify|sev-tio|1|evidence -J --verify --from /nonexistent/dir 41:00.0"
	"evidence-verify|sev-tio|1|evidence -J --verify --trust /nonexistent/trust 41:00.0"
	"evidence-verify|-|2|evidence -J --verify 41:00.0"
)

# Commands whose -J has no document to print on every exit, and why.
NO_DOCUMENT=(
	# JSON Lines, one event a line: a watch that ends before any event printed none
	"watch"
)

@test "every -J exit in CASES prints one document that validates, with the exit status expected" {
	local c schema tree want args root rc f man=$BATS_TEST_TMPDIR/manifest
	: >"$man"
	for c in "${CASES[@]}"; do
		IFS='|' read -r schema tree want args <<<"$c"
		root=/nonexistent/tree
		[ "$tree" = - ] || root=$(static_tree "$tree")
		f=$(mktemp "$BATS_TEST_TMPDIR/out.XXXXXX")
		rc=0
		# shellcheck disable=SC2086 # the words of a case split on purpose
		timeout 20 "$TSMCTL" --sysroot "$root" $args </dev/null >"$f" 2>"$f.err" || rc=$?
		[ "$rc" -eq "$want" ] || { echo "$tree: tsmctl $args: exit $rc, expected $want"; cat "$f.err"; return 1; }
		[ -s "$f" ] || { echo "$tree: tsmctl $args: exit $rc and nothing on stdout"; cat "$f.err"; return 1; }
		# a failure is said on stderr (an audit's failing checks are its document's results)
		[ -s "$f.err" ] || [ "$want" -eq 0 ] || [ "$schema/$want" = audit/1 ] ||
			{ echo "$tree: tsmctl $args: exit $rc without a word why"; return 1; }
		printf '%s\tdoc\t%s\t%s\n' "$schema" "$f" "$tree: tsmctl $args (exit $rc)" >>"$man"
	done
	run --separate-stderr "$TOP/tests/lib/check-json" "$TOP/schema" "$man"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 0 problems" ]]
}

@test "a usage error with -J: the document is the empty one, and --help and --version print only their text" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t devices --bogus -J
	expect_status 2
	json_is . '{"schema_version":1,"devices":[]}'
	run --separate-stderr t host-bridges -J extra
	expect_status 2
	json_is . '{"schema_version":2,"host_bridges":[]}'
	run --separate-stderr t audit -J extra
	expect_status 2
	json_is . '{"schema_version":1,"checks":[],"summary":{"total":0,"pass":0,"warn":0,"fail":0,"skip":0,"needs_root":0}}'
	# one document, not a second after the command's own
	run --separate-stderr t connect -J 99:00.0 tsm0
	expect_status 1
	json_is . '{"schema_version":1,"results":[]}'
	run --separate-stderr t devices -J --help
	expect_status 0
	[ "${lines[0]}" = "Usage:" ]
	run --separate-stderr t list -J -V
	expect_status 0
	[[ "$output" == "tsmctl "* ]]
	# without -J no document
	run --separate-stderr t list extra
	expect_status 2
	[ -z "$output" ]
}

@test "evidence --verify -J that read nothing: one unproven document, the first error its refusal" {
	# a static tree is a capture: its saved evidence, which it lacks
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t evidence -J --verify 41:00.0
	expect_status 1
	json_is '[.bdf, .source, .decision.verdict]' '["0000:41:00.0","directory","unproven"]'
	# no device named: no BDF to give
	run --separate-stderr t evidence -J --verify
	expect_status 2
	json_is '[.bdf, .decision.verdict, .decision.refused[0].text]' '[null,"unproven","no evidence was read: no device given (BDF)"]'
	# a saved directory that is not there: read from a directory
	run --separate-stderr t evidence -J --verify --from "$BATS_TEST_TMPDIR/none" 41:00.0
	expect_status 1
	json_is '[.bdf, .source, .decision.accepted]' '["0000:41:00.0","directory",false]'
	# a live tree is the kernel's: its evidence was to be read from the kernel
	mount_live sev-tio
	run --separate-stderr t evidence -J --verify 99:00.0
	expect_status 1
	json_is '.bdf' '"0000:99:00.0"'
	json_is '[.source, .generation, .checks, .summary.total]' '["kernel",null,[],0]'
	json_is '.decision | [.verdict, .accepted, .verified, .taken_on_trust]' '["unproven",false,[],[]]'
	json_is '.decision.refused' '[{"check":null,"object":null,"text":"no evidence was read: 0000:99:00.0: no such PCI device (see '"'"'tsmctl devices --all'"'"')","risk":null,"option":null}]'
	json_is '.decision.line' '"does not prove the device: no evidence was read: 0000:99:00.0: no such PCI device (see '"'"'tsmctl devices --all'"'"')"'
	# the same words on stderr, once
	[ "$stderr" = "tsmctl evidence: 0000:99:00.0: no such PCI device (see 'tsmctl devices --all')" ]
}

@test "CASES reach every command that takes -J" {
	local cmd c found
	for cmd in $("$TSMCTL" --list-cmds); do
		"$TSMCTL" --list-opts "$cmd" | grep -qx -- "--json" || continue
		[[ " ${NO_DOCUMENT[*]} " == *" $cmd "* ]] && continue
		found=
		for c in "${CASES[@]}"; do
			IFS='|' read -r _ _ _ args <<<"$c"
			[ "${args%% *}" = "$cmd" ] && found=1
		done
		[ -n "$found" ] || { echo "no -J exit case for $cmd"; return 1; }
	done
}
