// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the model's accessors (src/snapshot.c) that views, metrics,
 * watch and the connect's verification share, on a snapshot built in memory:
 * a stream's state in one word, its blocks' SECURE and IDE_FAIL whatever
 * the link is, and the per-TSM counts of tsmctl list.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/snapshot.h"
#include "unit.h"

/* One host bridge, a root port and an endpoint with one stream, both blocks SECURE. */
struct host {
	struct tsm_snapshot snap;
	struct tsm tsm, guest;
	struct host_bridge hb, hb1;
	struct pci_func rp, ep, tdi[3];
	struct ide_stream stream, stray;
	struct ide_sel_stream rp_block, ep_block;
	struct tsm *tsms[2], *hb_tsms[1];
	struct host_bridge *hbs[2];
	struct pci_func *funcs[5];
	struct ide_stream *streams[2];
};

static void cfg_init(struct pci_func *f, int type, struct ide_sel_stream *b)
{
	*b = (struct ide_sel_stream){
		.decoded = true, .regs = { .enabled = true, .state = IDE_STATE_SECURE },
	};
	f->cfg_read = true;
	f->cfg.header_valid = true;
	f->cfg.pcie_type = type;
	f->cfg.ide = (struct ide_cap){
		.present = true, .selective_ide = true, .sel_streams = 1, .nr_sel = 1, .sel = b,
	};
}

static void host_init(struct host *h)
{
	memset(h, 0, sizeof(*h));
	h->tsm = (struct tsm){ .name = "tsm0" };
	h->guest = (struct tsm){ .name = "tsm1", .id = 1, .mode = "devsec" };
	h->hb = (struct host_bridge){ .name = "pci0000:40", .streams = h->streams, .nr_streams = 1,
				      .tsms = h->hb_tsms, .nr_tsms = 1 };
	h->hb1 = (struct host_bridge){ .name = "pci0000:80" };
	h->hb_tsms[0] = &h->tsm;
	h->rp = (struct pci_func){ .bdf = "0000:40:01.0", .hb = &h->hb };
	cfg_init(&h->rp, PCIE_TYPE_ROOT_PORT, &h->rp_block);
	h->ep = (struct pci_func){ .bdf = "0000:41:00.0", .hb = &h->hb, .root_port = &h->rp,
				   .connect = "tsm0", .has_connect = true };
	cfg_init(&h->ep, PCIE_TYPE_ENDPOINT, &h->ep_block);
	h->stream = (struct ide_stream){ .name = "stream0.0.0", .hb = &h->hb,
					 .endpoint = &h->ep, .root_port = &h->rp };
	/* a second link naming the same blocks: a stray of the first */
	h->stray = h->stream;
	h->stray.name = "stream1.0.0";
	h->stray.h = 1;
	h->stray.dup_of = &h->stream;
	/* guest TDIs: locked to tsm1 and accepted, locked and not accepted, unlocked */
	h->tdi[0] = (struct pci_func){ .bdf = "0000:01:00.0", .has_lock = true, .lock = "tsm1",
				       .has_accept = true, .accept = "1" };
	h->tdi[1] = (struct pci_func){ .bdf = "0000:02:00.0", .has_lock = true, .lock = "tsm1",
				       .has_accept = true, .accept = "0" };
	h->tdi[2] = (struct pci_func){ .bdf = "0000:03:00.0", .has_lock = true, .lock = "",
				       .has_accept = true, .accept = "0" };
	h->tsms[0] = &h->tsm;
	h->tsms[1] = &h->guest;
	h->hbs[0] = &h->hb;
	h->hbs[1] = &h->hb1;
	h->funcs[0] = &h->tdi[0];
	h->funcs[1] = &h->tdi[1];
	h->funcs[2] = &h->tdi[2];
	h->funcs[3] = &h->rp;
	h->funcs[4] = &h->ep;
	h->streams[0] = &h->stream;
	h->snap = (struct tsm_snapshot){
		.have_tsm_class = true, .tsms = h->tsms, .nr_tsms = 2, .hbs = h->hbs, .nr_hbs = 2,
		.funcs = h->funcs, .nr_funcs = 5, .streams = h->streams, .nr_streams = 1,
	};
}

static void state_words(void)
{
	CHECK(strcmp(stream_state_name(STREAM_SECURE), "secure") == 0);
	CHECK(strcmp(stream_state_name(STREAM_INSECURE), "insecure") == 0);
	CHECK(strcmp(stream_state_name(STREAM_IDE_FAIL), "ide-fail") == 0);
	CHECK(strcmp(stream_state_name(STREAM_DANGLING), "dangling") == 0);
	CHECK(strcmp(stream_state_name(STREAM_UNKNOWN), "unknown") == 0);
}

