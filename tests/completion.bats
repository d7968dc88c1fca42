#!/usr/bin/env bats
# bash completion, driven through COMP_WORDS against a simulated tree.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	ln -s "$TSMCTL" "$BIN/tsmctl"
}

# complete WORD... : the completions for the last word, one per line.
complete_words() {
	PATH=$BIN:$PATH bash -c '
		source "$1/completions/tsmctl.bash"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_tsmctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$TOP" "$@"
}

@test "completes command names from tsmctl --list-cmds" {
	run complete_words tsmctl --sysroot "$ROOT" ""
	[ "$status" -eq 0 ]
	for c in list devices streams host-bridges; do
		[[ "$output" == *"$c"* ]]
	done
	run complete_words tsmctl str
	[ "$output" = "streams" ]
}

@test "completes a command's options and nothing it does not take" {
	run complete_words tsmctl streams --
	[[ "$output" == *"--host-bridge"* ]]
	[[ "$output" == *"--json"* ]]
	[[ "$output" != *"--all"* ]]
	run complete_words tsmctl devices --al
	[ "$output" = "--all" ]
	run complete_words tsmctl devices --a
	[ "${lines[*]}" = "--all --accepted" ]
	run complete_words tsmctl streams --no
	[ "$output" = "--noheadings" ]
	for c in connect disconnect lock accept unlock; do
		run complete_words tsmctl "$c" --no-s
		[ "$output" = "--no-syslog" ] || { echo "$c: $output"; return 1; }
	done
}

@test "completes column names after -o, also in lists and with +" {
	run complete_words tsmctl host-bridges -o AV
	[ "$output" = "AVAILABLE" ]
	run complete_words tsmctl host-bridges -o NAME,NST
	[ "$output" = "NAME,NSTREAMS" ]
	run complete_words tsmctl list -o +MODU
	[ "$output" = "+MODULE" ]
	run complete_words tsmctl list -o +MOD
	[ "${lines[*]}" = "+MODE +MODULE" ]
}

@test "completes live objects from the --sysroot tree" {
	run complete_words tsmctl --sysroot "$ROOT" devices -d ""
	[ "${lines[*]}" = "0000:41:00.0 0000:81:00.0 0000:41:00 0000:81:00" ]
	run complete_words tsmctl --sysroot "$ROOT" streams -t ""
	[ "$output" = "tsm0" ]
	run complete_words tsmctl --sysroot "$ROOT" host-bridges -b pci0000:4
	[ "$output" = "pci0000:40" ]
}

@test "connect offers unconnected devices first; disconnect only connected ones" {
	run complete_words tsmctl --sysroot "$ROOT" connect ""
	[ "${lines[0]}" = "0000:81:00.0" ]
	[ "${lines[1]}" = "0000:41:00.0" ]
	[[ "$output" == *"tsm0"* ]]
	run complete_words tsmctl --sysroot "$ROOT" disconnect 0000:
	[ "${lines[*]}" = "0000:41:00.0 0000:41:00" ]
}

@test "zsh completion file is valid zsh if zsh is present" {
	command -v zsh >/dev/null || skip "zsh not installed"
	zsh -n "$TOP/completions/_tsmctl"
}

@test "lock offers unlocked TDISP devices, accept locked unaccepted ones, unlock locked ones" {
	# guest-sev with 00:05.0 locked (not accepted) and a third VF 00:07.0 locked and accepted
	jq '.host_bridges[0].devices[1].locked = "tsm0"
		| .host_bridges[0].devices += [.host_bridges[0].devices[1]
			| .bdf = "0000:00:07.0" | .accepted = true]' \
		"$TOPO/guest-sev.json" > "$BATS_TEST_TMPDIR/guest.json"
	ROOT=$BATS_TEST_TMPDIR/guest
	"$SIM" build "$BATS_TEST_TMPDIR/guest.json" "$ROOT" >/dev/null
	# 00:06.0 has mlx5_core bound: lock would be EBUSY, so it is no candidate (as for lock --all)
	run complete_words tsmctl --sysroot "$ROOT" lock ""
	[ "${lines[*]}" = "tsm0" ]
	run complete_words tsmctl --sysroot "$ROOT" accept ""
	[ "${lines[*]}" = "0000:00:05.0 0000:00:05" ]
	run complete_words tsmctl --sysroot "$ROOT" unlock ""
	[ "${lines[*]}" = "0000:00:05.0 0000:00:07.0 tsm0 0000:00:05 0000:00:07" ]
	run complete_words tsmctl --sysroot "$ROOT" unlock 0000:00:07.0 ""
	[[ "$output" == *"tsm0"* ]]
}

