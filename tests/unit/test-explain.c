// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the failure wording (explain.h): an errno and a constructed
 * snapshot in, the exact advice out, for each verb's errnos and for report's
 * steps. The root is an empty temporary directory, so a device is present
 * only where a test makes its directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define BDF	"0000:01:00.0"

static int failures, checks;
static char root[] = "/tmp/test-explain.XXXXXX";

static void expect(const char *what, const char *got, const char *want)
{
	checks++;
	if (got && want && streq(got, want))
		return;
	if (!got && !want)
		return;
	failures++;
	fprintf(stderr, "FAIL %s\n  got:  %s\n  want: %s\n", what, got ? got : "(null)",
		want ? want : "(null)");
}

/* One function, 0000:01:00.0, and two TSMs: tsm0 a link TSM (no pci_mode), tsm1 devsec. */
static struct tsm tsm0 = { .name = "tsm0" };
static struct tsm tsm1 = { .name = "tsm1", .has_pci_mode = true, .mode = "devsec" };
static struct tsm *tsms[] = { &tsm0, &tsm1 };
static struct pci_func func;
static struct pci_func *funcs[] = { &func };
static struct tsm_snapshot snap = { .tsms = tsms, .nr_tsms = 2, .funcs = funcs, .nr_funcs = 1 };

/* A fresh function with tsm/connect (empty); TDISP adds tsm/lock (empty) and tsm/accept 0. */
static void reset_func(bool tdisp)
{
	func = (struct pci_func){ .bdf = BDF, .bus = 1, .has_connect = true, .connect = "" };
	if (tdisp) {
		func.has_lock = true;
		func.lock = "";
		func.has_accept = true;
		func.accept = "0";
	}
}

static void check(enum tsm_action action, int err, bool written, const char *tsm,
		  const char *want)
{
	struct action_plan plan = { .action = action, .bdf = BDF, .tsm = (char *)tsm,
				    .err = -err, .written = written };
	char *what = xasprintf("%s %s%s", action_name(action), errno_symbol(err),
			       written ? " (written)" : "");
	char *got = explain_action(&plan, &snap);

	expect(what, got, want);
	free(got);
	free(what);
}

static void device_present(bool present)
{
	char *dir = xasprintf("%s/sys/bus/pci/devices/" BDF, root);

	if (present) {
		char *cmd = xasprintf("mkdir -p '%s'", dir);

		if (system(cmd))
			exit(2);
		free(cmd);
	} else {
		rmdir(dir);
	}
	free(dir);
}

static void test_common(void)
{
	char *want;

	reset_func(false);
	/* under --sysroot: the tree is read-only, not /sys (the live wording needs root "/") */
	want = xasprintf("%s is on a read-only file system: tsm/connect cannot be written there",
			 root);
	check(ACTION_CONNECT, EROFS, false, "tsm0", want);
	free(want);
	/* refused before the store: the tree is no kernel's (action_apply() without --force) */
	{
		struct action_plan plan = { .action = ACTION_LOCK, .bdf = BDF, .tsm = "tsm1",
					    .err = -EROFS, .refused = true };
		char *got = explain_action(&plan, &snap);

		want = xasprintf("not written: %s is neither a kernel's sysfs (its sys/ is no sysfs "
				 "mount) nor a live tsm-sim mount, so no kernel would take the "
				 "store: tsm/lock there is a plain file (a copy or a capture?) and "
				 "writing it would show what no kernel did; --force writes it all "
				 "the same", root);
		expect("lock EROFS (refused)", got, want);
		free(got);
		free(want);
	}
	check(ACTION_CONNECT, EINTR, false, "tsm0", "interrupted before writing; nothing was changed");
	check(ACTION_CONNECT, EINTR, true, "tsm0",
	      "interrupted while the kernel waited for its TSM lock; tsm/connect now reads empty");
	check(ACTION_CONNECT, 0, true, "tsm0", "");
	if (geteuid())
		check(ACTION_DISCONNECT, EACCES, true, "tsm0",
		      "writing tsm/disconnect needs root (CAP_SYS_ADMIN): run tsmctl as root");
	else
		check(ACTION_DISCONNECT, EACCES, true, "tsm0",
		      "permission denied writing tsm/disconnect although running as root "
		      "(a security module, or a read-only /sys?)");
	check(ACTION_CONNECT, ENOENT, false, "tsm0", "the device is gone (removed or hot-unplugged)");
	device_present(true);
	/* tsm0 taken on for PCI (its pci_mode shown): the device is no DSM candidate */
	tsm0.has_pci_mode = true;
	tsm0.mode = "link";
	check(ACTION_CONNECT, ENOENT, false, "tsm0",
	      "has no tsm/connect: the kernel offers it only on function 0 of a PCIe endpoint, "
	      "switch upstream port or RCiEP with IDE or TEE-IO (see 'tsmctl devices --all')");
	/* tsm1 shows pci_mode and tsm0 not yet: registered, not ready (ABI.md §1.1) */
	tsm0.has_pci_mode = false;
	tsm0.mode = NULL;
	check(ACTION_CONNECT, ENOENT, false, "tsm0",
	      "tsm0 is registered but not ready yet: the kernel shows tsm/connect on the devices "
	      "once it has taken tsm0 on for PCI operations (and says so with a change uevent); "
	      "wait for that with 'tsmctl wait tsm0' or 'tsmctl connect --wait SECONDS'");
	/* no function shows tsm/lock, and a devsec TSM is registered */
	check(ACTION_LOCK, ENOENT, false, "tsm1",
	      "the devsec TSM tsm1 is registered, but no PCI function shows tsm/lock: the kernel "
	      "offers it only on PCIe functions with DEVCAP.TEE (see 'tsmctl devices --all')");
	device_present(false);
}

