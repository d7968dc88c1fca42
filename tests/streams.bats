#!/usr/bin/env bats
# tsmctl streams: links matched to partners, both partners' registers decoded.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
}

@test "streams -J on SEV-TIO: the NIC's stream, both partners" {
	run t streams -J
	[ "$status" -eq 0 ]
	json_is '.schema_version' 1
	json_is '.streams | length' 1
	json_is '.streams[0] | [.name, .host_bridge, .h, .r, .e, .stream_id, .tsm, .dangling]' \
		'["stream0.0.0","pci0000:40",0,0,0,0,"tsm0",false]'
	json_is '.streams[0].endpoint | keys' '["address","algorithm","bdf","block","cfg_requests","default_stream","enabled","ide_fail","needs_root","pcrc","rid","state","stream_id","summary","tc","tee_limited"]'
	json_is '.streams[0] | [.link_error, .duplicate_of, .endpoint.summary, .root_port.summary]' '[null,null,"secure","secure"]'
	# SEV-TIO programs EP: cfg off, TEE-limited on, default stream; RP: cfg on, TEE-limited off.
	json_is '.streams[0].endpoint | [.bdf, .block, .enabled, .state, .ide_fail, .stream_id, .tc, .algorithm, .default_stream, .tee_limited, .cfg_requests, .pcrc]' \
		'["0000:41:00.0",0,true,"secure",false,0,0,"aes-gcm-256-96b",true,true,false,false]'
	json_is '.streams[0].root_port | [.bdf, .block, .enabled, .state, .ide_fail, .stream_id, .default_stream, .tee_limited, .cfg_requests]' \
		'["0000:40:01.1",0,true,"secure",false,0,false,false,true]'
	json_is '.streams[0].endpoint.rid' '{"valid":true,"base":0,"limit":65535,"segment":0}'
	json_is '.streams[0].root_port.rid' '{"valid":true,"base":0,"limit":65535,"segment":0}'
	json_is '.streams[0].root_port.address' '[{"valid":true,"base":2684354560,"limit":2717908991}]'
}

@test "streams decodes what the config files hold (cross-checked with od)" {
	run t streams -J
	rp_cfg=$ROOT/sys/devices/pci0000:40/0000:40:01.1/config
	ep_cfg=$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/config
	for cfg in "$rp_cfg" "$ep_cfg"; do
		sel=$(sel_block "$cfg" 0)
		ctl=$(cfg_word "$cfg" $((sel + 4)))
		sts=$(cfg_word "$cfg" $((sel + 8)))
		[ $((ctl & 1)) -eq 1 ]
		[ $((sts & 15)) -eq 2 ]
		[ $(((ctl >> 24) & 255)) -eq "$(printf '%s' "$output" | jq '.streams[0].stream_id')" ]
	done
}

@test "streams on broken: insecure RP partner, IDE_FAIL endpoint, dangling link" {
	ROOT=$(static_tree broken)
	run t streams -J
	[ "$status" -eq 0 ]
	json_is '[.streams[].name]' '["stream0.0.0","stream1.1.0","stream3.2.0"]'
	json_is '.streams[0] | [.endpoint.state, .root_port.state, .root_port.enabled]' '["secure","insecure",true]'
	json_is '.streams[1] | [.r, .e, .stream_id, .root_port.bdf, .endpoint.ide_fail, .root_port.ide_fail, .endpoint.state]' \
		'[1,0,1,"0000:40:03.1",true,false,"secure"]'
	json_is '.streams[2] | [.dangling, .endpoint.bdf, .target, .tsm, .stream_id]' '[true,null,"0000:44:00.0",null,null]'
	run t streams -n -r -o NAME,EP-STATE,RP-STATE,IDE-FAIL
	[ "${lines[0]}" = "stream0.0.0 secure insecure no" ]
	[ "${lines[1]}" = "stream1.1.0 secure+ide-fail secure yes" ]
	[ "${lines[2]}" = "stream3.2.0 dangling dangling " ]
}

@test "streams -v adds RID and address association columns" {
	run t streams -v
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"EP-RID"*"RP-RID"*"EP-ADDR"*"RP-ADDR"* ]]
	[[ "${lines[1]}" == *"0000-ffff"*"0xa0000000-0xa1ffffff"* ]]
}

