#!/usr/bin/env bats
# make check-stress itself (tests/lib/check-stress): each run counted once, a
# failed run named by its round, and a stopped run's summary of what ended,
# with no hog, mount loop or mount left behind. The files it runs here are
# bats files of the test's own, one that passes, one that fails, and one that
# holds until the test lets it go.

load lib/helpers

STRESS=$TOP/tests/lib/check-stress

setup() {
	LOG=$BATS_TEST_TMPDIR/log
	PASS=$BATS_TEST_TMPDIR/pass.bats
	FAIL=$BATS_TEST_TMPDIR/fail.bats
	HOLD=$BATS_TEST_TMPDIR/hold.bats
	printf '@test "passes" {\n\ttrue\n}\n' >"$PASS"
	printf '@test "fails" {\n\tfalse\n}\n' >"$FAIL"
	# writes that it started, then reads a FIFO nobody writes until the test does
	mkfifo "$BATS_TEST_TMPDIR/gate"
	printf '@test "holds" {\n\ttouch %s/started\n\tread -r _ <%s/gate\n}\n' \
		"$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$HOLD"
}

teardown() {
	[ -z "${STRESS_PID:-}" ] || kill -TERM "$STRESS_PID" 2>/dev/null || true
}

# nothing of a check-stress run below LOG is left: no process, no mount
nothing_left() {
	run pgrep -f "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ] || { echo "left running: $output"; return 1; }
	run grep -F " $LOG/" /proc/mounts
	[ "$status" -eq 1 ] || { echo "left mounted: $output"; return 1; }
}

@test "check-stress: every run counted once, a failed one by its round, exit 1" {
	CHECK_STRESS_FILES="$PASS $FAIL" CHECK_STRESS_ROUNDS=2 CHECK_STRESS_JOBS=2 run "$STRESS" "$LOG"
	expect_status 1
	[ "$(grep -c . "$LOG/results")" -eq 4 ]
	[ "$(grep -c ' ok ' "$LOG/results")" -eq 2 ]
	grep -q "=== make check-stress: 4 of 4 runs (2 rounds)" <<<"$output"
	grep -qE "^$PASS +2 +0 *\$" <<<"$output"
	grep -qE "^$FAIL +2 +2 +1 2\$|^$FAIL +2 +2 +2 1\$" <<<"$output"
	grep -qE '^all +4 +2$' <<<"$output"
	[ -s "$LOG/runs/fail.1.log" ]
	[ -s "$LOG/runs/pass.2.log" ]
	nothing_left
}

@test "check-stress: all passing exits 0" {
	CHECK_STRESS_FILES="$PASS" CHECK_STRESS_ROUNDS=3 CHECK_STRESS_JOBS=1 run "$STRESS" "$LOG"
	expect_status 0
	grep -qE "^$PASS +3 +0 *\$" <<<"$output"
	nothing_left
}

@test "check-stress: SIGTERM mid-run prints what the ended runs showed, the held run uncounted, and leaves nothing" {
	CHECK_STRESS_FILES="$FAIL $HOLD" CHECK_STRESS_ROUNDS=1 CHECK_STRESS_JOBS=1 \
		"$STRESS" "$LOG" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	STRESS_PID=$!
	# the failed run is in, the held one is under way: the signal comes between them
	wait_until test -e "$BATS_TEST_TMPDIR/started"
	wait_for_line "$LOG/results" FAILED
	kill -TERM "$STRESS_PID"
	rc=0
	wait "$STRESS_PID" || rc=$?
	STRESS_PID=
	cat "$BATS_TEST_TMPDIR/out"
	[ "$rc" -eq 143 ]
	grep -q "stopped by a signal" "$BATS_TEST_TMPDIR/out"
	grep -q "=== make check-stress: 1 of 2 runs (1 rounds)" "$BATS_TEST_TMPDIR/out"
	grep -qE "^$FAIL +1 +1 +1\$" "$BATS_TEST_TMPDIR/out"
	grep -qE "^$HOLD +0 +0 *\$" "$BATS_TEST_TMPDIR/out"
	[ "$(grep -c . "$LOG/results")" -eq 1 ]
	nothing_left
}
