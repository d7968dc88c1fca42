#!/usr/bin/env bats
# The examples in the man pages and the README are real runs: every "$ tsmctl ..."
# line of a read-only view is run against the simulated SEV-TIO host the
# examples describe, and its output must be what the page shows.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	# the C locale: tree draws in ASCII there, as the pages show it
	printf '#!/bin/sh\nLC_ALL=C exec "%s" --sysroot "%s" "$@"\n' "$TSMCTL" "$ROOT" > "$BIN/tsmctl"
	chmod +x "$BIN/tsmctl"
}

# examples FILE: "LINE<TAB>COMMAND" for each "$ tsmctl" example; its output follows in the file.
examples() {
	awk '/^```/ { inblock = !inblock; next }
	     inblock && /^\$ tsmctl / && !/ watch / { sub(/^\$ /, ""); print NR "\t" $0 }' "$1"
}

# shown FILE LINE: the lines after LINE up to a blank line, the next "$ " or the block's end.
shown() {
	awk -v from="$2" 'NR > from { if ($0 == "" || /^\$ / || /^```/) exit; print }' "$1" |
		sed 's/[[:space:]]*$//'
}

@test "every example in the man pages and the README is what tsmctl prints" {
	local f line cmd bad=0 n=0 got want
	for f in "$TOP"/man/*.scd "$TOP/README.md"; do
		while IFS=$'\t' read -r line cmd; do
			n=$((n + 1))
			got=$(PATH=$BIN:$PATH bash -c "$cmd" 2>/dev/null | sed 's/[[:space:]]*$//')
			want=$(shown "$f" "$line")
			if [ "$got" != "$want" ]; then
				echo "${f#"$TOP"/}:$line: $cmd"
				diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") || true
				bad=$((bad + 1))
			fi
		done < <(examples "$f")
	done
	echo "$n examples"
	[ "$n" -ge 12 ]
	[ "$bad" -eq 0 ]
}

# options PAGE: each long option an OPTIONS entry of PAGE names, with the entry's text, as
# "--name<TAB>text" (one line per option; the text joined).
page_options() {
	awk '/^# OPTIONS/ { o = 1; next } /^# / { o = 0 }
	     o && /^\*-/ { if (head) flush(); head = $0; text = ""; next }
	     o && head { text = text " " $0 }
	     function flush(   s, m) { s = head
		while (match(s, /--[a-z][a-z-]*/)) { print substr(s, RSTART, RLENGTH) "\t" text; s = substr(s, RSTART + RLENGTH) } }
	     END { if (head) flush() }' "$1"
}

@test "every option a man page documents is taken by its commands; one only some take says which" {
	local f cmds c opt text takers bad=0
	for f in "$TOP"/man/tsmctl-*.8.scd; do
		[ "$(basename "$f")" = tsmctl-collect.8.scd ] && continue
		# the commands the page is for: its NAME line, "tsmctl-connect, tsmctl-disconnect - ..."
		cmds=$(sed -n 5p "$f" | sed 's/ - .*//; s/tsmctl-//g; s/,//g')
		while IFS=$'\t' read -r opt text; do
			takers=()
			for c in $cmds; do
				"$TSMCTL" --list-opts "$c" | grep -qx -- "$opt\( .*\)\?" && takers+=("$c")
			done
			if [ ${#takers[@]} -eq 0 ]; then
				echo "${f#"$TOP"/}: $opt: no command of the page takes it"
				bad=$((bad + 1))
			elif [ ${#takers[@]} -ne "$(wc -w <<< "$cmds")" ] &&
			     [[ "$text" != *"(*${takers[0]}* only"* ]]; then
				echo "${f#"$TOP"/}: $opt: only ${takers[*]} take it, and the page does not say so"
				bad=$((bad + 1))
			fi
		done < <(page_options "$f")
	done
	[ "$bad" -eq 0 ]
	# disconnect has no --wait (nothing to wait for: a connected device's TSM is there)
	run "$TSMCTL" disconnect --wait 5 41:00.0
	[ "$status" -eq 2 ]
	# and its own page, which lends it connect's options, says so
	grep -qz -- 'but for \*--wait\*, which\s*is \*connect\*'"'"'s only' "$TOP/man/tsmctl-disconnect.8.scd"
}

@test "the README's JSON contract names every key each view's schema has" {
	run python3 - "$TOP" <<-'PY'
	import json, re, sys
	top = sys.argv[1]
	text = open(top + "/README.md").read()
	contract = text.split("## JSON contract", 1)[1].split("### Schemas", 1)[0]
	bullets = {}
	for b in re.split(r"\n- ", "\n" + contract)[1:]:
	    bullets[re.match(r"`(\w+)`", b).group(1)] = b
	def keys(node, out):
	    if isinstance(node, dict):
	        for k, v in node.get("properties", {}).items():
	            out.add(k)
	            keys(v, out)
	        for v in node.get("$defs", {}).values():
	            keys(v, out)
	        for k in ("items", "additionalProperties"):
	            keys(node.get(k), out)
	        for k in ("oneOf", "anyOf", "allOf"):
	            for v in node.get(k, []):
	                keys(v, out)
	bad = 0
	for doc, schema in (("tsms", "list"), ("devices", "devices"), ("streams", "streams"),
	                    ("host_bridges", "host-bridges"), ("results", "results")):
	    found = set()
	    keys(json.load(open(f"{top}/schema/{schema}.schema.json")), found)
	    for k in sorted(found - {"schema_version", doc}):
	        if f"`{k}`" not in bullets[doc]:
	            print(f"README, JSON contract, {doc}: no `{k}`")
	            bad += 1
	sys.exit(bad != 0)
	PY
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "tsmctl(8) SEE ALSO names every other page" {
	local f page bad=0 seealso
	seealso=$(sed -n '/^# SEE ALSO/,$p' "$TOP/man/tsmctl.8.scd")
	for f in "$TOP"/man/tsmctl-*.8.scd; do
		page=$(basename "$f" .8.scd)
		if [[ "$seealso" != *"*$page*(8)"* ]]; then
			echo "tsmctl(8) SEE ALSO: no $page(8)"
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ]
}

@test "no test asserts with a bare '! CMD': bats' errexit ignores it, so it could never fail" {
	# "! grep -q x f" mid-test passes whatever grep finds; "if CMD; then false; fi" or "[ ! ... ]" fails
	run grep -nE '^[[:space:]]*! ' "$TOP"/tests/*.bats "$TOP"/tests/sim/test/*.bats "$TOP"/tests/kernel/*.bats
	printf '%s\n' "$output" | grep -v '||' | grep . && return 1
	true
}

@test "no test asserts with 'A && [ B ]': errexit ignores a false A, so only B could fail" {
	# "[ A ] && [ B ]" mid-test passes whenever A is false; one assertion per line fails on either
	local files=("$TOP"/tests/*.bats "$TOP"/tests/sim/test/*.bats "$TOP"/tests/kernel/*.bats)
	run grep -nE '^[[:space:]]*\[\[? .*\]\]? && \[\[? .*\]\]?[[:space:]]*$' "${files[@]}"
	printf '%s\n' "$output" | grep -v '||' | grep . && return 1
	run grep -nE '^[[:space:]]*[a-z_][a-z0-9_-]* [^[]*&& \[\[? .*\]\]?[[:space:]]*$' "${files[@]}"
	printf '%s\n' "$output" | grep -v '||' | grep -vE ':[[:space:]]*(if|while|until|elif|for|local) ' | grep . && return 1
	true
}
