#!/usr/bin/env bats
# The Ansible collection (contrib/ansible) under Debian's ansible-core:
# ansible-doc loads every module's documentation, which must match the
# module's argument spec; ansible-playbook runs the shipped playbook against
# 20 inventory hosts, each with its own live tsm-sim mount as its sysroot
# (the local connection, several forks), and every claim is checked in the
# trees: check mode writes nothing, the first run connects what can connect
# and fails exactly the hosts that must fail while the others go on, the
# second run changes nothing. Ad-hoc runs cover each module's states,
# options and failures.

load lib/helpers

setup_file() {
	export ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home
	local coll=$BATS_FILE_TMPDIR/collections
	mkdir -p "$coll/ansible_collections/tsmctl" "$ANSIBLE_HOME"
	ln -s "$TOP/contrib/ansible" "$coll/ansible_collections/tsmctl/tsm"
	# Nothing of the machine's Ansible set-up may leak in: our config only.
	cat > "$ANSIBLE_CONFIG" <<-EOF
	[defaults]
	collections_paths = $coll
	collections_scan_sys_path = false
	interpreter_python = /usr/bin/python3
	forks = 4
	# the default 1 ms has the controller spin while the workers run
	internal_poll_interval = 0.05
	nocolor = true
	retry_files_enabled = false
	local_tmp = $ANSIBLE_HOME/tmp
	remote_tmp = $ANSIBLE_HOME/tmp
	EOF
}

teardown() {
	local m
	for m in "${MOUNTS[@]}"; do
		ROOT=$m unmount_live
	done
	unmount_live
}

# adhoc [--check] [--diff] MODULE JSON: the module on the local host; sets
# status, output, and RESULT (the module's JSON result, from --tree).
adhoc() {
	local flags=()
	while [[ "$1" == --* ]]; do flags+=("$1"); shift; done
	local tree
	tree=$(mktemp -d "$BATS_TEST_TMPDIR/tree.XXXXXX")
	run ansible all -i localhost, -c local "${flags[@]}" -m "tsmctl.tsm.$1" -a "$2" --tree "$tree"
	RESULT=$(cat "$tree/localhost")
}

# rjson FILTER: jq over RESULT.
rjson() {
	printf '%s' "$RESULT" | jq -r "$1"
}

@test "ansible-doc: every module's documentation loads and matches its argument spec; examples use real modules" {
	run -0 ansible-doc -l tsmctl.tsm
	[ "$(printf '%s\n' "$output" | awk '{ print $1 }' | sort | tr '\n' ' ')" = \
		"tsmctl.tsm.tsm_audit tsmctl.tsm.tsm_device tsmctl.tsm.tsm_facts " ]
	[ "$(find "$TOP/contrib/ansible/plugins/modules" -name '*.py' | wc -l)" -eq 3 ]
	for m in tsm_audit tsm_device tsm_facts; do
		ansible-doc --json -t module "tsmctl.tsm.$m" > "$BATS_TEST_TMPDIR/$m.json"
		run -0 /usr/bin/python3 -B - "$BATS_FILE_TMPDIR/collections" "$m" "$BATS_TEST_TMPDIR/$m.json" <<-'EOF'
		import importlib, json, sys, yaml
		sys.path.insert(0, sys.argv[1])
		mod = importlib.import_module('ansible_collections.tsmctl.tsm.plugins.modules.' + sys.argv[2])
		doc = json.load(open(sys.argv[3]))['tsmctl.tsm.' + sys.argv[2]]
		opts = doc['doc']['options']
		spec = mod.ARGUMENT_SPEC
		assert sorted(opts) == sorted(spec), (sorted(opts), sorted(spec))
		for name, s in spec.items():
		    d = opts[name]
		    for key, dflt in (('type', 'str'), ('elements', None), ('default', None),
		                      ('choices', None), ('required', False), ('aliases', None)):
		        assert d.get(key, dflt) == s.get(key, dflt), (name, key, d.get(key), s.get(key))
		    assert d['description'], name
		for key in ('short_description', 'description', 'author'):
		    assert doc['doc'][key], key
		assert doc['return'], 'RETURN'
		assert doc['doc']['attributes']['check_mode']['support'] == 'full'
		modules = set()
		for task in yaml.safe_load(doc['examples']):
		    modules |= {k for k in task if '.' in k}
		assert modules and modules <= {'tsmctl.tsm.tsm_audit', 'tsmctl.tsm.tsm_device',
		    'tsmctl.tsm.tsm_facts', 'ansible.builtin.debug'}, modules
		EOF
	done
	# the collection carries tsmctl's version
	[ "$(awk '$1 == "version:" { print $2 }' "$TOP/contrib/ansible/galaxy.yml")" = "$(make -s -C "$TOP" version)" ]
	# and the checks above fail on a broken page: ansible-doc rejects it
	cp -a "$TOP/contrib/ansible" "$BATS_TEST_TMPDIR/broken"
	sed -i 's/^  tsm:$/  tsm: [/' "$BATS_TEST_TMPDIR/broken/plugins/modules/tsm_device.py"
	mkdir -p "$BATS_TEST_TMPDIR/bc/ansible_collections/tsmctl"
	mv "$BATS_TEST_TMPDIR/broken" "$BATS_TEST_TMPDIR/bc/ansible_collections/tsmctl/tsm"
	run ansible-doc -t module tsmctl.tsm.tsm_device
	[ "$status" -eq 0 ]
	run env ANSIBLE_COLLECTIONS_PATHS="$BATS_TEST_TMPDIR/bc" ansible-doc -t module tsmctl.tsm.tsm_device
	[ "$status" -ne 0 ]
}

