#!/usr/bin/env python3
"""make soak: tsmctl under load and faults against the live simulator.

Two live mounts (tests/soak/host.json, a host with three host bridges and its
TSM and one bus in modules; tests/soak/guest.json, a guest with a devsec TSM)
and, for the duration, at once: connect/disconnect loops on overlapping device
sets, lock/accept/unlock/report loops on the guest, readers (streams, devices,
audit -J, metrics --output-file), a watch -J consumer, and a chaos loop that
removes and loads modules, drops streams and signals tsmctl mid-store.

The invariants are read from the tree, never from tsmctl, at quiescent points:
every store (tsmctl's and the chaos loop's) holds a shared gate, a check takes
it exclusively, so no store of ours is in flight while the tree is read. Only
then must the kernel's invariants hold: it updates the pool, the links and the
registers of one connect under pci_tsm_rwsem, but readers of
available_secure_streams and of config space do not take it, so a reader may
see half of a connect while one runs (on a kernel as on the simulator). A store
whose tsmctl was killed may still be running in the kernel; the check first
reads a tsm/connect (which takes the rwsem for read, so it waits for a store in
flight) before it reads anything else. Each operation is followed by such a
check (checks are coalesced: one covers every operation finished before it).

Exit 0 when no invariant was violated, 1 otherwise, 2 on usage errors. The
report goes to stdout; the operation log (JSON Lines) to WORKDIR/ops.jsonl.
"""

import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

HOST_DSMS = ["0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0",
             "0000:05:00.0", "0000:06:00.0", "0000:07:00.0",
             "0001:01:00.0", "0001:02:00.0", "10000:01:00.0", "10000:02:00.0"]
HOST_SLOW = ["0000:04:00.0", "10000:02:00.0"]
HOST_MODULES = ["soak_link_tsm", "soak_bus"]
GUEST_TDIS = ["0000:00:05.0", "0000:00:06.0", "0000:00:07.0", "0000:00:08.0",
              "0000:00:09.0", "0000:00:0a.0"]
GUEST_SLOW = ["0000:00:0a.0"]
POOLS = {"pci0000:00": 3, "pci0001:00": 1, "pci10000:00": 2}
# Overlapping device sets, one per connect/disconnect loop.
LOOP_SETS = [HOST_DSMS[0:5] + ["0001:01:00.0"],
             HOST_DSMS[3:9],
             ["0000:01:00.0", "0000:02:00.0", "0001:02:00.0", "10000:01:00.0",
              "10000:02:00.0"]]
BATCH_VERBS = ("connect", "disconnect", "lock", "accept", "unlock")
BATCH_RESULTS = ("ok", "already", "dry-run", "insecure", "failed", "skipped")
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
WATCH_INTERVAL = 0.1
# A connect --all of every device takes a minute on a 2-core machine at load 6
# (each sysfs access a FUSE round trip): only far beyond that is it a hang.
HANG_SECONDS = 300
# A scan of the host takes a few hundred ms on a loaded machine; watch scans within its
# interval plus a second whatever the uevents: a bound for watch to catch up, not a timing.
WATCH_CATCH_UP = 60
# The bound on waiting for a process to reach a point (watch's baseline, its end).
BOUND_SECONDS = 60


