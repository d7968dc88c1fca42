// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for audit's checks (src/audit-checks.c) on snapshots built in
 * memory: no sysfs, no simulator. Each case starts from one healthy host (a
 * link TSM, a host bridge with a pool, a root port and a connected endpoint
 * with one SECURE stream), breaks one thing and asserts the status of the
 * checks that must notice it, and of those that must not.
 * Prints one line per failed check and "N passed, N failed"; exits non-zero
 * if anything failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/audit.h"
#include "tsmctl/snapshot.h"
#include "unit.h"

/* One healthy host; every case gets a fresh copy from host_init(). */
struct host {
	struct tsm_snapshot snap;
	struct tsm tsm;
	struct host_bridge hb;
	struct pci_func rp, ep;
	struct tsm tsm1;		/* a second link TSM, registered by cases that want one */
	struct ide_stream stream, stray;	/* the stray: a second link, added by cases */
	struct ide_sel_stream rp_block, ep_block;
	struct tsm *tsms[2];
	struct host_bridge *hbs[1];
	struct pci_func *funcs[2];
	struct ide_stream *streams[2];
	struct tsm *hb_tsms[2];
	char *doe[2];
	char *hb_links[1];
};

/* A decoded Selective block 0, SECURE and enabled, Stream ID 0, whose RID association is LO..HI. */
static void block_init(struct ide_sel_stream *b, unsigned int lo, unsigned int hi)
{
	*b = (struct ide_sel_stream){
		.decoded = true,
		.regs = { .enabled = true, .state = IDE_STATE_SECURE, .stream_id = 0 },
		.rid_valid = true, .rid_base = (uint16_t)lo, .rid_limit = (uint16_t)hi,
	};
}

/* Config space decoded: PCIe TYPE with IDE and one Selective block B. */
static void cfg_init(struct pci_func *f, int type, struct ide_sel_stream *b)
{
	f->cfg_read = true;
	f->cfg.header_valid = true;
	f->cfg.pcie_type = type;
	f->cfg.ide = (struct ide_cap){
		.present = true, .selective_ide = true, .sel_streams = 1, .nr_sel = 1, .sel = b,
	};
	f->ids_known = true;
}

static void host_init(struct host *h)
{
	memset(h, 0, sizeof(*h));
	h->tsm = (struct tsm){ .name = "tsm0", .provider = "0000:00:18.0", .connected_devices = 1,
			       .nr_streams = 1 };
	h->hb = (struct host_bridge){ .name = "pci0000:40", .dir = "sys/devices/pci0000:40",
				      .domain = 0, .bus = 0x40, .available_streams = 3,
				      .streams = h->streams, .nr_streams = 1,
				      .tsms = h->hb_tsms, .nr_tsms = 1 };
	h->hb_tsms[0] = &h->tsm;

	h->rp = (struct pci_func){ .bdf = "0000:40:01.0", .bus = 0x40, .dev = 1, .hb = &h->hb,
				   .dir = "sys/devices/pci0000:40/0000:40:01.0" };
	block_init(&h->rp_block, 0x4100, 0x4100);	/* the endpoint's RID */
	cfg_init(&h->rp, PCIE_TYPE_ROOT_PORT, &h->rp_block);

	h->doe[0] = DOE_FEATURE_CMA;
	h->ep = (struct pci_func){
		.bdf = "0000:41:00.0", .bus = 0x41, .hb = &h->hb, .root_port = &h->rp,
		.dir = "sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0",
		.tsm_dir = true, .listed = true,
		.connect = "tsm0", .has_connect = true, .connected_tsm = &h->tsm,
		.dsm = "0000:41:00.0", .has_dsm = true,
		.authenticated = "tsm0", .has_authenticated = true,
		.doe_features = h->doe, .nr_doe_features = 1, .doe_known = true,
	};
	h->ep.dsm_func = &h->ep;
	block_init(&h->ep_block, 0x4008, 0x4008);	/* the root port's RID */
	cfg_init(&h->ep, PCIE_TYPE_ENDPOINT, &h->ep_block);
	h->ep.cfg.tee_io = true;

	h->stream = (struct ide_stream){
		.name = "stream0.0.0", .hb = &h->hb, .target = h->ep.dir,
		.endpoint = &h->ep, .root_port = &h->rp, .tsm = &h->tsm,
	};
	h->tsm1 = (struct tsm){ .name = "tsm1", .id = 1, .provider = "second_tsm" };

	h->tsms[0] = &h->tsm;
	h->hbs[0] = &h->hb;
	h->funcs[0] = &h->rp;
	h->funcs[1] = &h->ep;
	h->streams[0] = &h->stream;
	h->snap = (struct tsm_snapshot){
		.have_tsm_class = true,
		.tsms = h->tsms, .nr_tsms = 1,
		.hbs = h->hbs, .nr_hbs = 1,
		.funcs = h->funcs, .nr_funcs = 2,
		.streams = h->streams, .nr_streams = 1,
	};
}