static void state_of_streams(void)
{
	static struct host h;

	host_init(&h);
	CHECK(stream_state(&h.stream) == STREAM_SECURE);

	/* one partner INSECURE, or disabled: both blocks read, not secure */
	h.rp_block.regs.state = IDE_STATE_INSECURE;
	CHECK(stream_state(&h.stream) == STREAM_INSECURE);
	host_init(&h);
	h.ep_block.regs.enabled = false;
	CHECK(stream_state(&h.stream) == STREAM_INSECURE);

	/* a partner's config not decoded: nothing to judge */
	host_init(&h);
	h.rp.cfg_read = false;
	CHECK(stream_state(&h.stream) == STREAM_UNKNOWN);

	/* IDE_FAIL on either partner is its own word: not secure, whatever the state registers say */
	host_init(&h);
	h.ep_block.regs.ide_fail = true;
	CHECK(stream_secure(&h.stream) && stream_state(&h.stream) == STREAM_IDE_FAIL);
	h.rp_block.regs.state = IDE_STATE_INSECURE;
	CHECK(stream_insecure(&h.stream) && stream_state(&h.stream) == STREAM_IDE_FAIL);

	/* a dangling link is dangling; a stray whose blocks are its stream's has no state of its own */
	host_init(&h);
	h.stream.dangling = true;
	CHECK(stream_state(&h.stream) == STREAM_DANGLING);
	host_init(&h);
	CHECK(stream_state(&h.stray) == STREAM_UNKNOWN);
	h.ep_block.regs.ide_fail = true;
	CHECK(stream_state(&h.stray) == STREAM_UNKNOWN);
}

static void blocks_whatever_the_link(void)
{
	static struct host h;

	host_init(&h);
	/* the stray names SECURE blocks: the registers say so, the stream is not its own */
	CHECK(stream_block_secure(&h.stray, true) && stream_block_secure(&h.stray, false));
	CHECK(!stream_secure(&h.stray));
	CHECK(stream_secure(&h.stream));

	h.rp_block.regs.state = IDE_STATE_INSECURE;
	CHECK(stream_block_secure(&h.stream, true) && !stream_block_secure(&h.stream, false));

	host_init(&h);
	h.ep_block.regs.ide_fail = true;
	CHECK(stream_block_ide_fail(&h.stream, true) && !stream_block_ide_fail(&h.stream, false));
	CHECK(stream_ide_fail(&h.stream));
	/* told once, with its stream: the stray's link does not report it */
	CHECK(stream_block_ide_fail(&h.stray, true) && !stream_ide_fail(&h.stray));

	/* no block of that index decoded: neither secure nor failing */
	host_init(&h);
	h.stream.e = 5;
	CHECK(!stream_block_secure(&h.stream, true) && !stream_block_ide_fail(&h.stream, true));
}

/* What SEV-TIO's enable step left (ABI.md §2.5): 7.x's both enabled, v6.19's two shapes. */
static void enable_shapes(void)
{
	static struct host h;

	host_init(&h);
	h.tsm.driver = "ccp";
	h.stream.tsm = &h.tsm;
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_NONE);	/* SECURE on both */
	h.rp_block.regs.state = IDE_STATE_INSECURE;
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_BOTH);

	/* v6.19: the root port enabled first stayed INSECURE; the endpoint only set up */
	h.rp_block.regs.ctl = 0x00000201;
	h.ep_block.regs = (struct ide_stream_regs){ .ctl = 0x00c00000 };
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_RP_FIRST);
	/* a block that was never set up (control 0) is no enable step's doing */
	h.ep_block.regs.ctl = 0;
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_NONE);

	/* v6.19: the endpoint INSECURE, the root port's control cleared again */
	host_init(&h);
	h.tsm.driver = "ccp";
	h.stream.tsm = &h.tsm;
	h.ep_block.regs.state = IDE_STATE_INSECURE;
	h.rp_block.regs = (struct ide_stream_regs){ .ctl = 0 };
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_RP_UNDONE);
	/* another provider's stream tells no SEV-TIO story */
	h.tsm.driver = "tdx_host";
	CHECK(stream_enable_shape(&h.stream) == ENABLE_SHAPE_NONE);
}

/*
 * Root port and endpoint of the fixture with two Selective blocks each: block
 * 0 enabled with Stream IDs RP_ID and EP_ID, block 1 idle with ID IDLE (255:
 * the stamp pci_ide_init() leaves once every claim succeeded).
 */
