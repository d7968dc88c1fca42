#!/usr/bin/env bats
# contrib/prometheus under Debian's prometheus and prometheus-node-exporter:
# promtool checks the rules and runs their unit tests (every alert firing and
# not firing, every recording rule); the metrics checker's own cases; and end
# to end, tsmctl-metrics.service's command into a textfile directory, a real
# node_exporter serving it and a real Prometheus scraping it with the shipped
# rules, on 127.0.0.1 only: an IDE_FAIL on the live simulator fires the alert
# in Prometheus's API, a re-keyed stream resolves it.

load lib/helpers

RULES=$TOP/contrib/prometheus/tsmctl.rules.yml
UNIT_TESTS=$TOP/tests/prometheus/tsmctl.rules.test.yml
CHECK=$TOP/tests/lib/promtext-check
API=$TOP/tests/lib/prom-api

teardown() {
	stop_bg "${PROM_PID:-}"
	stop_bg "${NE_PID:-}"
	unmount_live
}

@test "promtool: the rules check, their unit tests pass, and every alert is tested firing and not firing" {
	run -0 promtool check rules "$RULES"
	[[ "$output" == *"SUCCESS: 13 rules found"* ]]
	run -0 promtool test rules "$UNIT_TESTS"
	[[ "$output" == *SUCCESS* ]]
	# each alert has a test where it fires and one where it does not; each record is evaluated
	run -0 /usr/bin/python3 - "$RULES" "$UNIT_TESTS" <<-'EOF'
	import sys, yaml
	rules = [r for g in yaml.safe_load(open(sys.argv[1]))['groups'] for r in g['rules']]
	tests = yaml.safe_load(open(sys.argv[2]))['tests']
	cases = [c for t in tests for c in t.get('alert_rule_test', [])]
	exprs = ' '.join(e['expr'] for t in tests for e in t.get('promql_expr_test', []))
	for r in rules:
	    if 'alert' in r:
	        fired = [c for c in cases if c['alertname'] == r['alert'] and c['exp_alerts']]
	        quiet = [c for c in cases if c['alertname'] == r['alert'] and not c['exp_alerts']]
	        assert fired and quiet, r['alert']
	        assert r['labels']['severity'] in ('critical', 'warning'), r['alert']
	        assert 'for' in r and 'tsmctl ' in r['annotations']['description'], r['alert']
	    else:
	        assert r['record'] in exprs, r['record']
	EOF
	# and the unit tests see a wrong threshold
	sed 's/tsmctl_available_secure_streams == 0/tsmctl_available_secure_streams < 0/' "$RULES" \
		> "$BATS_TEST_TMPDIR/tsmctl.rules.yml"
	sed "s|../../contrib/prometheus/tsmctl.rules.yml|$BATS_TEST_TMPDIR/tsmctl.rules.yml|" "$UNIT_TESTS" \
		> "$BATS_TEST_TMPDIR/test.yml"
	run promtool test rules "$BATS_TEST_TMPDIR/test.yml"
	[ "$status" -ne 0 ]
	[[ "$output" == *"alertname: TsmctlStreamPoolExhausted, time: 6m"* ]]
}

# rejects NAME WHY TEXT: the checker refuses TEXT and says WHY.
rejects() {
	run --separate-stderr "$CHECK" < <(printf '%s' "$3")
	[ "$status" -eq 1 ] && [[ "$stderr" == *"$2"* ]] || { echo "$1: status $status, said: $stderr"; return 1; }
}