# The fleet: host hNN gets topology FLEET[NN-1]. The hosts that must fail come
# first, so the play has to go on past them: h01's devices fail to connect in
# three ways (connect-sev-tio: EIO, no free Stream ID, the TSM declines), h02
# has two link TSMs and no tsmctl_tsm; h05 and h10 get an IDE_FAIL. h03 has a
# device tsmctl knows cannot connect (no stream pool): left out, with the reason.
FLEET=(connect-sev-tio connect-generic tdx-connect-tiny sev-tio sev-tio devsec devsec
	devsec-proposed hosts-anywhere sev-tio soc-pcie devsec devsec-proposed sev-tio
	hosts-anywhere soc-pcie devsec sev-tio guest-sev sev-tio)

# Mount the fleet and write its inventory ($INV).
fleet_up() {
	local i h
	MOUNTS=()
	INV=$BATS_TEST_TMPDIR/inventory.ini
	{
		echo "[tsm_hosts]"
		for i in "${!FLEET[@]}"; do
			h=$(printf 'h%02d' $((i + 1)))
			mkdir "$BATS_TEST_TMPDIR/$h"
			"$SIM" mount "$TOPO/${FLEET[$i]}.json" "$BATS_TEST_TMPDIR/$h" || return 1
			MOUNTS+=("$BATS_TEST_TMPDIR/$h")
			echo "$h tsmctl_sysroot=$BATS_TEST_TMPDIR/$h"
		done
		echo "[tsm_hosts:vars]"
		echo "ansible_connection=local"
		echo "tsmctl_path=$TSMCTL"
		echo "tsmctl_syslog=false"
	} > "$INV"
}

# digests NAME: what a store can change in every host's tree, into
# $BATS_TEST_TMPDIR/NAME.hNN (tests/lib/tree-state).
digests() {
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/$1" "${MOUNTS[@]}"
}

# same_trees A B [HOST...]: the digests A and B agree for the hosts (default: all).
same_trees() {
	local a=$1 b=$2 h
	shift 2
	for h in "${@:-${MOUNTS[@]##*/}}"; do
		cmp -s "$BATS_TEST_TMPDIR/$a.$h" "$BATS_TEST_TMPDIR/$b.$h" ||
			{ echo "$h: the tree changed between $a and $b"; return 1; }
	done
}