@test "streams filters: -d matches either partner, -b, -t" {
	ROOT=$(static_tree broken)
	run t streams -J -d 42:00.0
	json_is '[.streams[].name]' '["stream1.1.0"]'
	run t streams -J -d 40:01.1
	json_is '[.streams[].name]' '["stream0.0.0"]'
	run --separate-stderr t streams -J -b pci0000:00
	json_is '.streams' '[]'
	run t streams -J -t tsm0
	json_is '[.streams[].name]' '["stream0.0.0","stream1.1.0"]'
	run t streams -b pci0000:77
	[ "$status" -eq 1 ]
}

@test "streams with no stream links: empty, exit 0, says why" {
	ROOT=$(static_tree devsec)
	run --separate-stderr t streams -J
	[ "$status" -eq 0 ]
	json_is '.streams' '[]'
	[[ "$stderr" == *"no device is connected"* ]]
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t streams
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"CONFIG_PCI_TSM"* ]]
}

@test "streams: partner config readable only as 64 bytes is needs-root" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree sev-tio)/." "$ROOT"
	cfg=$ROOT/sys/devices/pci0000:40/0000:40:01.1/config
	head -c 64 "$cfg" > "$cfg.short" && mv "$cfg.short" "$cfg"
	run --separate-stderr t streams -J
	[ "$status" -eq 0 ]
	json_is '.streams[0].root_port | [.bdf, .state, .enabled, .needs_root]' '["0000:40:01.1",null,null,true]'
	json_is '.streams[0].endpoint.state' '"secure"'
	[[ "$stderr" == *"needs root"* ]]
	run --separate-stderr t streams -n -r -o RP-STATE
	[ "$output" = "needs-root" ]
}

@test "streams: names that are not streamH.R.E are no streams: not shown, said once on stderr" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree sev-tio)/." "$ROOT"
	hb=$ROOT/sys/devices/pci0000:40
	for n in streamA.B.C stream99999999999999999999.0.0 stream0.0 stream01.0.0 stream256.0.0 stream0.0.0x; do
		ln -s 0000:40:01.1/0000:41:00.0 "$hb/$n"
	done
	run --separate-stderr t streams -J
	json_is '[.streams[].name]' '["stream0.0.0"]'
	[ "$stderr" = "tsmctl streams: 6 entries named stream* are no streamH.R.E name the kernel makes (pci0000:40/stream0.0, ...), not shown; see tsmctl audit (stream.link)" ]
}

@test "streams on a live devsec connect matches the simulator's registers" {
	mount_live devsec
	echo tsm0 > "$ROOT/sys/bus/pci/devices/10000:01:00.0/tsm/connect"
	run t streams -J
	unmount_live
	# the sample enables the endpoint alone; its emulated root port only stores the setup
	json_is '[.streams[] | [.host_bridge, .name, .stream_id, .endpoint.bdf, .root_port.bdf, .endpoint.state, .root_port.state]]' \
		'[["pci10000:00","stream0.0.0",0,"10000:01:00.0","10000:00:00.0","secure","insecure"]]'
	json_is '[.streams[] | [.endpoint.enabled, .root_port.enabled]]' '[[true,false]]'
}

@test "streams and host-bridges on the 6.19-rc1 flavour: tsmN/streamH.R.E names the TSM" {
	mount_live devsec-staging-rc1
	for m in devsec_bus devsec_tsm devsec_link_tsm; do "$SIM" modprobe "$ROOT" $m; done
	echo tsm1 > "$ROOT/sys/bus/pci/devices/10000:01:00.0/tsm/connect"
	[ -L "$ROOT/sys/class/tsm/tsm1/stream0.0.0" ]
	run t streams -J
	json_is '[.streams[] | [.host_bridge, .name, .tsm, .endpoint.bdf, .endpoint.state]]' \
		'[["pci10000:00","stream0.0.0","tsm1","10000:01:00.0","secure"]]'
	run t host-bridges -J
	json_is '[.host_bridges[] | [.name, .streams, .tsms]]' \
		'[["pci10000:00",["stream0.0.0"],["tsm1"]],["pci10001:02",[],[]]]'
}