@test "wait offers TSM names; watch and metrics values are left to the user or files" {
	run complete_words tsmctl --sysroot "$ROOT" wait ""
	[ "$output" = "tsm0" ]
	run complete_words tsmctl watch --interval ""
	[ -z "$output" ]
	touch "$BATS_TEST_TMPDIR/m.prom"
	run complete_words tsmctl metrics --output-file "$BATS_TEST_TMPDIR/m."
	[ "$output" = "$BATS_TEST_TMPDIR/m.prom" ]
}

@test "lock and accept offer only what lock --all and accept --all would pick: no device with a driver" {
	ROOT=$(static_tree guest-sev)
	[ -e "$ROOT/sys/bus/pci/devices/0000:00:06.0/driver" ]
	run complete_words tsmctl --sysroot "$ROOT" lock ""
	[ "${lines[*]}" = "0000:00:05.0 tsm0 0000:00:05" ]
	[ "$(t lock --dry-run -J --all tsm0 | jq -c '[.results[].bdf]')" = '["0000:00:05.0"]' ]
	# 00:06.0 locked with its driver bound (the state after lock, accept, bind): accept skips it
	jq '.host_bridges[0].devices[2].locked = "tsm0" | .host_bridges[0].devices[1].locked = "tsm0"' \
		"$TOPO/guest-sev.json" > "$BATS_TEST_TMPDIR/g.json"
	ROOT=$BATS_TEST_TMPDIR/g
	"$SIM" build "$BATS_TEST_TMPDIR/g.json" "$ROOT" >/dev/null
	run complete_words tsmctl --sysroot "$ROOT" accept ""
	[ "${lines[*]}" = "0000:00:05.0 0000:00:05" ]
}

@test "-o offers only the columns not chosen yet" {
	run complete_words tsmctl host-bridges -o NAME,
	[[ "$output" != *"NAME,NAME"* ]]
	[[ "$output" == *"NAME,AVAILABLE"* ]]
	run complete_words tsmctl list -o NAME,MODE,MOD
	[ "$output" = "NAME,MODE,MODULE" ]
	# chosen in any case: tsmctl takes column names case-insensitively
	run complete_words tsmctl list -o +name,N
	[[ "$output" != *"+name,NAME"* ]]
}

@test "help completes command names; --state its states; devices and tree their objects" {
	run complete_words tsmctl help tr
	[ "$output" = "tree" ]
	run complete_words tsmctl help ""
	[[ " ${lines[*]} " == *" tree "*" help "* ]]
	run complete_words tsmctl streams --state ""
	[ "${lines[*]}" = "secure insecure ide-fail dangling" ]
	run complete_words tsmctl streams --state insecure,ide
	[ "$output" = "insecure,ide-fail" ]
	run complete_words tsmctl --sysroot "$ROOT" devices -v ""
	[ "${lines[*]}" = "0000:41:00.0 0000:81:00.0 0000:41:00 0000:81:00" ]
	run complete_words tsmctl --sysroot "$ROOT" tree -b pci0000:8
	[ "$output" = "pci0000:80" ]
	run complete_words tsmctl tree -o +REL
	[ "$output" = "+RELATION" ]
	run complete_words tsmctl audit -o STATUS,MES
	[ "$output" = "STATUS,MESSAGE" ]
	run complete_words tsmctl devices --can
	[ "$output" = "--can-connect" ]
	run complete_words tsmctl host-bridges --ex
	[ "$output" = "--exhausted" ]
}