/* What a streamed run handed out, in order, to compare with the kept report. */
struct streamed {
	const struct audit_report *kept;
	size_t n;
	bool differs;
};

static void collect(const struct audit_finding *f, void *arg)
{
	struct streamed *st = arg;
	const struct audit_finding *k = st->n < st->kept->n ? &st->kept->findings[st->n] : NULL;

	if (!k || k->check != f->check || strcmp(k->object, f->object) ||
	    k->status != f->status || strcmp(k->message, f->message) || k->needs_root != f->needs_root)
		st->differs = true;
	st->n++;
}

/*
 * Audit H into REP, then once more streamed (as -J does): the streamed run must
 * hand out the same results in the same order, parents' verdicts included,
 * and keep none of them.
 */
/* device.evidence's judge (the command's I/O in tsmctl): what EVIDENCE says, for every device. */
struct verdict {
	enum audit_status status;
	const char *message;
	unsigned int calls;
};

static struct verdict evidence = { AUDIT_PASS, "cert0 verified against the trust store", 0 };
static char *const *require_verified;
static size_t nr_require_verified;
static char *const *require_connected;
static size_t nr_require_connected;
static const bool *require_absent;
static const bool *require_verified_absent;

static enum audit_status judge(const struct pci_func *f, void *arg, char **message, char **hint)
{
	struct verdict *v = arg;

	(void)f;
	v->calls++;
	*message = strdup(v->message);
	*hint = v->status == AUDIT_PASS ? NULL : strdup("see tsmctl evidence --verify");
	return v->status;
}

static void run(const struct host *h, bool strict, struct audit_report *rep)
{
	const struct audit_opts opts = {
		.strict = strict, .evidence = judge, .evidence_arg = &evidence,
		.require_verified = require_verified, .nr_require_verified = nr_require_verified,
		.require = require_connected, .nr_require = nr_require_connected,
		.require_absent = require_absent, .require_verified_absent = require_verified_absent,
	};
	struct streamed st = { .kept = rep };
	struct audit_opts sopts = opts;
	struct audit_report srep;

	sopts.emit = collect;
	sopts.emit_arg = &st;

	audit_run(&h->snap, &opts, rep);
	audit_run(&h->snap, &sopts, &srep);
	if (st.differs || st.n != rep->n || srep.n) {
		failed++;
		printf("FAIL: streamed run differs: %zu results (%zu kept), %zu left after it%s\n",
		       st.n, rep->n, srep.n, st.differs ? ", some differ" : "");
	} else {
		passed++;
	}
	audit_report_free(&srep);
}

static const struct audit_finding *finding(const struct audit_report *rep, const char *id,
					   const char *object)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->findings[i].check->id, id) &&
		    !strcmp(rep->findings[i].object, object))
			return &rep->findings[i];
	return NULL;
}

static void expect_at(const struct audit_report *rep, const char *id, const char *object,
		      enum audit_status want, const char *message_part, const char *what, int line)
{
	const struct audit_finding *f = finding(rep, id, object);

	if (f && f->status == want && (!message_part || strstr(f->message, message_part))) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL line %d (%s): %s %s: want %s%s%s, got %s (%s)\n", line, what, id, object,
	       audit_status_name(want), message_part ? " with " : "",
	       message_part ? message_part : "", f ? audit_status_name(f->status) : "no result",
	       f ? f->message : "-");
}

#define EXPECT(rep, id, object, st, part) expect_at(rep, id, object, st, part, __func__, __LINE__)

#define EP	"0000:41:00.0"
#define STREAM	"pci0000:40/stream0.0.0"

/* Every result of the healthy host passes. */
static void healthy(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	run(&h, true, &rep);
	for (size_t i = 0; i < rep.n; i++)
		EXPECT(&rep, rep.findings[i].check->id, rep.findings[i].object, AUDIT_PASS, NULL);
	EXPECT(&rep, "device.connected", EP, AUDIT_PASS, "connected to tsm0");
	EXPECT(&rep, "stream.link", STREAM, AUDIT_PASS, "-> " EP " via 0000:40:01.0");
	EXPECT(&rep, "stream.secure", STREAM, AUDIT_PASS, "both partners SECURE");
	EXPECT(&rep, "stream.ide-fail", STREAM, AUDIT_PASS, NULL);
	EXPECT(&rep, "hostbridge.pool", "pci0000:40", AUDIT_PASS, "3 available, 1 in use");
	audit_report_free(&rep);
}

/* The root port partner INSECURE: stream.secure fails for it alone. */
static void insecure_partner(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.rp_block.regs.state = IDE_STATE_INSECURE;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.secure", STREAM, AUDIT_FAIL, "root port 0000:40:01.0 block 0");
	EXPECT(&rep, "stream.enabled", STREAM, AUDIT_PASS, NULL);
	EXPECT(&rep, "stream.ide-fail", STREAM, AUDIT_PASS, NULL);
	audit_report_free(&rep);
}