# connected HOST: the devices whose tsm/connect names a TSM, read from the tree.
connected() {
	local f out=()
	for f in "$BATS_TEST_TMPDIR/$1"/sys/bus/pci/devices/*/tsm/connect; do
		[ -s "$f" ] && [ -n "$(cat "$f")" ] && out+=("$(basename "$(dirname "$(dirname "$f")")")")
	done
	echo "${out[*]}"
}

# recap HOST: "ok=N changed=N failed=N" from the PLAY RECAP in $output.
recap() {
	printf '%s\n' "$output" | awk -v h="$1" '$1 == h && $2 == ":" { print $3, $4, $6 }'
}

playbook() {
	run --separate-stderr ansible-playbook -i "$INV" tsmctl.tsm.connect_audit \
		-e tsmctl_report="$BATS_TEST_TMPDIR/report.json" "$@"
}

@test "a fleet of 20 simulated hosts: check mode writes nothing, the first run connects, failures stay on their host, the second run changes nothing" {
	fleet_up
	# an IDE Fail message on the boot-time stream of two hosts: their audit must fail
	echo "ide-fail 0000:41:00.0 rp" > "$BATS_TEST_TMPDIR/h05/tsm-sim-control"
	echo "ide-fail 0000:41:00.0 ep" > "$BATS_TEST_TMPDIR/h10/tsm-sim-control"
	digests before

	playbook --check --diff
	[ "$status" -eq 2 ]	# some hosts failed
	digests check
	same_trees before check
	[ "$(recap h04)" = "ok=2 changed=1 failed=0" ]	# would connect 0000:81:00.0
	[ "$(recap h19)" = "ok=2 changed=0 failed=0" ]	# the guest: no link TSM, nothing to connect
	[[ "$output" == *"0000:81:00.0: connected=- "*"0000:81:00.0: connected=tsm0 "* ]]

	playbook
	[ "$status" -eq 2 ]
	digests first
	# what must fail, failed with the reason, and only there
	for h in h01 h02 h05 h10; do
		[[ "$(recap $h)" == *" failed=1" ]] || { echo "$h: $(recap $h)"; return 1; }
	done
	[ "$(printf '%s\n' "$output" | awk '$2 == ":" && $6 == "failed=1"' | wc -l)" -eq 4 ]
	R=$BATS_TEST_TMPDIR/report.json
	jq -e '.h01.message | test("tsmctl connect 0000:47:00.0: tsm0 failed the connect: Input/output error")' "$R"
	jq -e '.h01.message | test("tsmctl connect 0000:61:00.0: .*no free Stream ID")' "$R"
	jq -e '.h01.devices == {"0000:43:00.0": "insecure", "0000:44:00.0": "insecure", "0000:45:00.0": "insecure",
		"0000:47:00.0": "failed", "0000:48:00.0": "ok", "0000:61:00.0": "failed", "0000:81:00.0": "failed"}' "$R"
	jq -e '.h02.message | test("several link TSMs \\(tsm0, tsm1\\)")' "$R"
	jq -e '.h03.failed == false and .h03.devices == {"0000:16:00.0": "ok"} and
		(.h03.notes | any(test("--all leaves out 0000:38:00.0: its host bridge pci0000:37 has no IDE stream pool")))' "$R"
	jq -e '.h05.failed_checks == ["stream.ide-fail"] and (.h05.message | test("stream.ide-fail fail on pci0000:40/stream0.0.0"))' "$R"
	jq -e '[.[] | select(.failed)] | length == 4' "$R"
	jq -e 'keys | length == 20' "$R"
	# the trees: every device that can connect did, on every host, failed or not
	for i in "${!FLEET[@]}"; do
		h=$(printf 'h%02d' $((i + 1)))
		case ${FLEET[$i]} in
		connect-sev-tio) want="0000:43:00.0 0000:44:00.0 0000:45:00.0 0000:48:00.0" ;;
		sev-tio) want="0000:41:00.0 0000:81:00.0" ;;
		devsec | devsec-proposed) want="10000:01:00.0 10001:03:00.0" ;;
		hosts-anywhere) want="0000:01:00.0 10000:e1:00.0" ;;
		soc-pcie) want="0000:01:00.0 0001:01:00.0" ;;
		tdx-connect-tiny) want="0000:16:00.0" ;;
		connect-generic | guest-sev) same_trees before first "$h"; continue ;;
		esac
		[ "$(connected "$h" | tr ' ' '\n' | sort | xargs)" = "$(echo "$want" | tr ' ' '\n' | sort | xargs)" ] ||
			{ echo "$h (${FLEET[$i]}): connected $(connected "$h"), want $want"; return 1; }
		! same_trees before first "$h" >/dev/null || { echo "$h: nothing changed"; return 1; }
	done
	# the devices that failed left nothing behind: no stream on their host bridges
	[ -z "$(find "$BATS_TEST_TMPDIR/h01/sys/devices/pci0000:60" "$BATS_TEST_TMPDIR/h01/sys/devices/pci0000:80" \
		-maxdepth 1 -name 'stream*')" ]
	[ "$(find "$BATS_TEST_TMPDIR/h01/sys/devices/pci0000:40" -maxdepth 1 -name 'stream*' | wc -l)" -eq 4 ]
	[ -z "$(find "$BATS_TEST_TMPDIR/h03/sys/devices/pci0000:37" -maxdepth 1 -name 'stream*')" ]

	playbook
	[ "$status" -eq 2 ]
	digests second
	same_trees first second
	[ "$(printf '%s\n' "$output" | awk '$2 == ":" && $4 != "changed=0" && $1 != "localhost"' | wc -l)" -eq 0 ]
	[ "$(printf '%s\n' "$output" | awk '$2 == ":" && $6 == "failed=1"' | wc -l)" -eq 4 ]
}

# dev_json BDF STATE [MORE JSON]: tsm_device's arguments for ROOT (as JSON).
dev_args() {
	printf '{"device": ["%s"], "state": "%s", "sysroot": "%s", "tsmctl_path": "%s", "syslog": false%s}' \
		"$1" "$2" "$ROOT" "$TSMCTL" "${3:+, $3}"
}

@test "tsm_device in a guest: locked, accepted, unlocked; check mode writes nothing, diff shows the change, a repeat changes nothing" {
	mount_live guest-sev
	MOUNTS=()
	D=$ROOT/sys/bus/pci/devices/0000:00:05.0/tsm
	state() { echo "$(cat "$D/lock")/$(cat "$D/accept")"; }
	[ "$(state)" = "/0" ]
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/s0" "$ROOT"

	adhoc --check --diff tsm_device "$(dev_args 0000:00:05.0 locked '"tsm": "tsm0"')"
	[ "$status" -eq 0 ]
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/s1" "$ROOT"
	cmp "$BATS_TEST_TMPDIR/s0.${ROOT##*/}" "$BATS_TEST_TMPDIR/s1.${ROOT##*/}"
	[ "$(rjson .changed)" = true ]
	[ "$(rjson '.devices["0000:00:05.0"]')" = dry-run ]
	# the diff as Ansible shows it (its callbacks take it out of the result)
	[[ "$output" == *$'\n-0000:00:05.0: connected=- locked=- accepted=no\n+0000:00:05.0: connected=- locked=tsm0 accepted=no\n'* ]]
	[[ "$(rjson '.cmd | join(" ")')" == *" lock -J --dry-run "* ]]

	for st in locked accepted; do
		args=$(dev_args 0000:00:05.0 $st '"tsm": "tsm0"')
		adhoc tsm_device "$args"
		[ "$status" -eq 0 ]
		[ "$(rjson .changed)" = true ]
		[ "$(rjson '.devices["0000:00:05.0"]')" = ok ]
		"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/$st" "$ROOT"
		adhoc tsm_device "$args"	# again: tsmctl says "already", nothing is written
		[ "$status" -eq 0 ]
		[ "$(rjson .changed)" = false ]
		[ "$(rjson '.devices["0000:00:05.0"]')" = already ]
		"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/$st-again" "$ROOT"
		cmp "$BATS_TEST_TMPDIR/$st.${ROOT##*/}" "$BATS_TEST_TMPDIR/$st-again.${ROOT##*/}"
		[ "$st" = accepted ] || [ "$(state)" = "tsm0/0" ]
	done
	[ "$(state)" = "tsm0/1" ]
	[[ "$output" == *"tsm is not used by state=accepted"* ]]

	adhoc --diff tsm_device "$(dev_args 0000:00:05.0 unlocked)"
	[ "$status" -eq 0 ]
	[ "$(rjson .changed)" = true ]
	[ "$(state)" = "/0" ]
	[[ "$output" == *$'\n-0000:00:05.0: connected=- locked=tsm0 accepted=yes\n+0000:00:05.0: connected=- locked=- accepted=no\n'* ]]
	# strict: what is done already is a failure, with tsmctl's words and status
	adhoc tsm_device "$(dev_args 0000:00:05.0 unlocked '"strict": true')"
	[ "$status" -ne 0 ]
	[ "$(rjson .rc)" = 1 ]
	[ "$(rjson .changed)" = false ]
	[[ "$(rjson .msg)" == "tsmctl unlock 0000:00:05.0: "*"not locked"* ]]
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/s2" "$ROOT"
	cmp "$BATS_TEST_TMPDIR/s0.${ROOT##*/}" "$BATS_TEST_TMPDIR/s2.${ROOT##*/}"
}