@test "promtext-check: promtool's errors and lint, the client's parser, and what neither checks" {
	ok=$'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a{x="1"} 1\n# HELP tsmctl_c C.\n# TYPE tsmctl_c gauge\ntsmctl_c 2\n'
	run -0 "$CHECK" < <(printf '%s' "$ok")
	# promtool: grammar, order of HELP and TYPE, final newline, lint
	rejects newline "unexpected end of input stream" "${ok%$'\n'}"
	rejects type-after "TYPE reported after samples" $'# HELP tsmctl_a A.\ntsmctl_a 1\n# TYPE tsmctl_a gauge\n'
	rejects label-twice "duplicate label names" $'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a{x="1",x="2"} 1\n'
	rejects escape "invalid escape sequence" $'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a{x="\\q"} 1\n'
	rejects no-help "no help text" $'# TYPE tsmctl_a gauge\ntsmctl_a 1\n'
	# what neither promtool nor the client's parser refuses
	rejects contiguous "tsmctl_a: samples are not contiguous" "$ok"$'tsmctl_a{x="2"} 1\n'
	rejects twice "series written twice" $'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a{x="1",y="2"} 1\ntsmctl_a{y="2",x="1"} 1\n'
	rejects timestamp "tsmctl_a: has a timestamp" $'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a 1 1700000000000\n'
	rejects reserved "reserved label name __x" $'# HELP tsmctl_a A.\n# TYPE tsmctl_a gauge\ntsmctl_a{__x="1"} 1\n'
	rejects untyped "tsmctl_a: a unknown, not a gauge" $'# HELP tsmctl_a A.\ntsmctl_a 1\n'
	rejects counter "tsmctl_a: a counter, not a gauge" $'# HELP tsmctl_a_total A.\n# TYPE tsmctl_a_total counter\ntsmctl_a_total 1\n'
	rejects prefix "foo_a: not named tsmctl_*" $'# HELP foo_a A.\n# TYPE foo_a gauge\nfoo_a 1\n'
	rejects empty "no metric family" ""
}