/*
 * The devsec sample's rig: its emulated root port is never enabled (the sample
 * enables the endpoint alone), so the root port's side is a skip with the
 * reason; the endpoint's side is still judged, and any other port still fails.
 */
static void devsec_sample_rig(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.hb.name = "pci10000:00";
	h.hb.dir = "sys/devices/faux/devsec_bus/pci10000:00";
	h.rp.dir = "sys/devices/faux/devsec_bus/pci10000:00/10000:00:00.0";
	h.rp.cfg.vendor_id = 0x8086;
	h.rp.cfg.device_id = 0xffff;
	h.rp_block.regs.enabled = false;
	h.rp_block.regs.state = IDE_STATE_INSECURE;
	h.rp_block.regs.ctl = 0x00800000;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.enabled", "pci10000:00/stream0.0.0", AUDIT_SKIP,
	       "the devsec sample's emulated root port only stores register writes");
	EXPECT(&rep, "stream.secure", "pci10000:00/stream0.0.0", AUDIT_SKIP,
	       "root port 0000:40:01.0 block 0 INSECURE");
	audit_report_free(&rep);
	/* the endpoint's own side still fails */
	h.ep_block.regs.state = IDE_STATE_INSECURE;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.secure", "pci10000:00/stream0.0.0", AUDIT_FAIL, "endpoint 0000:41:00.0");
	EXPECT(&rep, "stream.enabled", "pci10000:00/stream0.0.0", AUDIT_SKIP, NULL);
	audit_report_free(&rep);
	/* another port of that bus (not the sample's ids) is held to the rule */
	h.ep_block.regs.state = IDE_STATE_SECURE;
	h.rp.cfg.device_id = 0x1234;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.enabled", "pci10000:00/stream0.0.0", AUDIT_FAIL, "root port");
	audit_report_free(&rep);
}

/* The endpoint received an IDE Fail message. */
static void ide_fail(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.ep_block.regs.ide_fail = true;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.ide-fail", STREAM, AUDIT_FAIL, "endpoint " EP " block 0 received");
	EXPECT(&rep, "stream.secure", STREAM, AUDIT_PASS, NULL);
	audit_report_free(&rep);
}

/* A link whose target is gone: stream.link fails, the checks below it skip. */
static void dangling_stream(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.stream.dangling = true;
	h.stream.link_err = -ENOENT;	/* as the scan finds it */
	h.stream.endpoint = NULL;
	h.stream.root_port = NULL;
	run(&h, false, &rep);
	EXPECT(&rep, "stream.link", STREAM, AUDIT_FAIL, "target " EP " does not exist");
	EXPECT(&rep, "stream.connected", STREAM, AUDIT_SKIP, "parent check stream.link failed");
	EXPECT(&rep, "stream.secure", STREAM, AUDIT_SKIP, "parent check stream.link failed");
	/* the endpoint now has no stream link */
	EXPECT(&rep, "device.has-stream", EP, AUDIT_WARN, NULL);
	audit_report_free(&rep);
}

/* No stream left in the pool: a warning, a failure with --strict. */
static void exhausted_pool(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.hb.available_streams = 0;
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.pool", "pci0000:40", AUDIT_WARN, "pool exhausted");
	audit_report_free(&rep);
	run(&h, true, &rep);
	EXPECT(&rep, "hostbridge.pool", "pci0000:40", AUDIT_FAIL, "pool exhausted");
	audit_report_free(&rep);
}

/* A device locked to a devsec TSM has no link connect: device.connected is skip, not warn. */
static void locked_device(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.ep.connect = "";
	h.ep.connected_tsm = NULL;
	h.ep.dsm = "";
	h.ep.dsm_func = NULL;
	h.ep.authenticated = "";
	h.ep.lock = "tsm0";
	h.ep.has_lock = true;
	h.ep.accept = "0";
	h.ep.has_accept = true;
	h.snap.nr_streams = 0;
	h.hb.nr_streams = 0;
	run(&h, true, &rep);
	EXPECT(&rep, "device.connected", EP, AUDIT_SKIP, "locked to tsm0 (TDISP");
	audit_report_free(&rep);
}

/* Config space limited to the header: needs-root up front, the stream checks skip, none fails. */
static void needs_root(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.rp.needs_root = true;
	run(&h, false, &rep);
	EXPECT(&rep, "platform.config-access", "platform", AUDIT_NEEDS_ROOT, "0000:40:01.0");
	EXPECT(&rep, "stream.secure", STREAM, AUDIT_SKIP, "(needs root");
	for (size_t i = 0; i < rep.n; i++)
		if (rep.findings[i].status == AUDIT_FAIL)
			EXPECT(&rep, rep.findings[i].check->id, rep.findings[i].object,
			       AUDIT_SKIP, NULL);
	audit_report_free(&rep);
}

