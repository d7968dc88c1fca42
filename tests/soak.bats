#!/usr/bin/env bats
# make soak's checks can fail: against a tsmctl that breaks the rules
# (tests/soak/liar) the soak reports each broken rule and exits 1.

load lib/helpers

@test "soak: a truncated -J, a stray exit status and a configfs entry left behind are violations" {
	export SOAK_REAL_TSMCTL=$TSMCTL SOAK_LIAR_STATE=$BATS_TEST_TMPDIR
	run --separate-stderr "$TOP/tests/soak/soak.py" --tsmctl "$TOP/tests/soak/liar" \
		--seconds 6 --seed 7 --digest state --workdir "$BATS_TEST_TMPDIR/work"
	expect_status 1
	[[ "$output" == *"soak: 6 s, seed 7, "* ]]
	[[ "$output" == *"-J output does not parse"* ]]
	[[ "$output" == *"exit status 3 from "* ]]
	[[ "$output" == *"configfs report entries left behind: ['left."* ]]
	[[ "$output" == *"replay: make soak SOAK_SEED=7 SOAK_SECONDS=6 "* ]]
	[ -s "$BATS_TEST_TMPDIR/work/ops.jsonl" ]
	# nothing else: every violation is one of those
	run grep -E '^  op [0-9None]+: ' <<< "$output"
	for l in "${lines[@]}"; do
		[[ $l == *"-J output does not parse"* || $l == *"exit status 3 from "* ||
			$l == *"configfs report entries left behind"* ||
			$l == *"the tree after cleanup differs from mount time"* ]] ||
			{ echo "unexpected: $l"; return 1; }
	done
}