static void claim_fixture(struct host *h, struct ide_sel_stream rp[2], struct ide_sel_stream ep[2],
			  unsigned int rp_id, unsigned int ep_id, unsigned int idle)
{
	host_init(h);
	for (int i = 0; i < 2; i++) {
		rp[i] = (struct ide_sel_stream){ .decoded = true, .regs = {
			.enabled = i == 0, .state = IDE_STATE_SECURE, .stream_id = i ? idle : rp_id } };
		ep[i] = rp[i];
		ep[i].regs.stream_id = i ? idle : ep_id;
	}
	h->rp.cfg.ide.sel = rp;
	h->ep.cfg.ide.sel = ep;
	h->rp.cfg.ide.nr_sel = h->ep.cfg.ide.nr_sel = 2;
	h->rp.cfg.parts = h->ep.cfg.parts = CFG_PART_ENABLED | CFG_PART_LINK;
	snapshot_judge_ide_claims(&h->snap);
}

/* pci_ide_init()'s claims in enumeration order (ABI.md §2.4). */
static void ide_claims(void)
{
	static struct host h;
	static struct ide_sel_stream rp[2], ep[2];
	char *why;

	claim_fixture(&h, rp, ep, 5, 6, 0);
	CHECK(h.rp.ide_claim.state == IDE_CLAIM_OK && h.ep.ide_claim.state == IDE_CLAIM_OK);
	CHECK(func_ide_unusable_reason(&h.ep) == NULL);

	/* the root port, enumerated first, holds 5: the endpoint's claim fails */
	claim_fixture(&h, rp, ep, 5, 5, 0);
	CHECK(h.ep.ide_claim.state == IDE_CLAIM_TAKEN && h.ep.ide_claim.holder == &h.rp);
	why = func_ide_unusable_reason(&h.ep);
	CHECK(why && strstr(why, "Stream ID 5, which 0000:40:01.0's Selective block 0 had claimed "
			    "first"));
	free(why);
	/* but an idle block stamped 255 says the endpoint's init went through: enabled later */
	claim_fixture(&h, rp, ep, 5, 5, IDE_RESERVED_STREAM_ID);
	CHECK(h.ep.ide_claim.state == IDE_CLAIM_OK);

	/* the reserved 255 on the root port: it, and the endpoint below it, have no usable IDE */
	claim_fixture(&h, rp, ep, IDE_RESERVED_STREAM_ID, 6, 0);
	CHECK(h.rp.ide_claim.state == IDE_CLAIM_RESERVED);
	CHECK(h.ep.ide_claim.state == IDE_CLAIM_ROOT_PORT && h.ep.ide_claim.holder == &h.rp);
	CHECK(!func_dsm_candidate(&h.ep));

	/* a VF at function 0 (its Vendor ID reads ffff) is never a DSM candidate */
	claim_fixture(&h, rp, ep, 5, 6, 0);
	h.ep.cfg.tee_io = true;
	CHECK(func_dsm_candidate(&h.ep));
	h.ep.cfg.vendor_id = 0xffff;
	CHECK(!func_dsm_candidate(&h.ep));

	/* every block enabled: nothing tells whether init stopped */
	claim_fixture(&h, rp, ep, 5, 5, 0);
	ep[1].regs.enabled = true;
	ep[1].regs.stream_id = 7;
	snapshot_judge_ide_claims(&h.snap);
	CHECK(h.ep.ide_claim.state == IDE_CLAIM_UNKNOWN);
	/* blocks not read say nothing */
	claim_fixture(&h, rp, ep, 5, 5, 0);
	h.ep.cfg.parts = 0;
	h.ep.ide_claim.state = IDE_CLAIM_UNKNOWN;
	snapshot_judge_ide_claims(&h.snap);
	CHECK(h.ep.ide_claim.state == IDE_CLAIM_UNKNOWN);
}

static void tsm_counts(void)
{
	static struct host h;
	const char *names[2] = { NULL, NULL };
	size_t accepted = 99;

	host_init(&h);
	CHECK(tsm_nr_locked(&h.snap, &h.guest, &accepted) == 2 && accepted == 1);
	CHECK(tsm_nr_locked(&h.snap, &h.tsm, &accepted) == 0 && accepted == 0);
	/* a lock that is a link TSM's connection is not a TDISP lock */
	h.tdi[0].connect = "tsm0";
	CHECK(tsm_nr_locked(&h.snap, &h.guest, &accepted) == 1 && accepted == 0);

	CHECK(tsm_hb_names(&h.snap, &h.tsm, names) == 1 && strcmp(names[0], "pci0000:40") == 0);
	CHECK(tsm_hb_names(&h.snap, &h.guest, names) == 0);
	h.hb1.tsms = h.hb_tsms;
	h.hb1.nr_tsms = 1;
	CHECK(tsm_hb_names(&h.snap, &h.tsm, names) == 2 && strcmp(names[1], "pci0000:80") == 0);
}

int main(void)
{
	state_words();
	state_of_streams();
	blocks_whatever_the_link();
	enable_shapes();
	ide_claims();
	tsm_counts();
	return unit_report();
}