/* A second link STRAY on the host bridge naming the stream's blocks, H 9, as a hand edit makes it. */
static void add_stray(struct host *h)
{
	h->stray = h->stream;
	h->stray.name = "stream9.0.0";
	h->stray.h = 9;
	h->streams[1] = &h->stray;
	h->hb.nr_streams = 2;
	h->snap.nr_streams = 2;
	snapshot_mark_duplicates(&h->snap);
}

/*
 * A stray duplicate link never silences the stream's own checks: the
 * stream keeps stream.link and its IDE_FAIL failure, the stray fails
 * stream.link naming it, and its children skip.
 */
static void duplicate_link(void)
{
	struct audit_report rep;
	struct host h;
	size_t fails = 0;

	host_init(&h);
	h.ep_block.regs.ide_fail = true;
	add_stray(&h);
	if (h.stray.dup_of == &h.stream && !h.stream.dup_of)
		passed++;
	else
		failed++, printf("FAIL duplicate_link: the lower H with the same claim is not the stream\n");
	run(&h, false, &rep);
	EXPECT(&rep, "stream.link", STREAM, AUDIT_PASS, NULL);
	EXPECT(&rep, "stream.ide-fail", STREAM, AUDIT_FAIL, "endpoint " EP " block 0 received");
	EXPECT(&rep, "stream.link", "pci0000:40/stream9.0.0", AUDIT_FAIL,
	       "stray link: root port 0000:40:01.0 block 0 and endpoint " EP " block 0 belong to stream0.0.0");
	EXPECT(&rep, "stream.ide-fail", "pci0000:40/stream9.0.0", AUDIT_SKIP, "parent check stream.link");
	EXPECT(&rep, "device.has-stream", EP, AUDIT_PASS, "1 stream link");
	for (size_t i = 0; i < rep.n; i++)
		fails += !strcmp(rep.findings[i].check->id, "stream.ide-fail") &&
			 rep.findings[i].status == AUDIT_FAIL;
	if (fails == 1)
		passed++;
	else
		failed++, printf("FAIL duplicate_link: %zu stream.ide-fail failures, want 1\n", fails);
	audit_report_free(&rep);
}

/* The stronger claim wins whatever its H: a stray without an endpoint block loses to a higher H. */
static void duplicate_claims(void)
{
	struct pci_func other;
	struct host h;

	host_init(&h);
	h.stream.h = 5;
	other = h.ep;
	other.bdf = "0000:42:00.0";
	other.cfg.ide.nr_sel = 0;	/* no Selective block E: no registers of its own */
	h.stray = h.stream;
	h.stray.name = "stream2.0.0";
	h.stray.h = 2;
	h.stray.endpoint = &other;
	h.streams[0] = &h.stray;
	h.streams[1] = &h.stream;
	h.hb.nr_streams = 2;
	h.snap.nr_streams = 2;
	snapshot_mark_duplicates(&h.snap);
	if (h.stray.dup_of == &h.stream && !h.stream.dup_of)
		passed++;
	else
		failed++, printf("FAIL duplicate_claims: the block's owner lost to a lower H\n");
}

/*
 * tsmN/pciDDDD:BB with the proposed ABI: expected only from providers that
 * register their streams with the TSM; the staging kernel's one link per host
 * bridge stands for a second TSM's streams.
 */
static void tsm_links(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.tsm.has_pci_mode = true;
	h.tsm.mode = "link";
	h.tsm.provider = "devsec_link_tsm";	/* registers its streams: the link is missing */
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.tsm-link", "pci0000:40", AUDIT_FAIL,
	       "tsm0 has stream0.0.0 here but no tsm0/pci0000:40 link");
	audit_report_free(&rep);

	h.tsm.provider = "0000:00:18.0";
	h.tsm.driver = "ccp";			/* SEV-TIO never makes one */
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.tsm-link", "pci0000:40", AUDIT_PASS, "no tsm0/pci0000:40 link expected");
	audit_report_free(&rep);

	h.tsm.driver = NULL;
	h.tsm.provider = "some_tsm";		/* unknown, and no link anywhere: not judged */
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.tsm-link", "pci0000:40", AUDIT_SKIP, "not known to make one");
	audit_report_free(&rep);

	/* staging: tsm1's stream here, the one link tsm0's (keyed by host bridge) */
	host_init(&h);
	h.tsm.has_pci_mode = h.tsm1.has_pci_mode = true;
	h.tsm.mode = h.tsm1.mode = "link";
	h.tsm.provider = "devsec_link_tsm";
	h.tsm1.provider = "tdx_host";
	h.hb_links[0] = "pci0000:40";
	h.tsm.hb_links = h.hb_links;
	h.tsm.nr_hb_links = 1;
	h.tsms[1] = &h.tsm1;
	h.snap.nr_tsms = 2;
	add_stray(&h);
	h.stray.dup_of = NULL;			/* a stream of its own, to tsm1 */
	h.stray.tsm = &h.tsm1;
	h.stray.name = "stream1.1.1";
	h.stray.h = h.stray.r = h.stray.e = 1;
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.tsm-link", "pci0000:40", AUDIT_PASS,
	       "tsm1's streams under tsm0/pci0000:40");
	audit_report_free(&rep);
	/* tsm0's own stream gone, its link stays for tsm1's */
	h.streams[0] = &h.stray;
	h.hb.nr_streams = 1;
	h.snap.nr_streams = 1;
	run(&h, false, &rep);
	EXPECT(&rep, "hostbridge.tsm-link", "pci0000:40", AUDIT_PASS,
	       "tsm0/pci0000:40 stays for tsm1's streams");
	audit_report_free(&rep);
}

