#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/evidence-scale.sh TSMCTL SIM RUNS: the bench's row for evidence at
# scale (make bench runs it). On a live mount of a host with 1,024 connected
# NICs that hand out evidence of two chains (tsm-sim gen-large --evidence:
# two roots, two intermediates), "audit -J" judging every device's evidence
# against a trust store of the two roots (chains, RootHash, algorithms, each
# device's measurement signature, report, binding) against "audit -J" on the
# same mount with no evidence to read, interleaved: median wall time, time
# per device, peak RSS, and the certificate verifications the run did
# (TSMCTL_DEBUG=evidence-stats). Prints a Markdown section.
set -eu
tsmctl=$1 sim=$2 runs=$3
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-evidence-scale.XXXXXX")
mnt=$work/mnt
devices=1024
mkdir "$mnt" "$work/trust"
# never remove what may still be mounted: rm would walk the simulator's tree
trap 'fusermount3 -u "$mnt" 2>/dev/null; mountpoint -q "$mnt" || rm -rf "$work"' EXIT

# the fewest functions that hold 1,024 streams on 64 host bridges
"$sim" gen-large --functions 2500 --host-bridges 64 --streams "$devices" --evidence "$work/host.json" >/dev/null
cp "$top/tests/sim/certs/ecdsa-p384.root.pem" "$top/tests/sim/certs/rsa-3072.root.pem" "$work/trust/"
"$sim" mount "$work/host.json" "$mnt"
socket=$(cat "$mnt/tsm-sim-evidence")
# audit sends no nonce and no reference is configured: those two risks are taken, all else proven
ev=(env TSMCTL_EVIDENCE_SOCKET="$socket" TSMCTL_DEBUG=evidence-stats "$tsmctl" --sysroot "$mnt"
    audit -J --trust "$work/trust" --allow-no-reference --allow-replay)
# the same audit with no evidence to read: the socket is not there, device.evidence is skip
none=(env TSMCTL_EVIDENCE_SOCKET="$work/no-socket" "$tsmctl" --sysroot "$mnt" audit -J)

# wall seconds, peak RSS KiB and CPU seconds of one run; its stdout to $1, stderr to $2
once() {
	local out=$1 err=$2 t0 t1 m u s
	shift 2
	t0=$EPOCHREALTIME
	/usr/bin/time -o "$work/time" -f '%M %U %S' "$@" >"$out" 2>"$err" || true	# audit exits 1 on a warning
	t1=$EPOCHREALTIME
	read -r m u s < <(tail -1 "$work/time")
	echo "$(echo "scale=4; ($t1 - $t0) / 1" | bc) $m $(echo "$u + $s" | bc)"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
evidence_status() {	# FILE → "pass 1024" lines of device.evidence
	jq -r '[.checks[] | select(.id == "device.evidence") | .status] | group_by(.) |
		map("\(.[0]) \(length)") | join(", ")' "$1"
}
ew="" er="" ec="" nw="" nr="" nc=""
for ((i = 0; i < runs; i++)); do
	read -r w r c < <(once "$work/ev.json" "$work/ev.err" "${ev[@]}")
	ew+="$w " er+="$r " ec+="$c "
	read -r w r c < <(once "$work/none.json" "$work/none.err" "${none[@]}")
	nw+="$w " nr+="$r " nc+="$c "
done
stats=$(sed -n 's/.*evidence: \([0-9]*\) chain paths verified, \([0-9]*\) reused; \([0-9]*\) certificate signatures verified, \([0-9]*\) reused.*/\1 \2 \3 \4/p' "$work/ev.err")
read -r paths path_hits sigs sig_hits <<< "${stats:-? ? ? ?}"
ev_status=$(evidence_status "$work/ev.json") none_status=$(evidence_status "$work/none.json")
ewm=$(echo "$ew" | median) nwm=$(echo "$nw" | median) ecm=$(echo "$ec" | median) ncm=$(echo "$nc" | median)
echo "## Evidence at scale (gen-large --functions 2500 --evidence: $devices connected NICs, two chains)"
echo
[ "$ev_status" = "pass $devices" ] ||
	{ echo "**FAILED: device.evidence with evidence was $ev_status, not pass $devices: the figures measure something else.**"; echo; }
echo "| command | wall s (median of $runs) | tsmctl's cpu s | peak RSS KiB | device.evidence |"
echo "| --- | ---: | ---: | ---: | --- |"
echo "| audit -J --trust DIR (every device's evidence judged) | $ewm | $ecm | $(echo "$er" | median) | $ev_status |"
echo "| audit -J, no evidence to read | $nwm | $ncm | $(echo "$nr" | median) | $none_status |"
echo
echo "- per device: $(echo "scale=2; 1000 * $ewm / $devices" | bc) ms with evidence, $(echo "scale=2; 1000 * $nwm / $devices" | bc) ms without; judging the evidence adds $(echo "scale=2; 1000 * ($ewm - $nwm) / $devices" | bc) ms a device (the live mount's reads included); in tsmctl's own CPU $(echo "scale=2; 1000 * ($ecm - $ncm) / $devices" | bc) ms a device"
echo "- certificate work in one run: $paths chain paths verified (X509_verify_cert), $path_hits reused; $sigs certificate signatures verified, $sig_hits reused; each of the $devices measurement signatures verified on its own"
echo