static void test_connect(void)
{
	reset_func(false);
	check(ACTION_CONNECT, ENXIO, false, "tsm9",
	      "there is no TSM named tsm9; registered: tsm0, tsm1 (devsec)");
	check(ACTION_CONNECT, ENXIO, false, "tsm1",
	      "tsm1 is a devsec TSM (pci_mode), which secures devices inside a guest "
	      "(lock/accept); connect needs a link TSM: tsm0");
	check(ACTION_CONNECT, ENXIO, false, "tsm0",
	      "tsm0 declined the device: it does not serve its host bridge, its probe failed "
	      "(no CMA/SPDM DOE mailbox? this kernel shows no doe_features), or the IDE stream "
	      "did not come up SECURE and was released; see the kernel log");
	func.doe_known = true;
	check(ACTION_CONNECT, ENXIO, false, "tsm0",
	      "has no DOE mailbox, so tsm0 cannot set up an SPDM session with it (no doe_features)");
	func.doe_known = false;
	check(ACTION_CONNECT, EINVAL, false, "tsm0",
	      "tsm0 rejected the request (with SEV-TIO: the PSP returned an error status); see "
	      "the kernel log");
	check(ACTION_CONNECT, ENODEV, false, "tsm0", "the device or tsm0 went away during the connect");
	check(ACTION_CONNECT, EIO, false, "tsm0", "tsm/connect exists but could not be read");
	/* a failed store the kernel saw says whether anything was left behind */
	check(ACTION_CONNECT, EIO, true, "tsm0",
	      "tsm0 failed the connect: Input/output error; see the kernel log; nothing is left "
	      "behind (tsm/connect reads empty, no stream)");
	check(ACTION_CONNECT, ENOMEM, false, "tsm0",
	      "tsm0 could not set up an IDE stream: no free Selective IDE register block in the "
	      "endpoint or in its root port, or the TSM itself ran out of stream resources (the "
	      "TDX module's, with TDX Connect); see the kernel log");
	check(ACTION_CONNECT, EBUSY, true, "tsm0",
	      "the kernel found the device busy, yet tsm/connect reads empty: tsm0 found no free "
	      "Stream ID for a new stream on its host bridge (all in use, or one is held by a "
	      "stream that was enabled at boot); disconnect another device there first; nothing "
	      "is left behind (tsm/connect reads empty, no stream)");
	func.connect = "tsm0";
	check(ACTION_CONNECT, EBUSY, false, "tsm0", "already connected to tsm0");
	/* attribute text from the tree never reaches the terminal raw */
	func.connect = "tsm\033[2J";
	check(ACTION_CONNECT, EBUSY, false, "tsm0",
	      "already connected to tsm\\x1b[2J; to move it to tsm0, first run 'tsmctl disconnect "
	      BDF "'");
}