/* Connectability, judged once: the hint never says connect when the connect must fail. */
static void connect_blockers(void)
{
	struct audit_report rep;
	struct host h;
	char *why;

	host_init(&h);
	h.ep.connect = "";
	h.ep.connected_tsm = NULL;
	h.ep.dsm = "";
	h.snap.nr_streams = 0;
	h.hb.nr_streams = 0;
	h.tsm.driver = "ccp";			/* SEV-TIO: CMA alone is not enough */
	run(&h, false, &rep);
	EXPECT(&rep, "device.connected", EP, AUDIT_SKIP, "lacks secure SPDM");
	audit_report_free(&rep);
	h.doe[1] = DOE_FEATURE_SSESSION;
	h.ep.nr_doe_features = 2;
	run(&h, false, &rep);
	EXPECT(&rep, "device.connected", EP, AUDIT_WARN, "not connected to a TSM");
	audit_report_free(&rep);
	h.ep.cfg.pcie_type = PCIE_TYPE_RC_ENDPOINT;
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (why && strstr(why, "root complex integrated endpoint"))
		passed++;
	else
		failed++, printf("FAIL connect_blockers: an RCiEP is connectable: %s\n", why ? why : "-");
	free(why);
	/* Arm CCA sets up a stream only where it needs one: the stream rules do not hold it back */
	h.tsm.driver = NULL;
	h.tsm.provider = "arm_cca_host.rmi_dev.0";
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (!why)
		passed++;
	else
		failed++, printf("FAIL connect_blockers: Arm CCA held to the stream rules: %s\n", why);
	free(why);

	/* SEV-TIO, two DOE mailboxes, both features: doe_features cannot rule the connect out */
	h.tsm.provider = "0000:00:18.0";
	h.tsm.driver = "ccp";
	h.ep.cfg.pcie_type = PCIE_TYPE_ENDPOINT;
	h.ep.cfg.nr_doe = 2;
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (!why && func_doe_mailboxes_ambiguous(&h.ep))
		passed++;
	else
		failed++, printf("FAIL connect_blockers: two mailboxes with both features: %s\n",
				 why ? why : "not ambiguous");
	free(why);
	h.ep.cfg.nr_doe = 1;
	if (!func_doe_mailboxes_ambiguous(&h.ep))
		passed++;
	else
		failed++, printf("FAIL connect_blockers: one mailbox is ambiguous\n");

	/* TDX Connect: exactly one root port association, the prefetchable window (tdx-host.c) */
	h.tsm.driver = NULL;
	h.tsm.provider = "tdx_host";
	h.rp_block.cap = 2;			/* two association blocks */
	h.ep.upstream = "0000:40:01.0";
	h.ep.up_mem.valid = true;		/* a memory window only */
	run(&h, false, &rep);
	EXPECT(&rep, "device.connected", EP, AUDIT_SKIP,
	       "the bridge above it (0000:40:01.0) has no prefetchable memory window");
	audit_report_free(&rep);
	h.ep.up_pref.valid = true;
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (!why)
		passed++;
	else
		failed++, printf("FAIL connect_blockers: TDX with a prefetchable window: %s\n", why);
	free(why);
	h.rp_block.cap = 0;			/* no association block in the root port */
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (why && strstr(why, "its root port 0000:40:01.0 has no IDE address-association blocks"))
		passed++;
	else
		failed++, printf("FAIL connect_blockers: TDX root port without associations: %s\n",
				 why ? why : "-");
	free(why);
	/* only TDX Connect has that rule: the generic helpers take whatever there is */
	h.tsm.provider = "0000:00:18.0";
	why = func_connect_blocker(&h.ep, &h.tsm);
	if (!why)
		passed++;
	else
		failed++, printf("FAIL connect_blockers: the TDX rule held against another TSM: %s\n",
				 why);
	free(why);
}

/* tsm/ there but not readable: its files are unknown, nothing is claimed about them. */
static void unreadable_tsm_dir(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	h.ep.tsm_err = -EACCES;
	h.ep.has_connect = h.ep.has_dsm = false;
	h.ep.connect = h.ep.dsm = NULL;
	h.ep.connected_tsm = NULL;
	run(&h, false, &rep);
	EXPECT(&rep, "device.connected", EP, AUDIT_SKIP, "tsm/ could not be read (EACCES)");
	EXPECT(&rep, "stream.connected", STREAM, AUDIT_SKIP, "could not be read (EACCES)");
	if (!finding(&rep, "device.tdisp", EP))
		passed++;
	else
		failed++, printf("FAIL unreadable_tsm_dir: a tsm/lock is judged that may not exist\n");
	audit_report_free(&rep);
}

