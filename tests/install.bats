#!/usr/bin/env bats
# make install / uninstall into a DESTDIR: what lands, and nothing outside it.

load lib/helpers

@test "make install puts every file under DESTDIR, with paths substituted" {
	D=$(mktemp -d "$BATS_TEST_TMPDIR/dest.XXXXXX")
	marker=$BATS_TEST_TMPDIR/marker
	touch "$marker"
	run make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr
	[ "$status" -eq 0 ]
	run bash -c "cd '$D' && find . -type f | sort"
	expected="./etc/tsmctl/connect.conf
./usr/lib/systemd/system/tsmctl-audit.service
./usr/lib/systemd/system/tsmctl-audit.timer
./usr/lib/systemd/system/tsmctl-autoconnect.service
./usr/lib/systemd/system/tsmctl-metrics.service
./usr/lib/systemd/system/tsmctl-metrics.timer
./usr/lib/udev/rules.d/90-tsmctl.rules
./usr/libexec/tsmctl/tsmctl-autoconnect"
	while read -r f; do [[ "$output" == *"$f"* ]]; done <<< "$expected"
	[[ "$output" == *"./usr/sbin/tsmctl"* ]]
	[[ "$output" == *"./usr/sbin/tsmctl-collect"* ]]
	[[ "$output" == *"./usr/share/bash-completion/completions/tsmctl"* ]]
	[[ "$output" == *"./usr/share/zsh/site-functions/_tsmctl"* ]]
	for m in "$TOP"/man/*.scd; do
		p=$(basename "$m" .scd)
		[[ "$output" == *"./usr/share/man/man8/$p"* ]]
	done
	for s in "$TOP"/schema/*.schema.json; do
		cmp "$s" "$D/usr/share/tsmctl/schema/$(basename "$s")"
	done
	grep -q 'ExecStart=/usr/libexec/tsmctl/tsmctl-autoconnect' "$D/usr/lib/systemd/system/tsmctl-autoconnect.service"
	grep -qx 'ExecStart=/usr/sbin/tsmctl metrics -o ${TEXTFILE_DIR}/tsmctl.prom' "$D/usr/lib/systemd/system/tsmctl-metrics.service"
	if grep -rq '@BINDIR@\|@LIBEXECDIR@' "$D"; then false; fi
	"$D/usr/sbin/tsmctl" --version
	# nothing written outside DESTDIR (the build tree aside)
	run find /usr /etc -newer "$marker" -path '*tsmctl*'
	[ -z "$output" ]
}

@test "make install: the Ansible collection where Ansible looks, the Prometheus rules beside the schemas" {
	D=$(mktemp -d "$BATS_TEST_TMPDIR/dest.XXXXXX")
	make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr
	C=$D/usr/share/ansible/collections/ansible_collections/tsmctl/tsm
	# every file of contrib/ansible, 0644, nothing else (no bytecode)
	diff <(cd "$TOP/contrib/ansible" && find . -type f ! -path '*/__pycache__/*' | sort) <(cd "$C" && find . -type f | sort)
	[ -z "$(find "$C" -type f ! -perm 0644)" ]
	# ansible-core loads it from there (/usr/share/ansible/collections is its default path)
	if command -v ansible-doc >/dev/null; then
		# an empty config of our own (ansible-core refuses /dev/null: "Unsupported configuration file extension")
		: >"$BATS_TEST_TMPDIR/ansible.cfg"
		run env ANSIBLE_CONFIG="$BATS_TEST_TMPDIR/ansible.cfg" ANSIBLE_HOME="$BATS_TEST_TMPDIR/ah" \
			ANSIBLE_COLLECTIONS_PATH="$D/usr/share/ansible/collections" ansible-doc -l tsmctl.tsm
		[ "$status" -eq 0 ]
		[ "$(printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | tr '\n' ' ')" = "tsmctl.tsm.tsm_audit tsmctl.tsm.tsm_device tsmctl.tsm.tsm_facts " ]
	fi
	cmp "$TOP/contrib/prometheus/tsmctl.rules.yml" "$D/usr/share/tsmctl/prometheus/tsmctl.rules.yml"
	! command -v promtool >/dev/null || promtool check rules "$D/usr/share/tsmctl/prometheus/tsmctl.rules.yml"
	make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr
	[ ! -e "$D/usr/share/ansible/collections/ansible_collections/tsmctl" ]
	[ ! -e "$D/usr/share/tsmctl" ]
}

@test "make uninstall removes what install put there, keeps the edited config" {
	D=$(mktemp -d "$BATS_TEST_TMPDIR/dest.XXXXXX")
	make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr
	echo "all tsm0" >> "$D/etc/tsmctl/connect.conf"
	make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr
	run bash -c "cd '$D' && find . -type f"
	[ "$output" = "./etc/tsmctl/connect.conf" ]
}

@test "make uninstall removes an unedited connect.conf (the sample as shipped), and its directory" {
	D=$(mktemp -d "$BATS_TEST_TMPDIR/dest.XXXXXX")
	make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr
	cmp "$TOP/contrib/connect.conf" "$D/etc/tsmctl/connect.conf"
	make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr
	run bash -c "cd '$D' && find . -type f"
	[ -z "$output" ]
	[ ! -e "$D/etc/tsmctl" ]
	# a directory holding something else of the admin's stays
	make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr
	echo mine > "$D/etc/tsmctl/notes"
	make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr
	[ ! -e "$D/etc/tsmctl/connect.conf" ]
	[ "$(cat "$D/etc/tsmctl/notes")" = mine ]
}

@test "tsmctl-autoconnect applies connect.conf rules and rejects malformed lines" {
	ROOT=$(static_tree sev-tio)
	BIN=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	printf '#!/bin/sh\necho "$@" >> %s/calls\nexit 0\n' "$BIN" > "$BIN/tsmctl"
	chmod +x "$BIN/tsmctl"
	conf=$BATS_TEST_TMPDIR/connect.conf
	printf '# comment\n\n41:00.0 tsm0\nall tsm1\nbroken\n' > "$conf"
	run env TSMCTL="$BIN/tsmctl" "$TOP/contrib/tsmctl-autoconnect" "$conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"connect.conf:5: expected 'DEVICE TSM'"* ]]
	run cat "$BIN/calls"
	[ "${lines[0]}" = "connect 41:00.0 tsm0" ]
	[ "${lines[1]}" = "connect --all --keep-going tsm1" ]
	[ "${lines[2]}" = "audit --short" ]
}

@test "man pages build and lint clean" {
	run make -s -C "$TOP" check-man
	[ "$status" -eq 0 ]
	[[ "$output" == *"lint clean"* ]]
}

@test "plain make and make install only check for packages; demo, check and deps install them" {
	for goal in "" all tsmctl man sim unit install; do
		run make -n -B -C "$TOP" $goal DESTDIR="$BATS_TEST_TMPDIR/dest"
		[ "$status" -eq 0 ]
		[[ "$output" != *need-packages* ]] || {
			echo "make $goal would install packages: $output" | head -5; false; }
	done
	for goal in deps demo check bench soak; do
		run make -n -B -C "$TOP" $goal
		[[ "$output" == *"tests/lib/need-packages"* ]] || { echo "make $goal installs nothing"; false; }
	done
}

@test "a missing library is named, with the command that installs it" {
	run make -C "$TOP" need-libs PKGS=no-such-library-tsmctl
	[ "$status" -ne 0 ]
	[[ "$output" == *"development files of no-such-library-tsmctl not found"* ]]
	[[ "$output" == *"make deps"* ]]
	[[ "$output" == *"apt-get install"*libpci-dev* ]]
}