/* EFAULT: TDX Connect's association rule or its SEAMCALL; SEV-TIO's mailbox rule (ABI.md §2.5, §2.6) */
static void test_connect_efault(void)
{
	struct ide_sel_stream block = { .cap = 0 };
	struct pci_func rp = { .bdf = "0000:00:01.0", .cfg_read = true };

	reset_func(false);
	rp.cfg.header_valid = true;
	rp.cfg.ide = (struct ide_cap){ .present = true, .nr_sel = 1, .sel = &block };
	tsm0.provider = "tdx_host";
	tsm0.provider_version = "2.0.08";
	check(ACTION_CONNECT, EFAULT, false, "tsm0",
	      "the TDX module refused (a SEAMCALL failed, which tsm0 reports as EFAULT): check that "
	      "TDX Connect is enabled in the firmware and the module supports it (tdx_host version "
	      "2.0.08), and the kernel log for the SEAMCALL's status code");
	/* a root port without association blocks: tdx_ide_stream_create() has nowhere to go */
	func.root_port = &rp;
	check(ACTION_CONNECT, EFAULT, false, "tsm0",
	      "tsm0 could not set up an IDE stream: its root port 0000:00:01.0 has no IDE "
	      "address-association blocks, and TDX Connect refuses a stream without one for the "
	      "prefetchable window (EFAULT)");
	/* the bridge above without a prefetchable window: the memory one is forced off */
	block.cap = 2;
	func.upstream = "0000:00:01.0";
	func.up_mem.valid = true;
	check(ACTION_CONNECT, EFAULT, false, "tsm0",
	      "tsm0 could not set up an IDE stream: the bridge above it (0000:00:01.0) has no "
	      "prefetchable memory window, and TDX Connect refuses a stream whose root port has no "
	      "address association left but that window (EFAULT): a device with non-prefetchable "
	      "BARs alone cannot be connected");
	func.up_pref.valid = true;
	check(ACTION_CONNECT, EFAULT, false, "tsm0",
	      "the TDX module refused (a SEAMCALL failed, which tsm0 reports as EFAULT): check that "
	      "TDX Connect is enabled in the firmware and the module supports it (tdx_host version "
	      "2.0.08), and the kernel log for the SEAMCALL's status code");
	tsm0.provider = NULL;
	tsm0.provider_version = NULL;
	/* SEV-TIO: secure SPDM must be on the CMA mailbox */
	reset_func(false);
	tsm0.driver = "ccp";
	{
		char *cma_only[] = { "0001:01" }, *both[] = { "0001:01", "0001:02" };

		func.doe_known = true;
		func.doe_features = cma_only;
		func.nr_doe_features = 1;
		check(ACTION_CONNECT, EFAULT, false, "tsm0",
		      "tsm0 needs secure SPDM on the CMA mailbox, and doe_features lacks 0001:02 "
		      "(SEV-TIO requires it)");
		/* both features, two mailboxes: doe_features cannot say which has which */
		func.doe_features = both;
		func.nr_doe_features = 2;
		func.cfg_read = true;
		func.cfg.header_valid = true;
		func.cfg.nr_doe = 2;
		check(ACTION_CONNECT, EFAULT, false, "tsm0",
		      "tsm0 needs secure SPDM on the DOE mailbox it uses for CMA, and the device has 2 "
		      "DOE mailboxes: secure SPDM (0001:02) is likely on another one (the kernel logs "
		      "\"CMA DOE MB must support SSESSION\"); otherwise the stream allocation failed, "
		      "see the kernel log");
		/* one mailbox with both: what remains is the stream allocation */
		func.cfg.nr_doe = 1;
		check(ACTION_CONNECT, EFAULT, false, "tsm0",
		      "tsm0 could not set up an IDE stream: no free Selective IDE register block in "
		      "the endpoint or in its root port, or the TSM itself ran out of stream resources "
		      "(the TDX module's, with TDX Connect); see the kernel log");
	}
	tsm0.driver = NULL;
	reset_func(false);
}

static void test_disconnect(void)
{
	reset_func(false);
	check(ACTION_DISCONNECT, ENXIO, false, NULL, "not connected to any TSM; nothing to disconnect");
	check(ACTION_DISCONNECT, ENXIO, true, "tsm0",
	      "not connected (any more: did another process disconnect it?)");
	func.connect = "tsm0";
	check(ACTION_DISCONNECT, EINVAL, false, "tsm9",
	      "connected to tsm0, not tsm9 (and there is no TSM of that name): run 'tsmctl "
	      "disconnect " BDF "' (the TSM may be left out)");
	check(ACTION_DISCONNECT, EBUSY, true, "tsm0",
	      "tsm0 failed the disconnect: Device or resource busy; see the kernel log");
}