/* device.evidence: the judge's verdict on each device with evidence; --require-verified makes anything but pass a failure. */
static void evidence_checks(void)
{
	static char *const required_ep[] = { EP }, *const required_rp[] = { "0000:40:01.0" };
	struct audit_report rep;
	struct host h;

	host_init(&h);
	evidence = (struct verdict){ AUDIT_FAIL, "cert0: certificate has expired", 0 };
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", EP, AUDIT_FAIL, "certificate has expired");
	/* the root port has no evidence: no result, and the judge asked about the endpoint alone */
	if (!finding(&rep, "device.evidence", "0000:40:01.0") && evidence.calls == 2) {
		passed++;
	} else {
		failed++;
		printf("FAIL line %d: the judge was asked %u times, or about the root port\n", __LINE__,
		       evidence.calls);
	}
	audit_report_free(&rep);
	evidence = (struct verdict){ AUDIT_SKIP, "no trust store", 0 };
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", EP, AUDIT_SKIP, "no trust store");
	audit_report_free(&rep);
	require_verified = required_ep;
	nr_require_verified = 1;
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", EP, AUDIT_FAIL, "required to be verified (--require-verified): "
	       "no trust store");
	audit_report_free(&rep);
	require_verified = required_rp;
	evidence = (struct verdict){ AUDIT_PASS, "cert0 verified", 0 };
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", "0000:40:01.0", AUDIT_FAIL, "but it has no evidence");
	EXPECT(&rep, "device.evidence", EP, AUDIT_PASS, "cert0 verified");
	audit_report_free(&rep);
	require_verified = NULL;
	nr_require_verified = 0;
	/* a TDI locked to a devsec TSM has evidence too */
	h.ep.connect = "";
	h.ep.dsm = "";
	h.ep.lock = "tsm0";
	h.ep.has_lock = true;
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", EP, AUDIT_PASS, "cert0 verified");
	audit_report_free(&rep);
}

/*
 * --require-verified: a typo (a device sysfs does not have) fails, as
 * --require-connected's does; a dependent function is judged through its
 * DSM's evidence, as `evidence` reads it.
 */
static void evidence_required(void)
{
	static char *const required[] = { "0000:99:00.0", "0000:40:01.0" };
	static const bool absent[] = { true, false };
	struct audit_report rep;
	struct host h;

	host_init(&h);
	evidence = (struct verdict){ AUDIT_PASS, "evidence of generation 1 verified: identity", 0 };
	require_verified = required;
	nr_require_verified = 2;
	require_verified_absent = absent;
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", "0000:99:00.0", AUDIT_FAIL,
	       "required to be verified, but there is no such PCI device");
	EXPECT(&rep, "device.evidence", "0000:40:01.0", AUDIT_FAIL, "but it has no evidence");
	EXPECT(&rep, "device.evidence", EP, AUDIT_PASS, "verified: identity");
	audit_report_free(&rep);
	/* the root port stands for a dependent: tsm/dsm names the connected endpoint, its DSM */
	h.rp.dsm = EP;
	h.rp.has_dsm = true;
	h.rp.dsm_func = &h.ep;
	evidence.calls = 0;
	run(&h, false, &rep);
	EXPECT(&rep, "device.evidence", "0000:40:01.0", AUDIT_PASS, "verified: identity");
	if (evidence.calls == 4)	/* two devices, each in the kept and the streamed run */
		passed++;
	else
		failed++, printf("FAIL line %d: the judge was asked %u times\n", __LINE__, evidence.calls);
	audit_report_free(&rep);
	require_verified = NULL;
	nr_require_verified = 0;
	require_verified_absent = NULL;
}

/* --require-connected: a device without tsm/connect, and one the command found absent from sysfs. */
static void required_devices(void)
{
	static char *const required[] = { "0000:40:01.0", "0000:99:00.0" };
	static const bool absent[] = { false, true };
	struct audit_report rep;
	struct host h;

	host_init(&h);
	require_connected = required;
	nr_require_connected = 2;
	require_absent = absent;
	run(&h, false, &rep);
	EXPECT(&rep, "device.connected", "0000:40:01.0", AUDIT_FAIL,
	       "required to be connected, but has no tsm/connect");
	EXPECT(&rep, "device.connected", "0000:99:00.0", AUDIT_FAIL,
	       "required to be connected, but there is no such PCI device");
	audit_report_free(&rep);
	require_connected = NULL;
	nr_require_connected = 0;
	require_absent = NULL;
}

/* Where check ID's result for OBJECT stands in REP, or -1. */
static long position(const struct audit_report *rep, const char *id, const char *object)
{
	const struct audit_finding *f = finding(rep, id, object);

	return f ? f - rep->findings : -1;
}