class Gate:
    """Stores share it; a check holds it alone (a readers-writer lock, writer-preferring)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.shared = 0
        self.exclusive = False
        self.waiting = 0

    def acquire_shared(self):
        with self.cond:
            while self.exclusive or self.waiting:
                self.cond.wait()
            self.shared += 1

    def release_shared(self):
        with self.cond:
            self.shared -= 1
            self.cond.notify_all()

    def acquire_exclusive(self):
        with self.cond:
            self.waiting += 1
            while self.exclusive or self.shared:
                self.cond.wait()
            self.waiting -= 1
            self.exclusive = True

    def release_exclusive(self):
        with self.cond:
            self.exclusive = False
            self.cond.notify_all()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def read_text(path):
    try:
        return read(path).decode().strip()
    except FileNotFoundError:
        return None


def le32(buf, off):
    return int.from_bytes(buf[off:off + 4], "little")


def sel_blocks(cfg):
    """[(offset, length)] of the Selective IDE blocks in config space (ABI.md §3)."""
    off = 0x100
    seen = 0
    while off and off + 4 <= len(cfg) and seen < 64:
        hdr = le32(cfg, off)
        if hdr & 0xffff == 0x30:
            break
        off = (hdr >> 20) & 0xffc
        seen += 1
    else:
        return []
    if not off:
        return []
    cap = le32(cfg, off + 4)
    nlink = ((cap >> 13) & 7) + 1 if cap & 1 else 0
    nsel = ((cap >> 16) & 0xff) + 1 if cap & 2 else 0
    p = off + 12 + 8 * nlink
    blocks = []
    for _ in range(nsel):
        if p + 20 > len(cfg):
            break
        na = le32(cfg, p) & 15
        blocks.append((p, 20 + 12 * na))
        p += 20 + 12 * na
    return blocks


class Soak:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.gate = Gate()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.violations = []
        self.ops = {}
        self.statuses = {}     # (kind, exit status) -> count
        self.faults = {}
        self.checks = 0
        self.op_seq = 0
        # operations finished, and how many of them a check has covered: any
        # operation that finishes after a check (they finish in any order) calls for one more
        self.done = 0
        self.checked = 0
        self.last_done = 0     # the id of the last operation finished, for the log
        self.check_wanted = threading.Condition(self.lock)
        self.claims = []       # (op id, start, bdf): "connected" claimed by an exit 0
        self.disconnect_ends = {}  # bdf or "*" -> when the last op that may disconnect it ended
        self.work = args.workdir
        self.log = open(os.path.join(self.work, "ops.jsonl"), "w")
        self.env = dict(os.environ)
        self.env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        self.env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        self.metrics_file = os.path.join(self.work, "metrics", "tsmctl.prom")
        os.makedirs(os.path.dirname(self.metrics_file), exist_ok=True)
        self.metrics_families = None
        self.watch = {"connected": set(), "streams": {}, "tsms": set(), "exhausted": set(),
                      "events": 0}
        self.watch_lock = threading.Lock()

    # --- bookkeeping -------------------------------------------------------

    def violation(self, what, op=None):
        with self.lock:
            self.violations.append({"what": what, "op": op})
        self.log_line({"violation": what, "op": op})
        print(f"soak: VIOLATION: {what}" + (f" (op {op})" if op is not None else ""),
              file=sys.stderr, flush=True)

    def log_line(self, obj):
        with self.lock:
            obj["t"] = round(time.monotonic() - self.t0, 3)
            self.log.write(json.dumps(obj) + "\n")
            self.log.flush()

    def count(self, table, key, n=1):
        with self.lock:
            table[key] = table.get(key, 0) + n

    def next_op(self):
        with self.lock:
            self.op_seq += 1
            return self.op_seq

    def op_done(self, seq):
        with self.lock:
            self.done += 1
            self.last_done = seq
            self.check_wanted.notify_all()

    # --- the mounts --------------------------------------------------------

    def mount(self, name):
        d = tempfile.mkdtemp(prefix=f"soak-{name}.", dir=self.work)
        subprocess.run([self.args.sim, "mount", os.path.join(HERE, f"{name}.json"), d],
                       check=True)
        return d

    def unmount(self, d):
        if subprocess.run(["fusermount3", "-u", d], stderr=subprocess.DEVNULL).returncode:
            subprocess.run(["fusermount3", "-uz", d], stderr=subprocess.DEVNULL)

    # --- running tsmctl ----------------------------------------------------

    def tsmctl(self, kind, root, argv, json_out=False, sig=None, sig_after=0.0, store=True,
               disconnects=()):
        """One tsmctl run as an operation: logged, its exit status and output checked."""
        seq = self.next_op()
        if store:
            self.gate.acquire_shared()
        start = time.monotonic()
        cmd = [self.args.tsmctl, "--sysroot", root] + argv
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=self.env)
            if sig is not None:
                # when the signal lands is random on purpose: every outcome is checked
                time.sleep(sig_after)
                try:
                    p.send_signal(sig)
                except ProcessLookupError:
                    pass
            try:
                out, err = p.communicate(timeout=HANG_SECONDS)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                self.violation(f"tsmctl hung ({HANG_SECONDS} s): {' '.join(argv)}", seq)
            rc = p.returncode
        finally:
            self.disconnected(disconnects)
            if store:
                self.gate.release_shared()
        self.count(self.ops, kind)
        self.count(self.statuses, (kind, rc))
        if sig is not None:
            self.count(self.faults, f"{signal.Signals(sig).name} sent to tsmctl {argv[0]}")
        entry = {"op": seq, "kind": kind, "argv": argv, "rc": rc,
                 "start": round(start - self.t0, 3), "took": round(time.monotonic() - start, 3)}
        if sig is not None:
            entry["signal"] = signal.Signals(sig).name
            entry["signal_after"] = round(sig_after, 3)
        self.log_line(entry)
        errtext = err.decode(errors="replace")
        if "Sanitizer" in errtext or "runtime error:" in errtext:
            self.violation(f"sanitizer report from {' '.join(argv)}: {errtext[:2000]}", seq)
        allowed = {0, 1, 2}
        if sig is not None:
            allowed |= {-sig, 128 + sig}
        if rc not in allowed:
            self.violation(f"exit status {rc} from {' '.join(argv)}"
                           f"{' (signal ' + signal.Signals(sig).name + ' sent)' if sig else ''}: "
                           f"{errtext[:500]}", seq)
        doc = None
        if json_out and rc in (0, 1) or (json_out and sig is not None and rc == 128 + sig):
            try:
                doc = json.loads(out) if out.strip() else None
                if doc is None and rc == 0:
                    self.violation(f"empty -J output with exit 0: {' '.join(argv)}", seq)
            except ValueError as e:
                self.violation(f"-J output does not parse ({e}): {' '.join(argv)}: "
                               f"{out[:300]!r}", seq)
        if doc is not None and argv[0] in BATCH_VERBS:
            self.check_batch(seq, argv, rc, doc, sig, errtext)
        if rc == 0 and doc and kind.startswith("connect"):
            for r in doc.get("results", []):
                if r.get("result") in ("ok", "already"):
                    with self.lock:
                        self.claims.append((seq, start, r["bdf"]))
        if store:
            self.op_done(seq)
        return rc, doc

    def disconnected(self, devices):
        """Something that may have disconnected DEVICES ("*": any) ends now."""
        with self.lock:
            for b in devices:
                self.disconnect_ends[b] = time.monotonic()

    def check_batch(self, seq, argv, rc, doc, sig, errtext):
        """Nothing half-done goes unreported: one result per device named, each
        a documented one, and the exit status their verdict. A command refused
        before any write (a device or the TSM gone) has no results, exit 1 and
        says why on stderr."""
        v = []
        res = doc.get("results")
        if not isinstance(res, list):
            self.violation(f"{' '.join(argv)}: -J without a results array", seq)
            return
        named = [a for a in argv[1:] if re.fullmatch(r"[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", a)]
        bdfs = [r.get("bdf") for r in res]
        if len(set(bdfs)) != len(bdfs):
            v.append(f"a device has two results: {bdfs}")
        refused = not res and rc == 1 and errtext.strip()
        if named and sorted(bdfs) != sorted(named) and not refused:
            v.append(f"results for {bdfs}, devices named {named}")
        for r in res:
            if r.get("action") != argv[0] or r.get("result") not in BATCH_RESULTS:
                v.append(f"result {r.get('bdf')}: action {r.get('action')!r} result {r.get('result')!r}")
        ok = all(r.get("result") in ("ok", "already") for r in res)
        if sig is None or rc in (0, 1):
            if (rc == 0) != ok and res:
                v.append(f"exit {rc} with results {[r.get('result') for r in res]}")
        for what in v:
            self.violation(f"{' '.join(argv)}: {what}", seq)

    # --- the tree and the invariants ---------------------------------------

    def host_bridges(self, root):
        found = {}
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, "sys/devices")):
            base = os.path.basename(dirpath)
            if re.fullmatch(r"pci[0-9a-f]{4,}:[0-9a-f]{2}", base):
                found[base] = dirpath
                dirnames[:] = []
            elif dirpath.count("/") - root.count("/") > 4:
                dirnames[:] = []
        return found

    def barrier(self):
        """Wait for a store in flight: reading tsm/connect or tsm/lock takes the rwsem for read."""
        for root, devs, attr in ((self.host, HOST_DSMS, "connect"), (self.guest, GUEST_TDIS, "lock")):
            for b in devs:
                if read_text(os.path.join(root, "sys/bus/pci/devices", b, "tsm", attr)) is not None:
                    break

    def snapshot(self):
        """The host's and the guest's state, read from the tree."""
        root = self.host
        devs = os.path.join(root, "sys/bus/pci/devices")
        s = {"connected": {}, "streams": {}, "avail": {}, "tsms": set(), "enabled": set(),
             "dsm": {}, "flags": {}}
        cls = os.path.join(root, "sys/class/tsm")
        if os.path.isdir(cls):
            s["tsms"] = set(os.listdir(cls))
        for b in sorted(os.listdir(devs)):
            d = os.path.join(devs, b)
            c = read_text(os.path.join(d, "tsm/connect"))
            if c:
                s["connected"][b] = c
            dsm = read_text(os.path.join(d, "tsm/dsm"))
            if dsm:
                s["dsm"][b] = dsm
            try:
                cfg = read(os.path.join(d, "config"))
            except OSError:
                continue
            for i, (off, _) in enumerate(sel_blocks(cfg)):
                ctl = le32(cfg, off + 4)
                if ctl & 1:
                    s["enabled"].add((b, i, ctl >> 24, le32(cfg, off + 8)))
        for hb, path in self.host_bridges(root).items():
            a = read_text(os.path.join(path, "available_secure_streams"))
            if a is not None:
                s["avail"][hb] = int(a)
            for name in os.listdir(path):
                m = re.fullmatch(r"stream(\d+)\.(\d+)\.(\d+)", name)
                if not m:
                    continue
                link = os.path.join(path, name)
                target = os.path.realpath(link)
                s["streams"][f"{hb}/{name}"] = (target, tuple(int(x) for x in m.groups()))
        return s

    def stream_state(self, target, rp_block, ep_block):
        """(ep ctl, ep sts, rp ctl, rp sts) of a stream's two Selective blocks, or None."""
        try:
            ep = read(os.path.join(target, "config"))
            rp = read(os.path.join(os.path.dirname(target), "config"))
        except OSError:
            return None
        eb, rb = sel_blocks(ep), sel_blocks(rp)
        if ep_block >= len(eb) or rp_block >= len(rb):
            return None
        return (le32(ep, eb[ep_block][0] + 4), le32(ep, eb[ep_block][0] + 8),
                le32(rp, rb[rp_block][0] + 4), le32(rp, rb[rp_block][0] + 8))

    def check_host(self, s):
        v = []
        for hb, avail in s["avail"].items():
            n = sum(1 for k in s["streams"] if k.startswith(hb + "/"))
            if avail + n != POOLS[hb]:
                v.append(f"{hb}: available_secure_streams {avail} + {n} stream links != pool {POOLS[hb]}")
        accounted = set()
        linked = {}
        for name, (target, (h, r, e)) in s["streams"].items():
            bdf = os.path.basename(target)
            hb = name.split("/")[0]
            if not os.path.isdir(target) or not os.path.exists(os.path.join(target, "config")):
                v.append(f"{name} does not resolve to a device ({target})")
                continue
            if os.path.basename(os.path.dirname(os.path.dirname(target))) != hb and \
                    hb not in target.split("/"):
                v.append(f"{name} resolves to {bdf}, not below {hb}")
            if bdf not in s["connected"]:
                v.append(f"{name} resolves to {bdf}, which is not connected")
            linked.setdefault(bdf, []).append(name)
            st = self.stream_state(target, r, e)
            if st is None:
                v.append(f"{name}: Selective blocks {r} (root port) / {e} (endpoint) missing")
                continue
            ectl, ests, rctl, rsts = st
            secure = ectl & rctl & 1 and ests & 0xf == 2 and rsts & 0xf == 2
            s["flags"][name] = (not secure, bool((ests | rsts) & 1 << 31))
            if not (ectl & 1 and rctl & 1) or ectl >> 24 != rctl >> 24:
                v.append(f"{name}: partners not both programmed and enabled with one Stream ID "
                         f"(endpoint ctl {ectl:#010x}, root port ctl {rctl:#010x})")
            accounted.add((bdf, e))
            accounted.add((os.path.basename(os.path.dirname(target)), r))
        for bdf in s["connected"]:
            if bdf not in linked:
                v.append(f"{bdf} is connected ({s['connected'][bdf]}) without its stream")
            elif len(linked[bdf]) > 1:
                v.append(f"{bdf} has {len(linked[bdf])} stream links: {linked[bdf]}")
        for b, dsm in s["dsm"].items():
            if dsm not in s["connected"]:
                v.append(f"{b}: tsm/dsm names {dsm}, which is not connected")
        for (b, i, sid, sts) in s["enabled"]:
            if (b, i) not in accounted:
                v.append(f"{b}: Selective block {i} enabled (Stream ID {sid}) with no stream link")
        # an exit 0 that said "connected": the device was connected when tsmctl
        # verified it, so it still is unless something that may disconnect it
        # was running after that op started (its verification came later)
        with self.lock:
            claims, self.claims = self.claims, []
            ends = dict(self.disconnect_ends)
        for seq, start, bdf in claims:
            if bdf in s["connected"]:
                continue
            if max(ends.get(bdf, -1), ends.get("*", -1)) > start:
                continue
            v.append(f"{bdf}: op {seq} exited 0 reporting it connected, but it is not and "
                     f"nothing has disconnected it since")
        return v

    def check_guest(self):
        v = []
        devs = os.path.join(self.guest, "sys/bus/pci/devices")
        state = {}
        for b in GUEST_TDIS:
            lock = read_text(os.path.join(devs, b, "tsm/lock"))
            acc = read_text(os.path.join(devs, b, "tsm/accept"))
            state[b] = (lock, acc)
            if lock not in ("", "tsm0"):
                v.append(f"guest {b}: tsm/lock reads {lock!r}")
            if acc == "1" and not lock:
                v.append(f"guest {b}: accepted (RUN) but not locked")
        rep = os.path.join(self.guest, "sys/kernel/config/tsm/report")
        left = os.listdir(rep) if os.path.isdir(rep) else []
        if left:
            v.append(f"configfs report entries left behind: {left}")
        return v, state

    def watch_agrees(self, s):
        """What watch's events add up to equals the tree (None), or the difference."""
        with self.watch_lock:
            w = self.watch
            diffs = []
            if w["connected"] != set(s["connected"]):
                diffs.append(f"connected: watch {sorted(w['connected'])}, tree {sorted(s['connected'])}")
            if set(w["streams"]) != set(s["streams"]):
                diffs.append(f"streams: watch {sorted(w['streams'])}, tree {sorted(s['streams'])}")
            # (insecure, IDE_FAIL) of each stream whose registers the check could read
            for name, flags in s["flags"].items():
                if name in w["streams"] and tuple(w["streams"][name]) != flags:
                    diffs.append(f"{name} (insecure, IDE_FAIL): watch {tuple(w['streams'][name])}, "
                                 f"tree {flags}")
            if w["tsms"] != s["tsms"]:
                diffs.append(f"tsms: watch {sorted(w['tsms'])}, tree {sorted(s['tsms'])}")
            ex = {hb for hb, a in s["avail"].items() if a == 0}
            # watch has no event for a host bridge that goes away (its module removed)
            w["exhausted"] &= set(s["avail"])
            if w["exhausted"] != ex:
                diffs.append(f"exhausted pools: watch {sorted(w['exhausted'])}, tree {sorted(ex)}")
            return "; ".join(diffs) or None

    def check(self):
        """One check at a quiescent point: every store of ours has returned."""
        self.gate.acquire_exclusive()
        try:
            with self.lock:
                covered, last = self.done, self.last_done
            # quiescent by the gate alone: a tsmctl killed with its store in the simulator
            # ends only once the store is answered (fuse's request_wait_answer()); the
            # barriers are a second guard, and the pause between them no timing a check needs
            self.barrier()
            time.sleep(0.02)
            self.barrier()
            s = self.snapshot()
            v = self.check_host(s)
            gv, _ = self.check_guest()
            v += gv
            # watch polls every WATCH_INTERVAL: it must reach this state while it lasts
            until = time.monotonic() + WATCH_CATCH_UP
            diff = self.watch_agrees(s)
            while diff and time.monotonic() < until and self.watch_proc.poll() is None:
                time.sleep(0.02)    # polling the condition, within WATCH_CATCH_UP
                diff = self.watch_agrees(s)
            if diff:
                v.append(f"watch -J did not report the transitions to this state within {WATCH_CATCH_UP} s: {diff}")
            with self.lock:
                self.checks += 1
                self.checked = covered
            for what in v:
                self.violation(what, last)
            self.log_line({"check": self.checks, "after_op": last, "ops_done": covered,
                           "connected": sorted(s["connected"]), "streams": sorted(s["streams"]),
                           "violations": len(v)})
        finally:
            self.gate.release_exclusive()

    def checker(self):
        while not self.stop.is_set():
            with self.lock:
                while self.done <= self.checked and not self.stop.is_set():
                    self.check_wanted.wait(0.2)
                if self.stop.is_set():
                    break
            self.check()

    # --- the tree digest (mount time vs. the end) -----------------------------

    # Files whose contents the loops can change; "state" digests read only these
    # (every directory's listing is always compared), "full" reads every file.
    STATE_FILES = {"config", "available_secure_streams", "connect", "dsm", "bound", "lock",
                   "accept", "authenticated", "enable", "iomem", "uevent"}

    def digest(self, root):
        out = {}
        full = self.args.digest == "full"
        stack = [os.path.join(root, "sys"), os.path.join(root, "proc")]
        while stack:
            d = stack.pop()
            try:
                entries = list(os.scandir(d))
            except OSError as e:
                out[os.path.relpath(d, root)] = ("error", e.errno)
                continue
            out[os.path.relpath(d, root)] = ("dir", sorted(e.name for e in entries))
            for e in entries:
                rel = os.path.relpath(e.path, root)
                if e.is_symlink():
                    out[rel] = ("link", os.readlink(e.path))
                elif e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif full or e.name in self.STATE_FILES:
                    try:
                        out[rel] = ("file", read(e.path))
                    except PermissionError:
                        pass
                    except OSError as err:
                        out[rel] = ("error", err.errno)
        return out

    def digests(self):
        """Both trees' digests, read at once (two simulators serve them)."""
        out = {}
        ts = [threading.Thread(target=lambda n=n, r=r: out.__setitem__(n, self.digest(r)))
              for n, r in (("host", self.host), ("guest", self.guest))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return out

    def digest_diff(self, before, after):
        """Differences, but a Selective block torn down reads 0 where enumeration stamped 255."""
        diffs = []
        for k in sorted(set(before) | set(after)):
            a, b = before.get(k), after.get(k)
            if a == b:
                continue
            if a and b and a[0] == b[0] == "file" and k.endswith("/config") and len(a[1]) == len(b[1]):
                blocks = sel_blocks(b[1])
                ok = True
                for i in range(len(a[1])):
                    if a[1][i] != b[1][i]:
                        inside = [o for o, n in blocks if o <= i < o + n]
                        if not inside or le32(b[1], inside[0] + 4) & 1:
                            ok = False
                            break
                if ok:
                    continue
            diffs.append(k)
        return diffs

    # --- the loops ---------------------------------------------------------

    def running(self):
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def connect_loop(self, n):
        rng = random.Random(f"{self.seed}-connect-{n}")
        devs = LOOP_SETS[n]
        while self.running():
            kg = ["--keep-going"] if rng.random() < 0.5 else []
            r = rng.random()
            if r < 0.15:
                self.tsmctl("connect --all", self.host, ["connect", "-J", "--all"] + kg + ["tsm0"],
                            json_out=True)
            elif r < 0.5:
                pick = rng.sample(devs, rng.choice([1, 1, 2, 3]))
                self.tsmctl("connect", self.host, ["connect", "-J"] + kg + pick + ["tsm0"],
                            json_out=True)
            elif r < 0.6:
                self.tsmctl("disconnect --all", self.host, ["disconnect", "-J", "--all"] + kg,
                            json_out=True, disconnects=["*"])
            else:
                pick = rng.sample(devs, rng.choice([1, 1, 2]))
                self.tsmctl("disconnect", self.host, ["disconnect", "-J"] + kg + pick,
                            json_out=True, disconnects=pick)
            time.sleep(rng.random() * 0.05)    # pacing, random on purpose: nothing waits on it

    def guest_loop(self, n):
        rng = random.Random(f"{self.seed}-guest-{n}")
        while self.running():
            kg = ["--keep-going"] if rng.random() < 0.5 else []
            r = rng.random()
            pick = rng.sample(GUEST_TDIS, rng.choice([1, 1, 2]))
            if r < 0.1:
                self.tsmctl("lock --all", self.guest, ["lock", "-J", "--all"] + kg + ["tsm0"],
                            json_out=True)
            elif r < 0.35:
                self.tsmctl("lock", self.guest, ["lock", "-J"] + kg + pick + ["tsm0"], json_out=True)
            elif r < 0.6:
                self.tsmctl("accept", self.guest, ["accept", "-J"] + kg + pick, json_out=True)
            elif r < 0.7:
                self.tsmctl("unlock --all", self.guest, ["unlock", "-J", "--all"] + kg, json_out=True)
            elif r < 0.9:
                self.tsmctl("unlock", self.guest, ["unlock", "-J"] + kg + pick, json_out=True)
            else:
                out = os.path.join(self.work, f"report-{n}.bin")
                sig = rng.choice([None, None, signal.SIGINT, signal.SIGTERM])
                self.tsmctl("report", self.guest,
                            ["report", "--nonce", "%064x" % rng.getrandbits(256), "--outblob", out],
                            sig=sig, sig_after=rng.random() * 0.5)
            time.sleep(rng.random() * 0.05)    # pacing, random on purpose

    def reader_loop(self, n):
        rng = random.Random(f"{self.seed}-reader-{n}")
        while self.running():
            r = rng.random()
            root = self.host if rng.random() < 0.75 else self.guest
            if r < 0.25:
                self.tsmctl("streams -J", root, ["streams", "-J"], json_out=True, store=False)
            elif r < 0.5:
                self.tsmctl("devices -J", root, ["devices", "-J"], json_out=True, store=False)
            elif r < 0.75:
                self.tsmctl("audit -J", root, ["audit", "-J"], json_out=True, store=False)
            else:
                self.tsmctl("metrics --output-file", self.host,
                            ["metrics", "--output-file", self.metrics_file], store=False)
            time.sleep(rng.random() * 0.2)    # pacing, random on purpose

    def metrics_reader(self):
        """The collector's view: the file is always a whole one."""
        while self.running():
            try:
                text = read(self.metrics_file).decode()
            except FileNotFoundError:
                time.sleep(0.01)    # until the first file is written
                continue
            fams = frozenset(re.findall(r"^# TYPE (\S+) ", text, re.M))
            self.count(self.ops, "metrics file read")
            if not text.endswith("\n") or not fams or \
                    (self.metrics_families is not None and fams != self.metrics_families):
                self.violation(f"metrics file incomplete ({len(text)} bytes, "
                               f"{len(fams)} families)")
            if self.metrics_families is None:
                self.metrics_families = fams
            time.sleep(0.02)    # pacing: each read checks a whole file

    def chaos_loop(self):
        rng = random.Random(f"{self.seed}-chaos")
        loaded = set(HOST_MODULES)
        while self.running():
            time.sleep(0.2 + rng.random() * 0.8)    # pacing, random on purpose
            if not self.running():
                break
            r = rng.random()
            if r < 0.3:
                mod = rng.choice(HOST_MODULES)
                argv = ["-r", mod] if mod in loaded else [mod]
                seq = self.next_op()
                self.gate.acquire_shared()
                try:
                    p = subprocess.run([self.args.sim, "modprobe", self.host] + argv,
                                       capture_output=True, text=True)
                finally:
                    if mod in loaded:
                        self.disconnected(["*"])
                    self.gate.release_shared()
                kind = f"modprobe {'-r ' if mod in loaded else ''}{mod}"
                self.count(self.faults, kind)
                self.log_line({"op": seq, "kind": kind, "rc": p.returncode})
                if p.returncode:
                    self.violation(f"tsm-sim {kind} failed: {p.stderr.strip()}", seq)
                loaded ^= {mod}
                self.op_done(seq)
            elif r < 0.5:
                s = self.connected_now()
                if s:
                    b = rng.choice(sorted(s))
                    what = rng.choice(["drop", "ide-fail"])
                    side = rng.choice(["rp", "ep", "both"])
                    self.control(f"{what} {b} {side}", what)
            else:
                sig = rng.choice(SIGNALS)
                # tsmctl's checks before its store take up to a second or so on a
                # loaded machine, the slow devices' store 200-300 ms
                after = rng.random() * 1.5
                if rng.random() < 0.5:
                    b = rng.choice(HOST_SLOW)
                    if rng.random() < 0.5:
                        self.tsmctl("connect (signalled)", self.host, ["connect", "-J", b, "tsm0"],
                                    json_out=True, sig=sig, sig_after=after)
                    else:
                        self.tsmctl("disconnect (signalled)", self.host, ["disconnect", "-J", b],
                                    json_out=True, sig=sig, sig_after=after, disconnects=[b])
                else:
                    b = GUEST_SLOW[0]
                    verb = rng.choice(["lock", "accept", "unlock"])
                    argv = [verb, "-J", b] + (["tsm0"] if verb == "lock" else [])
                    self.tsmctl(f"{verb} (signalled)", self.guest, argv, json_out=True,
                                sig=sig, sig_after=after)
        # everything back for the end
        for mod in HOST_MODULES:
            if mod not in loaded:
                p = subprocess.run([self.args.sim, "modprobe", self.host, mod],
                                   capture_output=True, text=True)
                if p.returncode:
                    self.violation(f"tsm-sim modprobe {mod} failed at the end: {p.stderr.strip()}")

    def connected_now(self):
        devs = os.path.join(self.host, "sys/bus/pci/devices")
        return {b for b in HOST_DSMS if read_text(os.path.join(devs, b, "tsm/connect"))}

    def control(self, cmd, kind):
        seq = self.next_op()
        self.gate.acquire_shared()
        try:
            fd = os.open(os.path.join(self.host, "tsm-sim-control"), os.O_WRONLY)
            try:
                os.write(fd, cmd.encode())
                rc = 0
            except OSError as e:
                rc = e.errno    # the device went away meanwhile: ENODEV/ENXIO
            finally:
                os.close(fd)
        finally:
            self.gate.release_shared()
        self.count(self.faults, kind)
        self.log_line({"op": seq, "kind": kind, "control": cmd, "errno": rc})
        self.op_done(seq)

    def watch_consumer(self):
        for line in self.watch_proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                self.violation(f"watch -J line does not parse: {line!r}")
                continue
            with self.watch_lock:
                w = self.watch
                w["events"] += 1
                e, o = ev.get("event"), ev.get("object")
                if e == "device-connected":
                    if o in w["connected"]:
                        self.violation(f"watch: {o} connected twice")
                    w["connected"].add(o)
                elif e == "device-disconnected":
                    if o not in w["connected"]:
                        self.violation(f"watch: {o} disconnected while not connected")
                    w["connected"].discard(o)
                elif e == "stream-added":
                    if o in w["streams"]:
                        self.violation(f"watch: {o} added twice")
                    w["streams"][o] = [False, False]
                elif e == "stream-removed":
                    if o not in w["streams"]:
                        self.violation(f"watch: {o} removed while not there")
                    w["streams"].pop(o, None)
                elif e in ("stream-insecure", "stream-secure") and o in w["streams"]:
                    w["streams"][o][0] = e == "stream-insecure"
                elif e in ("stream-ide-fail", "stream-ide-fail-cleared") and o in w["streams"]:
                    w["streams"][o][1] = e == "stream-ide-fail"
                elif e == "tsm-added":
                    w["tsms"].add(o)
                elif e == "tsm-removed":
                    w["tsms"].discard(o)
                elif e == "pool-exhausted":
                    w["exhausted"].add(o)
                elif e == "pool-available":
                    w["exhausted"].discard(o)
                elif e == "host-bridge-removed":
                    # its pool went with it: a scan after the whole removal says no pool-available
                    w["exhausted"].discard(o)
            self.log_line({"watch": ev})

    # --- the run -----------------------------------------------------------

    def cleanup(self):
        """Disconnect and unlock everything: the tree must be as it was at mount."""
        rc, _ = self.tsmctl("disconnect --all", self.host, ["disconnect", "-J", "--all", "--keep-going"],
                            json_out=True, disconnects=["*"])
        if rc:
            self.violation(f"final disconnect --all exited {rc}")
        rc, _ = self.tsmctl("unlock --all", self.guest, ["unlock", "-J", "--all", "--keep-going"],
                            json_out=True)
        if rc:
            self.violation(f"final unlock --all exited {rc}")

    def watch_baseline(self):
        """Until watch -v says its baseline is taken (its summary line on stderr)."""
        end = time.monotonic() + BOUND_SECONDS
        err = self.watch_proc.stderr
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([err], [], [], left)[0]:
                self.violation(f"watch took no baseline within {BOUND_SECONDS} s")
                return
            line = err.readline()
            if not line:
                self.violation("watch ended before its baseline")
                return
            if "checking every" in line:
                return

    def run(self):
        self.t0 = time.monotonic()
        self.host = self.mount("host")
        self.guest = self.mount("guest")
        try:
            before = self.digests()
            self.watch_proc = subprocess.Popen(
                [self.args.tsmctl, "--sysroot", self.host, "-v", "watch", "-J", "-i", str(WATCH_INTERVAL)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
            self.watch["tsms"] = {"tsm0"}
            # the baseline is taken before the first event can matter
            self.watch_baseline()
            self.deadline = time.monotonic() + self.args.seconds
            threads = [threading.Thread(target=self.watch_consumer, daemon=True)]
            loops = [threading.Thread(target=self.connect_loop, args=(i,)) for i in range(len(LOOP_SETS))]
            loops += [threading.Thread(target=self.guest_loop, args=(i,)) for i in range(2)]
            loops += [threading.Thread(target=self.reader_loop, args=(i,)) for i in range(2)]
            loops += [threading.Thread(target=self.metrics_reader),
                      threading.Thread(target=self.chaos_loop)]
            checker = threading.Thread(target=self.checker)
            for t in threads + loops + [checker]:
                t.start()
            for t in loops:
                t.join()
            left = [n for n in os.listdir(os.path.dirname(self.metrics_file)) if n.startswith(".")]
            if left:
                self.violation(f"metrics temporary files left behind: {left}")
            if os.path.exists(self.metrics_file):
                # the last file the loops wrote, through promtool and the client's parser
                lint = subprocess.run([os.path.join(TOP, "tests/lib/promtext-check"), self.metrics_file],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if lint.returncode != 0:
                    self.violation(f"metrics file rejected: {lint.stdout[:500]}")
            self.stop.set()
            checker.join()
            self.check()
            self.cleanup()
            self.check()
            self.watch_proc.send_signal(signal.SIGTERM)
            try:
                self.watch_proc.wait(timeout=BOUND_SECONDS)
            except subprocess.TimeoutExpired:
                self.watch_proc.kill()
                self.violation("watch did not end on SIGTERM")
            werr = self.watch_proc.stderr.read()
            if self.watch_proc.returncode != 0:
                self.violation(f"watch exited {self.watch_proc.returncode} on SIGTERM: {werr[:500]}")
            if "Sanitizer" in werr or "runtime error:" in werr:
                self.violation(f"sanitizer report from watch: {werr[:2000]}")
            after = self.digests()
            for name in ("host", "guest"):
                diff = self.digest_diff(before[name], after[name])
                if diff:
                    self.violation(f"{name}: the tree after cleanup differs from mount time: "
                                   f"{diff[:20]}")
        finally:
            self.stop.set()
            self.unmount(self.host)
            self.unmount(self.guest)
        self.report()
        return 1 if self.violations else 0

    def report(self):
        print(f"soak: {self.args.seconds:g} s, seed {self.seed}, {self.args.tsmctl}")
        print(f"operations ({sum(self.ops.values())}):")
        for k in sorted(self.ops):
            rcs = ", ".join(f"{rc}: {n}" for (kind, rc), n in sorted(self.statuses.items())
                            if kind == k)
            print(f"  {self.ops[k]:7d}  {k}" + (f" (exit {rcs})" if rcs else ""))
        print(f"faults injected ({sum(self.faults.values())}):")
        for k in sorted(self.faults):
            print(f"  {self.faults[k]:7d}  {k}")
        print(f"watch events: {self.watch['events']}")
        print(f"invariant checks: {self.checks} (each after the operations before it)")
        print(f"violations: {len(self.violations)}")
        for v in self.violations[:50]:
            print(f"  op {v['op']}: {v['what']}")
        if self.violations:
            print(f"operation log: {os.path.join(self.work, 'ops.jsonl')}")
            print(f"replay: make soak SOAK_SEED={self.seed} SOAK_SECONDS={self.args.seconds:g} "
                  f"SOAK_DIGEST={self.args.digest} TSMCTL={self.args.tsmctl}")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description="tsmctl soak against the live simulator")
    ap.add_argument("--tsmctl", default=os.path.join(TOP, "tsmctl"))
    ap.add_argument("--sim", default=os.path.join(TOP, "tests/sim/tsm-sim"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--digest", choices=["full", "state"], default="full",
                    help="compare every file at the end (full) or the state files only")
    ap.add_argument("--workdir", default=None, help="kept; default a temporary dir, removed when clean")
    args = ap.parse_args()
    if args.seconds <= 0:
        ap.error("--seconds must be positive")
    if os.geteuid() != 0:
        print("soak: needs root (FUSE allow_other, config space)", file=sys.stderr)
        return 2
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    keep = args.workdir is not None
    if keep:
        os.makedirs(args.workdir, exist_ok=True)
    else:
        args.workdir = tempfile.mkdtemp(prefix="tsmctl-soak.")
    args.tsmctl = os.path.abspath(args.tsmctl)
    rc = Soak(args).run()
    if rc == 0 and not keep:
        shutil.rmtree(args.workdir, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
