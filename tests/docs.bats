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