@test "tsm_device accepted with verify, tsm_audit with trust and require_verified: a TDI its evidence does not prove stays unaccepted; allow_* reach tsmctl" {
	CERTS=$TOP/tests/sim/certs
	[ -r "$CERTS/all-types.reference.json" ] || skip "make -C tests/sim builds the evidence objects"
	MOUNTS=()
	mount_live evidence-guest
	TRUST=$BATS_TEST_TMPDIR/trust
	mkdir "$TRUST"
	cp "$CERTS"/*.root.pem "$TRUST"/
	# the simulated device-evidence family; the modules inherit the environment
	TSMCTL_EVIDENCE_SOCKET=$(cat "$ROOT/tsm-sim-evidence")
	export TSMCTL_EVIDENCE_SOCKET
	# the decision is tsmctl's (tsmctl-evidence(8), THE DECISION): with allow_replay no nonce is
	# sent, so 05's bare measurements' signature cannot be checked; 06's chain expired; neither is accepted
	adhoc tsm_device "$(dev_args 00:05.0 accepted "\"verify\": true, \"trust\": \"$TRUST\", \"reference\": \"$CERTS/all-types.reference.json\", \"allow_replay\": true" |
		sed 's/\["00:05.0"\]/["00:05.0", "00:06.0"]/')"
	[ "$status" -ne 0 ]
	[ "$(rjson .rc)" = 1 ]
	[ "$(rjson .changed)" = false ]
	[ "$(rjson '.devices | tojson')" = '{"0000:00:05.0":"failed","0000:00:06.0":"failed"}' ]
	[[ "$(rjson .msg)" == *"tsmctl accept 0000:00:05.0: not accepted: evidence of generation 1 does not prove the device: evidence.signature measurements: cannot be verified from this evidence: "*"(--allow-unsigned-measurements takes this risk)"* ]]
	[[ "$(rjson .msg)" == *"tsmctl accept 0000:00:06.0: not accepted: evidence of generation 1 does not verify: evidence.chain cert0: certificate has expired"* ]]
	[ "$(rjson '.cmd[3:] | join(" ")')" = "accept -J --keep-going --no-syslog --verify --trust $TRUST --reference $CERTS/all-types.reference.json --allow-replay 00:05.0 00:06.0" ]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 0 ]
	[ "$(cat "$(dev 0000:00:06.0)/tsm/accept")" = 0 ]
	# accept's own nonce signed, the report's offsets taken by allow_report_offsets: 05 is accepted
	adhoc tsm_device "$(dev_args 00:05.0 accepted "\"verify\": true, \"trust\": \"$TRUST\", \"reference\": \"$CERTS/all-types.reference.json\", \"allow_report_offsets\": true")"
	[ "$status" -eq 0 ]
	[ "$(rjson .changed)" = true ]
	[ "$(rjson '.devices["0000:00:05.0"]')" = ok ]
	[ "$(rjson '.cmd[3:] | join(" ")')" = "accept -J --keep-going --no-syslog --verify --trust $TRUST --reference $CERTS/all-types.reference.json --allow-report-offsets 00:05.0" ]
	[ "$(cat "$(dev 0000:00:05.0)/tsm/accept")" = 1 ]
	# allow_* without verify stops before tsmctl
	adhoc tsm_device "$(dev_args 00:05.0 accepted '"allow_first_use": true')"
	[ "$status" -ne 0 ]
	[ "$(rjson .msg)" = "trust, reference, pin, partial_chain and the allow_* options go with verify" ]
	# audit decides the same (no nonce: 05's signature unchecked); 05 and 09 must be proven, 09 has no evidence
	adhoc tsm_audit "{\"sysroot\": \"$ROOT\", \"tsmctl_path\": \"$TSMCTL\", \"trust\": \"$TRUST\", \"reference\": \"$CERTS/all-types.reference.json\", \"allow_replay\": true, \"require_verified\": [\"00:05.0\", \"00:09.0\"]}"
	[ "$status" -ne 0 ]
	[ "$(rjson '[.failed_checks[] | "\(.id) \(.object)"] | join(",")')" = "device.evidence 0000:00:05.0,device.evidence 0000:00:06.0,device.evidence 0000:00:07.0,device.evidence 0000:00:08.0,device.evidence 0000:00:09.0" ]
	[[ "$(rjson .msg)" == *"device.evidence fail on 0000:00:09.0: required to be verified (--require-verified), but it has no evidence"* ]]
	[[ "$(rjson .msg)" == *"device.evidence fail on 0000:00:05.0: required to be verified (--require-verified): evidence of generation 2 does not prove the device"* ]]
	[ "$(rjson '.cmd[3:] | join(" ")')" = "audit -J --require-verified 00:05.0,00:09.0 --trust $TRUST --reference $CERTS/all-types.reference.json --allow-replay" ]
}

@test "tsm_device fails with tsmctl's message and exit status; bad arguments stop before tsmctl; wait reaches tsmctl" {
	MOUNTS=()
	ROOT=$(static_tree sev-tio)
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/s0" "$ROOT"
	# a TSM that does not exist: one error for the whole command, nothing written
	adhoc tsm_device "$(dev_args all connected '"tsm": "tsm1"')"
	[ "$status" -ne 0 ]
	run --separate-stderr "$TSMCTL" --sysroot "$ROOT" connect --all tsm1
	[ "$(rjson .msg)" = "$stderr" ]
	[ "$(rjson .rc)" = "$status" ]
	[ "$status" -eq 1 ]
	[ "$(rjson '.results | length')" = 0 ]
	# done already: not changed; with strict, a failure
	adhoc tsm_device "$(dev_args 41:00.0 connected '"tsm": "tsm0"')"
	[ "$status" -eq 0 ]
	[ "$(rjson .changed)" = false ]
	[ "$(rjson '.devices["0000:41:00.0"]')" = already ]
	adhoc tsm_device "$(dev_args 41:00.0 connected '"tsm": "tsm0", "strict": true')"
	[ "$status" -ne 0 ]
	[ "$(rjson .rc)" = 1 ]
	[[ "$(rjson .msg)" == "tsmctl connect 0000:41:00.0: "* ]]
	# arguments Ansible or the module refuse, and the host without a link TSM,
	# in one play written as an operator writes YAML (module_defaults through
	# the collection's action group)
	NOTSM=$(static_tree no-tsm)
	cat > "$BATS_TEST_TMPDIR/refused.yml" <<-EOF
	- hosts: localhost
	  gather_facts: false
	  module_defaults:
	    group/tsmctl.tsm.tsmctl: {sysroot: "$ROOT", tsmctl_path: "$TSMCTL"}
	  tasks:
	    - tsmctl.tsm.tsm_device: {device: all, state: locked}
	      register: r1
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: [all, "41:00.0"], state: disconnected}
	      register: r2
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: all, state: disconnected, tsmctl_path: "$BATS_TEST_TMPDIR/none"}
	      register: r3
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: [0000:41:00.0], state: disconnected}
	      register: r4
	      ignore_errors: true
	    - tsmctl.tsm.tsm_audit: {require_connected: [41:00.0]}
	      register: r5
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: all, state: disconnected, verify: true}
	      register: r6
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: all, state: accepted, reference: /x.json}
	      register: r7
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: ["01:00.0"], state: connected, sysroot: "$NOTSM", syslog: false}
	      register: r8
	      ignore_errors: true
	    - tsmctl.tsm.tsm_device: {device: all, state: connected, sysroot: "$NOTSM", syslog: false}
	      register: r9
	    - ansible.builtin.copy:
	        content: "{{ [r1, r2, r3, r4, r5, r6, r7, r8, r9] | to_json }}"
	        dest: "$BATS_TEST_TMPDIR/refused.json"
	EOF
	run ansible-playbook -i localhost, -c local "$BATS_TEST_TMPDIR/refused.yml"
	[ "$status" -eq 0 ]
	msgs=$(jq -r '.[] | "\(.failed // false) \(.msg // .notes[0])"' "$BATS_TEST_TMPDIR/refused.json")
	run --separate-stderr "$TSMCTL" --sysroot "$NOTSM" list
	nolink=$stderr
	[ -n "$nolink" ]
	diff -u - <(printf '%s\n' "$msgs") <<-EOF
	true state is locked but all of the following are missing: tsm
	true device: 'all' stands alone, not in a list of addresses
	true tsmctl_path $BATS_TEST_TMPDIR/none is not an executable file
	true device: 2460.0 is not a PCI address: YAML reads an unquoted address such as 0000:41:00.0 as a base-60 number; quote it ("0000:41:00.0")
	true require_connected: 2460.0 is not a PCI address: YAML reads an unquoted address such as 0000:41:00.0 as a base-60 number; quote it ("0000:41:00.0")
	true verify goes with state=accepted (tsmctl accept --verify)
	true trust, reference, pin, partial_chain and the allow_* options go with verify
	true no link TSM to connect 01:00.0 to: $nolink
	false no link TSM on this host: nothing to connect ($nolink)
	EOF
	[ "$(jq -c '.[-1] | [.changed, .results]' "$BATS_TEST_TMPDIR/refused.json")" = '[false,[]]' ]
	"$TOP/tests/lib/tree-state" "$BATS_TEST_TMPDIR/s1" "$ROOT"
	cmp "$BATS_TEST_TMPDIR/s0.${ROOT##*/}" "$BATS_TEST_TMPDIR/s1.${ROOT##*/}"
	# wait: connect's --wait, or tsmctl wait before the other verbs (no TSM here: both time out)
	ROOT=$(static_tree no-tsm)
	adhoc tsm_device "$(dev_args 01:00.0 connected '"tsm": "tsm0", "wait": 1')"
	[ "$status" -ne 0 ]
	[[ "$(rjson .msg)" == "tsmctl connect: tsm0 not ready after 1 s; "* ]]
	adhoc tsm_device "$(dev_args 01:00.0 disconnected '"tsm": "tsm0", "wait": 1')"
	[ "$status" -ne 0 ]
	[[ "$(rjson .msg)" == "tsmctl wait: tsm0 not ready after 1 s; "* ]]
	[ "$(rjson '.cmd[2:] | join(" ")')" = "$ROOT wait --timeout 1 tsm0" ]
}