/*
 * The engine's walk over a check's scope: one result per object the check
 * applies to, in the snapshot's order, each skipped alone when its own
 * parent result failed.
 */
static void scope_walk(void)
{
	struct audit_report rep;
	struct host h;
	size_t nr_connected = 0;

	host_init(&h);
	h.funcs[0] = &h.ep;	/* the snapshot's order, not the bus order, is the results' */
	h.funcs[1] = &h.rp;
	h.ep.cfg.malformed = CFG_MAL_CAP_LOOP;
	run(&h, false, &rep);
	EXPECT(&rep, "config.malformed", EP, AUDIT_FAIL, "a capability list loops");
	EXPECT(&rep, "config.malformed", "0000:40:01.0", AUDIT_PASS, NULL);
	EXPECT(&rep, "ide.untracked", EP, AUDIT_SKIP, "parent check config.malformed failed");
	EXPECT(&rep, "ide.untracked", "0000:40:01.0", AUDIT_PASS, "1 enabled Selective block, named by a stream link");
	CHECK(position(&rep, "config.malformed", EP) + 1 ==
	      position(&rep, "config.malformed", "0000:40:01.0"));
	CHECK(position(&rep, "ide.untracked", EP) + 1 ==
	      position(&rep, "ide.untracked", "0000:40:01.0"));
	/* device.connected applies to functions with tsm/connect: the root port has none */
	for (size_t i = 0; i < rep.n; i++)
		nr_connected += !strcmp(rep.findings[i].check->id, "device.connected");
	CHECK(nr_connected == 1);
	CHECK(position(&rep, "device.connected", "0000:40:01.0") < 0);
	audit_report_free(&rep);

	/* no pool and no stream on the host bridge: hostbridge.pool has nothing to say */
	host_init(&h);
	h.hb.available_streams = -1;
	h.hb.nr_streams = 0;
	h.snap.nr_streams = 0;
	run(&h, false, &rep);
	CHECK(position(&rep, "hostbridge.pool", "pci0000:40") < 0);
	EXPECT(&rep, "device.connected", EP, AUDIT_PASS, NULL);
	audit_report_free(&rep);
}

/* A production PSP: every bit that matters set (ABI.md §7.2). */
static void psp_init(struct psp_security *p)
{
	memset(p, 0, sizeof(*p));
	p->function = "0000:02:00.1";
	for (int i = 0; i < PSP_NR_BITS; i++)
		p->bit[i] = 1;
	p->bootloader_err = p->tee_err = -ENOENT;
}

/*
 * The PSP of a SEV-TIO TSM: each bit that matters for the TSM's trust is
 * judged from its attribute; a PSP that reports nothing, a kernel without
 * boot_integrity, an unreadable bit are said as such; a TSM whose PSP was
 * not read (no SEV-TIO) has no result at all.
 */