static void test_lock(void)
{
	char *want;

	reset_func(true);
	check(ACTION_LOCK, EIO, false, "tsm1", "tsm/accept exists but could not be read");
	func.lock = NULL;
	check(ACTION_LOCK, EIO, false, "tsm1", "tsm/lock exists but could not be read");
	func.lock = "";
	check(ACTION_LOCK, ENXIO, false, "tsm0",
	      "tsm0 declined to lock the device (it does not serve its host bridge, or its lock "
	      "op failed); see the kernel log");
	check(ACTION_LOCK, EINVAL, false, "tsm1", "the kernel did not accept 'tsm1' as a TSM name");
	func.driver = "vfio-pci";
	want = xasprintf("driver vfio-pci is bound, and the kernel locks only a device without a "
			 "driver: unbind it first (echo " BDF " > %s/sys/bus/pci/drivers/vfio-pci/"
			 "unbind)", root);
	check(ACTION_LOCK, EBUSY, false, "tsm1", want);
	free(want);
	func.driver = NULL;
	func.lock = "tsm1";
	check(ACTION_LOCK, EBUSY, false, "tsm1", "already locked by tsm1");
}

static void test_accept(void)
{
	reset_func(true);
	check(ACTION_ACCEPT, EINVAL, false, NULL, "not locked: lock it first (tsmctl lock " BDF " tsm1)");
	check(ACTION_ACCEPT, EINVAL, true, NULL,
	      "not locked (any more: did another process unlock it?): lock it first (tsmctl lock "
	      BDF " tsm1)");
	func.lock = "tsm1";
	check(ACTION_ACCEPT, EBUSY, true, "tsm1", "tsm1 reported the device busy; see the kernel log");
	check(ACTION_ACCEPT, EIO, true, "tsm1",
	      "tsm1 failed the accept: Input/output error; see the kernel log");
}

static void test_unlock(void)
{
	char *want;

	reset_func(true);
	check(ACTION_UNLOCK, EINVAL, false, NULL, "not locked; nothing to unlock");
	func.lock = "tsm1";
	check(ACTION_UNLOCK, EINVAL, false, "tsm2",
	      "locked by tsm1, not tsm2: run 'tsmctl unlock " BDF "' (the TSM may be left out)");
	func.driver = "nvme";
	want = xasprintf("driver nvme is bound, and the kernel unlocks a device only without a "
			 "driver: unbind it first (echo " BDF " > %s/sys/bus/pci/drivers/nvme/unbind)",
			 root);
	check(ACTION_UNLOCK, EBUSY, false, "tsm1", want);
	free(want);
}

static void test_tsm_unfit(void)
{
	char *msg = explain_tsm_unfit(&snap, ACTION_LOCK, "tsm0");

	/* without pci_mode the kernel must tell whether tsm0 is devsec */
	expect("lock tsm0 unfit", msg, NULL);
	tsm0.has_pci_mode = true;
	tsm0.mode = "link";
	msg = explain_tsm_unfit(&snap, ACTION_LOCK, "tsm0");
	expect("lock tsm0 (link) unfit", msg,
	       "tsm0 is not a devsec TSM (pci_mode link): lock needs the guest's devsec TSM: tsm1");
	free(msg);
	tsm0.has_pci_mode = false;
	tsm0.mode = NULL;
}

/* The platform's stores (explain-platform.c, ABI.md §7): the kernel's errnos in words. */
static void test_platform(void)
{
	char *msg;

	msg = explain_extend("rtmr2:sha384", 48, -EINVAL);
	expect("extend EINVAL", msg, "the kernel refused the extend (EINVAL): it takes exactly 48 "
	       "bytes in one write at offset 0");
	free(msg);
	msg = explain_extend("rtmr2:sha384", 48, -EBUSY);
	expect("extend EBUSY", msg, "the TDX module was busy with the register (EBUSY): try again");
	free(msg);
	msg = explain_verify_mitigation(2, -EINVAL);
	expect("verify EINVAL", msg, "the SEV firmware could not verify mitigation 2 (EINVAL: a "
	       "failure status): AMD's security bulletin for it says what it needs, often a "
	       "firmware or microcode update; see dmesg (\"Verify Mitigation\")");
	free(msg);
	msg = explain_verify_mitigation(2, -EIO);
	expect("verify EIO", msg, "the SEV firmware's SNP_VERIFY_MITIGATION command failed (EIO): "
	       "see dmesg");
	free(msg);
}