@test "streams from the TSM-directory link alone (no host-bridge link)" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	"$SIM" build <(jq '.abi = "v6.19-rc1" | (.. | objects | select(.bdf? == "10000:01:00.0")).connected = "tsm0"' \
		"$TOPO/devsec.json") "$ROOT"
	[ -L "$ROOT/sys/class/tsm/tsm0/stream0.0.0" ]
	rm "$ROOT/sys/devices/faux/devsec_bus/pci10000:00/stream0.0.0"
	run t streams -J
	json_is '[.streams[] | [.host_bridge, .name, .tsm, .endpoint.bdf, .root_port.bdf, .endpoint.state]]' \
		'[["pci10000:00","stream0.0.0","tsm0","10000:01:00.0","10000:00:00.0","secure"]]'
	run t host-bridges -J
	json_is '[.host_bridges[] | [.name, .streams, .tsms]]' \
		'[["pci10000:00",["stream0.0.0"],["tsm0"]],["pci10001:02",[],[]]]'
}

teardown() {
	unmount_live
}

@test "a reserved algorithm in a stream's control register is reserved(N), in JSON and the table" {
	edit_tree sev-tio
	cfg=$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/config
	blk=$(sel_block "$cfg" 0)
	ctl=$(cfg_word "$cfg" $((blk + 4)))
	poke32 "$cfg" $((blk + 4)) $(((ctl & ~(31 << 14)) | (5 << 14)))
	run t streams -J
	json_is '.streams[0].endpoint.algorithm' '"reserved(5)"'
	json_is '.streams[0].root_port.algorithm' '"aes-gcm-256-96b"'
	run t streams -n -o NAME,ALGORITHM
	[ "$output" = "stream0.0.0 reserved(5)" ]
}