static void psp_posture(void)
{
	static const char *const ids[] = { "psp.fused-part", "psp.debug-lock",
					   "psp.anti-rollback", "psp.boot-integrity" };
	struct audit_report rep;
	struct psp_security psp;
	struct host h;

	host_init(&h);
	psp_init(&psp);
	h.tsm.psp = &psp;
	run(&h, true, &rep);
	EXPECT(&rep, "psp.fused-part", "tsm0", AUDIT_PASS, "fused_part reads 1");
	EXPECT(&rep, "psp.debug-lock", "tsm0", AUDIT_PASS, "debug_lock_on reads 1");
	EXPECT(&rep, "psp.anti-rollback", "tsm0", AUDIT_PASS, "anti_rollback_status reads 1");
	EXPECT(&rep, "psp.boot-integrity", "tsm0", AUDIT_PASS, "boot_integrity reads 1");
	audit_report_free(&rep);

	/* an engineering sample: each of the four cites its attribute and what it costs the TSM */
	psp.bit[PSP_FUSED_PART] = psp.bit[PSP_DEBUG_LOCK_ON] = 0;
	psp.bit[PSP_ANTI_ROLLBACK] = psp.bit[PSP_BOOT_INTEGRITY] = 0;
	run(&h, false, &rep);
	EXPECT(&rep, "psp.fused-part", "tsm0", AUDIT_FAIL,
	       "fused_part reads 0 on the PSP (0000:02:00.1): a part not fused");
	EXPECT(&rep, "psp.fused-part", "tsm0", AUDIT_FAIL, "nothing it attests");
	EXPECT(&rep, "psp.debug-lock", "tsm0", AUDIT_FAIL, "debug_lock_on reads 0");
	EXPECT(&rep, "psp.debug-lock", "tsm0", AUDIT_FAIL, "keys of its IDE streams");
	EXPECT(&rep, "psp.anti-rollback", "tsm0", AUDIT_WARN, "anti_rollback_status reads 0");
	EXPECT(&rep, "psp.anti-rollback", "tsm0", AUDIT_WARN, "older, vulnerable version");
	EXPECT(&rep, "psp.boot-integrity", "tsm0", AUDIT_WARN, "boot_integrity reads 0");
	/* the rest of the host is as healthy as it was */
	EXPECT(&rep, "device.connected", EP, AUDIT_PASS, NULL);
	audit_report_free(&rep);

	/* a kernel before 7.0 has no boot_integrity: that one is unknown, the others judged */
	psp_init(&psp);
	psp.bit[PSP_BOOT_INTEGRITY] = -ENOENT;
	run(&h, false, &rep);
	EXPECT(&rep, "psp.boot-integrity", "tsm0", AUDIT_SKIP, "(added in Linux 7.0)");
	EXPECT(&rep, "psp.fused-part", "tsm0", AUDIT_PASS, NULL);
	audit_report_free(&rep);

	/* no HSTI: none of them, so none of the four can be judged */
	for (int i = 0; i < PSP_NR_BITS; i++)
		psp.bit[i] = -ENOENT;
	run(&h, false, &rep);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		EXPECT(&rep, ids[i], "tsm0", AUDIT_SKIP, "shows none of the sysfs-driver-ccp");
	audit_report_free(&rep);

	/* a bit unreadable or malformed: unknown is no pass */
	psp_init(&psp);
	psp.bit[PSP_DEBUG_LOCK_ON] = -EBADMSG;
	psp.bit[PSP_FUSED_PART] = -EIO;
	run(&h, false, &rep);
	EXPECT(&rep, "psp.debug-lock", "tsm0", AUDIT_FAIL, "cannot be read (malformed)");
	EXPECT(&rep, "psp.fused-part", "tsm0", AUDIT_FAIL, "cannot be read (EIO)");
	audit_report_free(&rep);

	/* another provider: its PSP was never read, no psp.* result */
	h.tsm.psp = NULL;
	run(&h, false, &rep);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		CHECK(position(&rep, ids[i], "tsm0") < 0);
	audit_report_free(&rep);

	/* and below a failed parent (no TSM registered) they skip */
	host_init(&h);
	psp_init(&psp);
	psp.bit[PSP_FUSED_PART] = 0;
	h.tsm.psp = &psp;
	h.snap.nr_tsms = 0;
	run(&h, false, &rep);
	CHECK(position(&rep, "psp.fused-part", "tsm0") < 0);
	audit_report_free(&rep);
}

/* platform.sev-mitigations: supported but not verified warns; a result only with the vectors. */
static void sev_mitigations(void)
{
	struct audit_report rep;
	struct host h;

	host_init(&h);
	run(&h, true, &rep);
	CHECK(position(&rep, "platform.sev-mitigations", "platform") < 0);
	audit_report_free(&rep);

	h.snap.sev_mit = (struct sev_mitigations){ .present = true, .supported = 0x7,
						   .verified = 0x7 };
	run(&h, true, &rep);
	EXPECT(&rep, "platform.sev-mitigations", "platform", AUDIT_PASS,
	       "supported_mitigations 0x7, verified_mitigations 0x7");
	audit_report_free(&rep);

	h.snap.sev_mit.verified = 0x1;
	run(&h, false, &rep);
	EXPECT(&rep, "platform.sev-mitigations", "platform", AUDIT_WARN,
	       "supported but not verified: bits 1, 2 (supported_mitigations 0x7, "
	       "verified_mitigations 0x1)");
	CHECK(!strcmp(finding(&rep, "platform.sev-mitigations", "platform")->hint,
		      "read AMD's security bulletin for each bit, then: tsmctl verify-mitigation 1 2"));
	audit_report_free(&rep);

	/* a verified bit the firmware no longer lists is not one to verify */
	h.snap.sev_mit = (struct sev_mitigations){ .present = true, .supported = 0x2,
						   .verified = 0x3 };
	run(&h, true, &rep);
	EXPECT(&rep, "platform.sev-mitigations", "platform", AUDIT_PASS, NULL);
	audit_report_free(&rep);

	h.snap.sev_mit = (struct sev_mitigations){ .present = true, .supported_err = -EACCES,
						   .verified_err = -EACCES };
	run(&h, false, &rep);
	EXPECT(&rep, "platform.sev-mitigations", "platform", AUDIT_NEEDS_ROOT, "needs root");
	audit_report_free(&rep);

	h.snap.sev_mit = (struct sev_mitigations){ .present = true, .supported_err = -EIO };
	run(&h, false, &rep);
	EXPECT(&rep, "platform.sev-mitigations", "platform", AUDIT_FAIL, "cannot be read (EIO)");
	audit_report_free(&rep);
}

int main(void)
{
	healthy();
	insecure_partner();
	devsec_sample_rig();
	ide_fail();
	dangling_stream();
	exhausted_pool();
	locked_device();
	needs_root();
	duplicate_link();
	duplicate_claims();
	tsm_links();
	connect_blockers();
	unreadable_tsm_dir();
	evidence_checks();
	evidence_required();
	required_devices();
	scope_walk();
	psp_posture();
	sev_mitigations();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