/* Run F with stderr into a file; what it printed. */
static char *stderr_of(void (*f)(const struct report_request *, const struct report_result *, int),
		       const struct report_request *req, const struct report_result *res, int rc)
{
	char *path = xasprintf("%s/stderr", root), *text = NULL;
	FILE *saved = stderr, *out = fopen(path, "w+");
	size_t len = 0;

	if (!out)
		exit(2);
	stderr = out;
	f(req, res, rc);
	fflush(out);
	stderr = saved;
	rewind(out);
	if (getdelim(&text, &len, '\0', out) < 0) {
		free(text);	/* getdelim allocates even when there is nothing to read */
		text = xstrdup("");
	}
	fclose(out);
	unlink(path);
	free(path);
	return text;
}

static void report_rmdir(const struct report_request *req, const struct report_result *res, int rc)
{
	(void)req;
	(void)rc;
	explain_report_rmdir(res);
}

static void check_report(const char *what, const struct report_request *req,
			 const struct report_result *res, int rc, const char *want)
{
	char *got = stderr_of(explain_report, req, res, rc);

	expect(what, got, want);
	free(got);
}

static void test_report(void)
{
	struct report_request req = { .privlevel = 1 };
	struct report_result res = { .privlevel_floor = -1, .provider = "tdx_guest" };
	char *want, *got;

	res.step = REPORT_STEP_MKDIR;
	want = xasprintf("tsmctl report: creating a report entry in %s/" REPORT_GROUP " needs "
			 "root: run tsmctl as root (EACCES)\n", root);
	check_report("report mkdir EACCES", &req, &res, -EACCES, want);
	free(want);
	res.step = REPORT_STEP_UNSUPPORTED;
	res.attr = "auxblob";
	check_report("report unsupported auxblob", &req, &res, -ENOENT,
		     "tsmctl report: the tdx_guest provider has no auxblob attribute: it does not "
		     "take --auxblob; nothing was written\n");
	res.step = REPORT_STEP_WRITE;
	res.attr = "privlevel";
	res.privlevel_floor = 2;
	check_report("report write privlevel EINVAL", &req, &res, -EINVAL,
		     "tsmctl report: privlevel 1 is below this guest's privlevel_floor 2: the "
		     "provider cannot report for a more privileged level than its own; use "
		     "--privlevel 2-3 (EINVAL)\n");
	res.step = REPORT_STEP_READ_BLOB;
	res.attr = "outblob";
	check_report("report read EBUSY", &req, &res, -EBUSY,
		     "tsmctl report: reading outblob: the provider stayed busy through 4 retries "
		     "(another report or a TDX quote in flight?); try again later (EBUSY)\n");
	check_report("report read EINVAL", &req, &res, -EINVAL,
		     "tsmctl report: reading outblob: the provider refused the inputs (it needs "
		     "exactly 64 bytes of inblob) (EINVAL)\n");
	res.step = REPORT_STEP_RACE;
	res.attempts = 3;
	res.writes = 1;
	res.seen_generation = 7;
	check_report("report race", &req, &res, -EAGAIN,
		     "tsmctl report: another writer kept changing the report inputs: in each of 3 "
		     "fresh entries the generation moved past the 1 write made (last 7); find and "
		     "stop the other writer, then try again (EAGAIN)\n");
	res.step = REPORT_STEP_NONE;
	check_report("report none", &req, &res, -EINTR, "");
	res.entry = "tsmctl.42";
	res.rmdir_error = -EBUSY;
	got = stderr_of(report_rmdir, &req, &res, 0);
	want = xasprintf("tsmctl report: could not remove the report entry %s/" REPORT_GROUP
			 "/tsmctl.42: Device or resource busy; remove it with rmdir (EBUSY)\n", root);
	expect("report rmdir", got, want);
	free(got);
	free(want);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(root) || sysfs_init(root)) {
		perror("test-explain: root");
		return 2;
	}
	test_common();
	test_connect();
	test_connect_efault();
	test_disconnect();
	test_lock();
	test_accept();
	test_unlock();
	test_tsm_unfit();
	test_platform();
	test_report();
	sysfs_exit();
	cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd))
		failures++;
	free(cmd);
	printf("test-explain: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