@test "tsm_facts: the four documents as tsmctl prints them; why they are empty on a host without TSM; another schema_version is refused" {
	MOUNTS=()
	ROOT=$(static_tree sev-tio)
	adhoc tsm_facts "{\"sysroot\": \"$ROOT\", \"tsmctl_path\": \"$TSMCTL\"}"
	[ "$status" -eq 0 ]
	[ "$(rjson .changed)" = false ]
	for doc in list:tsms devices:devices streams:streams host-bridges:host_bridges; do
		want=$(t "${doc%%:*}" -J | jq -cS ".${doc#*:}")
		[ "$(rjson ".ansible_facts.tsmctl.${doc#*:}" | jq -cS .)" = "$want" ] || { echo "$doc differs"; return 1; }
		[ "$want" != "[]" ]
	done
	adhoc tsm_facts "{\"sysroot\": \"$ROOT\", \"tsmctl_path\": \"$TSMCTL\", \"gather\": [\"devices\"], \"all_devices\": true}"
	[ "$(rjson '.ansible_facts.tsmctl | keys | join(" ")')" = devices ]
	[ "$(rjson '.ansible_facts.tsmctl.devices | length')" = "$(t devices --all -J | jq '.devices | length')" ]
	ROOT=$(static_tree no-tsm)
	adhoc tsm_facts "{\"sysroot\": \"$ROOT\", \"tsmctl_path\": \"$TSMCTL\"}"
	[ "$status" -eq 0 ]
	[ "$(rjson '.ansible_facts.tsmctl.tsms | length')" = 0 ]
	run --separate-stderr t list -J
	[ -n "$stderr" ]
	[ "$(printf '%s' "$RESULT" | jq -r '.explanations[0]')" = "$stderr" ]
	# a document of another schema_version is refused, not misread
	cat > "$BATS_TEST_TMPDIR/old-tsmctl" <<-EOF
	#!/bin/sh
	[ "\$3" = host-bridges ] && { echo '{"schema_version": 1, "host_bridges": []}'; exit 0; }
	exec "$TSMCTL" "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/old-tsmctl"
	adhoc tsm_facts "{\"sysroot\": \"$ROOT\", \"tsmctl_path\": \"$BATS_TEST_TMPDIR/old-tsmctl\"}"
	[ "$status" -ne 0 ]
	[ "$(rjson .msg)" = "tsmctl printed a host_bridges document of schema_version 1; this collection reads host_bridges of schema_version 2 (tsmctl and the collection come from different releases)" ]
}

@test "tsm_audit: fails on a failed check, naming it; on warnings only with fail_on_warn; require_connected and filters reach tsmctl" {
	MOUNTS=()
	ROOT=$(static_tree broken)
	args='"sysroot": "'$ROOT'", "tsmctl_path": "'$TSMCTL'"'
	adhoc tsm_audit "{$args}"
	[ "$status" -ne 0 ]
	[ "$(rjson .changed)" = false ]
	[ "$(rjson .rc)" = 1 ]
	want=$(t audit -J | jq -c '[.checks[] | select(.status == "fail") | .id] | sort')
	[ "$(rjson '[.failed_checks[].id] | sort' | jq -c .)" = "$want" ]
	[[ "$want" == *stream.secure* && "$want" == *stream.ide-fail* ]]
	[[ "$(rjson .msg)" == "tsmctl audit: 3 result(s) failing: "*"stream.ide-fail fail on pci0000:40/stream1.1.0: endpoint 0000:42:00.0 block 0 received an IDE Fail message"* ]]
	[ "$(rjson '.checks | length')" = "$(t audit -J | jq '.checks | length')" ]
	# filters: only the host bridge without streams, so nothing fails
	adhoc tsm_audit "{$args, \"host_bridge\": [\"pci0000:00\"], \"device\": [\"0000:02:00.1\"]}"
	[ "$status" -eq 0 ]
	[ "$(rjson .summary.fail)" = 0 ]
	[ "$(rjson '.cmd[3:] | join(" ")')" = "audit -J -d 0000:02:00.1 -b pci0000:00" ]

	ROOT=$(static_tree sev-tio)
	args='"sysroot": "'$ROOT'", "tsmctl_path": "'$TSMCTL'"'
	adhoc tsm_audit "{$args}"
	[ "$status" -eq 0 ]
	[ "$(rjson .summary.warn)" = 1 ]
	[ "$(rjson '.failed_checks | length')" = 0 ]
	warned=$(rjson '[.checks[] | select(.status == "warn") | "\(.id) \(.object)"] | join(",")')
	adhoc tsm_audit "{$args, \"fail_on_warn\": true}"	# tsmctl's --strict makes the warning a failure
	[ "$status" -ne 0 ]
	[ "$(rjson '[.failed_checks[] | "\(.id) \(.object)"] | join(",")')" = "$warned" ]
	adhoc tsm_audit "{$args, \"require_connected\": [\"all\"]}"
	[ "$status" -ne 0 ]
	[ "$(rjson '[.failed_checks[] | "\(.id) \(.object)"] | join(",")')" = "device.connected 0000:81:00.0" ]
}