@test "evidence --from completes directories; --trust, --reference and --pin files, for evidence, accept and audit" {
	mkdir -p "$BATS_TEST_TMPDIR/saved.d"
	touch "$BATS_TEST_TMPDIR/ref.json"
	run complete_words tsmctl evidence --from "$BATS_TEST_TMPDIR/sa"
	[ "$output" = "$BATS_TEST_TMPDIR/saved.d" ]
	run complete_words tsmctl evidence --from "$BATS_TEST_TMPDIR/re"
	[ -z "$output" ]
	for c in "evidence --trust" "evidence --reference" "accept --pin" "audit --trust"; do
		# shellcheck disable=SC2086 # the command and its option
		run complete_words tsmctl $c "$BATS_TEST_TMPDIR/re"
		[ "$output" = "$BATS_TEST_TMPDIR/ref.json" ] || { echo "$c: $output"; return 1; }
	done
	for c in evidence accept; do
		run complete_words tsmctl $c --verif
		[ "$output" = "--verify" ] || { echo "$c: $output"; return 1; }
	done
	run complete_words tsmctl audit --require-v
	[ "$output" = "--require-verified" ]
}

@test "measurements and extend offer the registers (extend only the extendable ones); verify-mitigation the unverified bits" {
	ROOT=$(static_tree guest-tdx)
	run complete_words tsmctl --sysroot "$ROOT" measurements ""
	[ "${lines[*]}" = "mrconfigid mrowner mrownerconfig mrtd rtmr0 rtmr1 rtmr2 rtmr3" ]
	run complete_words tsmctl --sysroot "$ROOT" extend ""
	[ "${lines[*]}" = "rtmr0 rtmr1 rtmr2 rtmr3" ]
	run complete_words tsmctl --sysroot "$ROOT" extend --event "$TOP/READ"
	[ "$output" = "$TOP/README.md" ]
	run complete_words tsmctl --sysroot "$ROOT" extend --digest ""
	[ -z "$output" ]
	ROOT=$(static_tree sev-tio-posture)
	run complete_words tsmctl --sysroot "$ROOT" verify-mitigation ""
	[ "${lines[*]}" = "1 2 all" ]
}

@test "--require-connected and --require-verified offer the BDFs and all, as a list; slots wherever slots are taken" {
	for opt in --require-connected --require-verified; do
		"$TSMCTL" --list-opts audit | grep -qx -- "$opt LIST" || continue
		run complete_words tsmctl --sysroot "$ROOT" audit "$opt" ""
		[ "${lines[*]}" = "all 0000:41:00.0 0000:81:00.0" ] || { echo "$opt: ${lines[*]}"; return 1; }
		# a list: what is chosen already is not offered again; the BDFs, not the slots audit also takes
		run complete_words tsmctl --sysroot "$ROOT" audit "$opt" 0000:41:00.0,
		[ "${lines[*]}" = "0000:41:00.0,all 0000:41:00.0,0000:81:00.0" ] || { echo "$opt: ${lines[*]}"; return 1; }
	done
	# -d takes a list of BDFs and slots; connect, disconnect and evidence targets take slots
	run complete_words tsmctl --sysroot "$ROOT" host-bridges -d 0000:41:00.0,0000:8
	[ "${lines[*]}" = "0000:41:00.0,0000:81:00.0 0000:41:00.0,0000:81:00" ]
	run complete_words tsmctl --sysroot "$ROOT" connect 0000:81:00
	[ "${lines[*]}" = "0000:81:00.0 0000:81:00" ]
	run complete_words tsmctl --sysroot "$ROOT" evidence 0000:41
	[ "${lines[*]}" = "0000:41:00.0 0000:41:00" ]
	# every slot offered is one the command takes
	run "$TSMCTL" --sysroot "$ROOT" connect --dry-run 0000:81:00 tsm0
	[ "$status" -eq 0 ]
}

@test "metrics -o completes file names" {
	touch "$BATS_TEST_TMPDIR/t.prom"
	for o in -o --output --output-file; do
		run complete_words tsmctl metrics "$o" "$BATS_TEST_TMPDIR/t."
		[ "$output" = "$BATS_TEST_TMPDIR/t.prom" ] || { echo "$o: $output"; return 1; }
	done
}