# free_port: a TCP port on 127.0.0.1 nothing listens on (now).
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# until_true WHAT CMD...: run CMD until it succeeds, up to 60 s (a loaded machine's bound, not a timing).
until_true() {
	local what=$1 i
	shift
	for ((i = 0; i < 300; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "gave up waiting for $what"
	return 1
}

# serve NAME PIDVAR PORTVAR READY-CMD CMD...: start a server on a free port
# (CMD's @PORT@), until READY-CMD (with @PORT@) succeeds; another port if it
# dies first (the port was taken meanwhile). Output in $BATS_TEST_TMPDIR/NAME.log.
serve() {
	local name=$1 pidvar=$2 portvar=$3 ready=$4 port pid i
	shift 4
	for _ in 1 2 3; do
		port=$(free_port)
		"${@//@PORT@/$port}" >"$BATS_TEST_TMPDIR/$name.log" 2>&1 3>&- &
		pid=$!
		printf -v "$pidvar" '%s' "$pid"
		printf -v "$portvar" '%s' "$port"
		for ((i = 0; i < 300; i++)); do	# up to 60 s: a bound, not a timing
			kill -0 "$pid" 2>/dev/null || break
			sh -c "${ready//@PORT@/$port}" >/dev/null 2>&1 && return 0
			sleep 0.2
		done
		stop_bg "$pid"
	done
	echo "$name did not start:"
	cat "$BATS_TEST_TMPDIR/$name.log"
	return 1
}

# The metrics unit's command as systemd runs it (paths substituted as make
# install does, TEXTFILE_DIR from its Environment=), against ROOT.
metrics_unit() {
	local cmd
	cmd=$(sed -n 's/^ExecStart=//p' "$TOP/contrib/tsmctl-metrics.service")
	env TEXTFILE_DIR="$TEXTFILE" TSMCTL_SYSROOT="$ROOT" sh -c "${cmd//@BINDIR@/$BIN}"
}

# alert_is STATE: the alert TsmctlIdeStreamFail is STATE for this host's pci0000:40 (none: not active).
alert_is() {
	local got
	got=$("$API" "$PROM" alerts TsmctlIdeStreamFail) || return 1
	if [ "$1" = none ]; then
		[ -z "$got" ]
	else
		[[ "$got" == "$1 "*'"host_bridge": "pci0000:40"'*"\"instance\": \"127.0.0.1:$NE_PORT\""* ]]
	fi
}

# scraped EXPR: Prometheus has a sample for EXPR.
scraped() {
	[ -n "$("$API" "$PROM" query "$1")" ]
}

# rule_evaluated_since T: the rule has been evaluated after Unix time T.
rule_evaluated_since() {
	local health last
	read -r _ health last < <("$API" "$PROM" rule TsmctlIdeStreamFail) || return 1
	[ "$health" = ok ] && awk -v a="$last" -v b="$1" 'BEGIN { exit !(a > b) }'
}

@test "end to end: the metrics unit, node_exporter and Prometheus with the shipped rules; IDE_FAIL fires, a re-keyed stream resolves" {
	mount_live sev-tio
	TEXTFILE=$BATS_TEST_TMPDIR/textfile
	mkdir "$TEXTFILE"
	BIN=$BATS_TEST_TMPDIR/bin
	mkdir "$BIN"
	ln -s "$TSMCTL" "$BIN/tsmctl"
	metrics_unit
	"$CHECK" "$TEXTFILE/tsmctl.prom"

	serve node_exporter NE_PID NE_PORT "$API http://127.0.0.1:@PORT@ get /metrics | grep -q '^tsmctl_scrape_success 1'" \
		prometheus-node-exporter --web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$TEXTFILE"
	cat > "$BATS_TEST_TMPDIR/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	rule_files:
	  - $TOP/contrib/prometheus/tsmctl.rules.yml
	scrape_configs:
	  - job_name: node
	    static_configs:
	      - targets: ['127.0.0.1:$NE_PORT']
	EOF
	serve prometheus PROM_PID PROM_PORT "$API http://127.0.0.1:@PORT@ ready" \
		prometheus --config.file="$BATS_TEST_TMPDIR/prometheus.yml" \
		--storage.tsdb.path="$BATS_TEST_TMPDIR/tsdb" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
	PROM=http://127.0.0.1:$PROM_PORT

	# healthy: scraped, evaluated since, and not active
	until_true "the first scrape" scraped 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"} == 0'
	t0=$(date +%s.%N)
	until_true "an evaluation" rule_evaluated_since "$t0"
	alert_is none
	[ "$("$API" "$PROM" rule TsmctlIdeStreamFail | cut -d' ' -f1)" = inactive ]
	until_true "the record's first value" scraped 'instance:tsmctl_streams_not_secure:sum == 0'

	# the root port of stream0.0.0 receives an IDE Fail message; the timer's next run
	echo "ide-fail 0000:41:00.0 rp" > "$ROOT/tsm-sim-control"
	metrics_unit
	"$CHECK" "$TEXTFILE/tsmctl.prom"
	grep -qx 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"} 1' "$TEXTFILE/tsmctl.prom"
	until_true "the alert firing" alert_is firing
	# and the recording rule counts the stream as not secure, its blocks SECURE though they read
	until_true "the record counting it" scraped 'instance:tsmctl_streams_not_secure:sum == 1'
	grep -qx 'tsmctl_streams{host_bridge="pci0000:40",state="secure"} 0' "$TEXTFILE/tsmctl.prom"
	run -0 "$API" "$PROM" alerts TsmctlIdeStreamFail
	[[ "$output" == *'"summary": "IDE stream integrity failure on 127.0.0.1:'"$NE_PORT"' (pci0000:40)"'* ]]
	[[ "$output" == *"tsmctl streams -b pci0000:40 -v"* ]]

	# re-keyed as the alert says: disconnect, connect, and the next run
	t disconnect --no-syslog 0000:41:00.0
	t connect --no-syslog 0000:41:00.0 tsm0
	metrics_unit
	"$CHECK" "$TEXTFILE/tsmctl.prom"
	grep -qx 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"} 0' "$TEXTFILE/tsmctl.prom"
	until_true "the alert resolved" alert_is none
	[ "$("$API" "$PROM" rule TsmctlIdeStreamFail | cut -d' ' -f1)" = inactive ]
}
