#!/usr/bin/env bats
# Table output kept in tests/expected/ so that a format change shows up in review.
# Regenerate with tests/lib/update-expected and read the diff.

load lib/helpers

# tree draws in ASCII in the C locale (UTF-8 glyphs elsewhere): the golden files are ASCII
export LC_ALL=C

@test "tables match tests/expected/" {
	local fails=0 topo cmd name
	while IFS='|' read -r topo cmd; do
		case "$topo" in ''|'#'*) continue ;; esac
		ROOT=$(static_tree "$topo")
		name="$topo.$(echo "$cmd" | tr ' ,+' '__p')"
		# shellcheck disable=SC2086
		if ! diff -u "$TOP/tests/expected/$name.txt" <(t $cmd 2>/dev/null); then
			echo "differs: $topo: tsmctl $cmd"
			fails=$((fails + 1))
		fi
	done < "$TOP/tests/lib/expected-cases"
	[ "$fails" -eq 0 ]
}