@test "one state vocabulary: every EP-STATE/RP-STATE word on every topology is documented, connect -J says the same" {
	page=$TOP/man/tsmctl-streams.8.scd
	# the words of STATES (a line holding only *word*, or *reserved(*_N_*)*)
	words=$(awk '/^# STATES/ { on = 1; next } /^# / { on = 0 } on && /^\*[a-z(]/' "$page" |
		sed 's/\*//g; s/_N_/N/')
	[ -n "$words" ]
	seen=
	for topo in "$TOPO"/*.json; do
		ROOT=$(static_tree "$(basename "$topo" .json)") || continue
		seen+=$'\n'$(t streams -n -r -o EP-STATE,RP-STATE 2>/dev/null | tr ' ' '\n')
	done
	ROOT=$(static_tree broken)
	edit_tree broken
	ln -s 0000:40:03.1/0000:42:00.0 "$ROOT/sys/devices/pci0000:40/stream9.1.0"
	seen+=$'\n'$(t streams -n -r -o EP-STATE,RP-STATE 2>/dev/null | tr ' ' '\n')
	for w in $(printf '%s\n' "$seen" | sed '/^$/d' | sed 's/+ide-fail$//; s/reserved([0-9]*)/reserved(N)/' | sort -u); do
		grep -qxF "$w" <<<"$words" || { echo "undocumented state '$w'"; return 1; }
	done
	# connect -J's partner states are the streams view's summary, word for word
	mount_live connect-sev-tio
	run --separate-stderr t connect 45:00.0 tsm0 -J
	connect_states=$(jq -c '[.results[0].streams[] | [.name, .endpoint_state, .root_port_state]]' <<<"$output")
	run --separate-stderr t streams -J -d 45:00.0
	json_is '[.streams[] | [.name, .endpoint.summary, .root_port.summary]]' "$connect_states"
	json_is '.streams[0].root_port | [.state, .ide_fail, .summary]' '["secure",true,"secure+ide-fail"]'
	run --separate-stderr t connect 43:00.0 tsm0 -J
	json_is '.results[0].streams[0] | [.endpoint_state, .root_port_state]' '["insecure","disabled"]'
	run --separate-stderr t streams -J -d 43:00.0
	json_is '.streams[0].root_port | [.state, .enabled, .summary]' '["insecure",false,"disabled"]'
}

@test "a connect that came up with IDE_FAIL says so on stdout, not on stderr alone" {
	mount_live connect-sev-tio
	run --separate-stderr t connect 45:00.0 tsm0
	expect_status 1
	[[ "$output" == *"root port secure+ide-fail"* ]]
}

@test "--state selects streams by both partners' states, OR within the list, AND with the filters" {
	ROOT=$(static_tree broken)
	state_is() {
		run --separate-stderr t streams -n -o NAME --state "$1" "${@:3}"
		[ "$status" -eq 0 ] || { echo "--state $1: exit $status"; return 1; }
		[ "${lines[*]}" = "$2" ] || { echo "--state $1 ${*:3}: '${lines[*]}', expected '$2'"; return 1; }
	}
	state_is insecure stream0.0.0
	state_is ide-fail stream1.1.0
	state_is dangling stream3.2.0
	state_is secure ""
	state_is insecure,dangling "stream0.0.0 stream3.2.0"
	state_is "ide-fail insecure" "stream0.0.0 stream1.1.0"
	state_is insecure,ide-fail,dangling "stream0.0.0 stream1.1.0 stream3.2.0" -b pci0000:40
	state_is insecure "" -d 42:00.0
	state_is ide-fail stream1.1.0 -t tsm0
	# the words are the partners' (STATES): the root port of stream0.0.0 is the insecure one
	run --separate-stderr t streams -n -r -o NAME,EP-STATE,RP-STATE --state insecure
	[ "$output" = "stream0.0.0 secure insecure" ]
	run --separate-stderr t streams --state secure
	[ "$stderr" = "tsmctl streams: no stream is in the --state asked for" ]
	run --separate-stderr t streams --state insecure -d 42:00.0
	[ "$stderr" = "tsmctl streams: no stream in the --state asked for matches -d 0000:42:00.0" ]
	ROOT=$(static_tree sev-tio)
	state_is secure stream0.0.0
	state_is insecure ""
}

@test "--state: unknown words and empty lists are usage errors; other views refuse it" {
	for bad in bogus "" "," "secure,bogus" Secure; do
		run --separate-stderr t streams --state "$bad"
		[ "$status" -eq 2 ] || { echo "'$bad': exit $status"; return 1; }
		[ -z "$output" ]
	done
	[[ "$stderr" == *"invalid --state 'Secure' (expected secure, insecure, ide-fail or dangling)"* ]]
	for c in devices host-bridges list tree audit; do
		run --separate-stderr t "$c" --state secure
		[ "$status" -eq 2 ] || { echo "$c: exit $status"; return 1; }
		[[ "$stderr" == *"unrecognized option '--state'"* ]]
	done
}

@test "live: --state follows what the registers say after a drop to INSECURE and an IDE_FAIL" {
	mount_live sev-tio
	run --separate-stderr t streams -n -o NAME --state secure
	[ "$output" = "stream0.0.0" ]
	echo "drop 0000:41:00.0 rp" > "$ROOT/tsm-sim-control"
	run --separate-stderr t streams -n -o NAME --state insecure
	[ "$output" = "stream0.0.0" ]
	run --separate-stderr t streams -n -o NAME --state secure
	[ -z "$output" ]
	run t connect --no-syslog 81:00.0 tsm0
	echo "ide-fail 0000:81:00.0 both" > "$ROOT/tsm-sim-control"
	run --separate-stderr t streams -n -r -o HOST-BRIDGE,NAME --state ide-fail
	[ "$output" = "pci0000:80 stream0.0.0" ]
	# IDE_FAIL is never "secure", though both blocks still read SECURE
	run --separate-stderr t streams -n -o NAME --state secure
	[ -z "$output" ]
	# one word a stream: an INSECURE stream that gets IDE_FAIL is ide-fail, no longer insecure,
	# as metrics counts it
	echo "ide-fail 0000:41:00.0 ep" > "$ROOT/tsm-sim-control"
	run --separate-stderr t streams -n -r -o HOST-BRIDGE,NAME --state insecure
	[ -z "$output" ]
	run --separate-stderr t streams -n -r -o HOST-BRIDGE,NAME --state ide-fail
	[ "${lines[*]}" = "pci0000:40 stream0.0.0 pci0000:80 stream0.0.0" ]
	run --separate-stderr t metrics
	[[ "$output" == *$'\ntsmctl_streams{host_bridge="pci0000:40",state="ide-fail"} 1\n'* ]]
	[[ "$output" == *$'\ntsmctl_streams{host_bridge="pci0000:40",state="insecure"} 0\n'* ]]
	[[ "$output" == *$'\ntsmctl_streams{host_bridge="pci0000:80",state="secure"} 0\n'* ]]
}
