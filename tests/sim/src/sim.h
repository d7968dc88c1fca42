/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tsm-sim: a stand-in for the Linux v6.19 PCIe TSM / IDE sysfs ABI.
 *
 * The model (this header) holds the topology and the dynamic kernel state
 * (TSM contexts, IDE register blocks, stream allocations). sim-tree.c mirrors it
 * into a directory tree after every change, so the tree is what readers see.
 */
#ifndef TSM_SIM_H
#define TSM_SIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SIM_MAX_BLOCKS 256	/* Selective stream count field is 8 bits (+1) */
#define SIM_MAX_ASSOC 15	/* address association count field is 4 bits */
#define SIM_MAX_LINK 8		/* Link IDE TC count field is 3 bits (+1) */
#define SIM_POOL_MAX 256	/* pci_ide_set_nr_streams() clamps to 256 */
#define SIM_RESERVED_ID 255	/* PCI_IDE_RESERVED_STREAM_ID */
#define SIM_SAMPLE_IDS 4	/* devsec sample's NR_TSM_STREAMS bitmap */
#define SIM_MAX_EXT_CAPS 64	/* "ext_caps": other extended capabilities */

/* PCIe capability "device/port type" values (PCI_EXP_TYPE_*) */
enum sim_pcie_type {
	PT_ENDPOINT = 0x0,
	PT_LEGACY_ENDPOINT = 0x1,
	PT_ROOT_PORT = 0x4,
	PT_UPSTREAM = 0x5,
	PT_DOWNSTREAM = 0x6,
	PT_PCIE_PCI_BRIDGE = 0x7,
	PT_RCIEP = 0x9,
	PT_RCEC = 0xa,
	PT_CONVENTIONAL = -1,	/* plain PCI device: no PCIe capability */
};

enum sim_abi_flavour { ABI_NONE, ABI_RELEASED, ABI_PROPOSED };
/* whose drivers a topology models: the released 7.x (the default) or v6.19 */
enum sim_release { REL_7X, REL_V619 };
enum sim_tsm_kind { TSM_LINK, TSM_DEVSEC };
enum sim_tsm_provider { PROV_SEV_TIO, PROV_DEVSEC_SAMPLE, PROV_GENERIC,
		    PROV_TDX_CONNECT };

/* connect() stages after which an injected error can hit */
enum sim_fault_stage { STAGE_NONE, STAGE_ALLOC, STAGE_REGISTER, STAGE_SETUP,
		   STAGE_ENABLE };

#define STATE_INSECURE 0
#define STATE_SECURE 2

struct sim_sel_block {
	unsigned nr_assoc;	/* Selective IDE Stream Capability bits 3:0 */
	uint32_t ctl, sts, rid1, rid2;
	uint32_t assoc[SIM_MAX_ASSOC][3];
};

struct sim_dev_ide {
	bool present;		/* IDE extended capability in config space */
	uint32_t cap;		/* IDE Capability register (+0x04) */
	uint32_t ctl;		/* IDE Control register (+0x08) */
	unsigned nr_link;	/* Link IDE register blocks */
	uint32_t link_ctl[SIM_MAX_LINK], link_sts[SIM_MAX_LINK];
	unsigned nr_sel;	/* Selective blocks in config (cap field + 1) */
	struct sim_sel_block *sel;
	struct sim_sel_block *sel_boot;	/* the hardware state at power-on (re-enumeration) */
	/* what pci_ide_init() concluded (pdev->ide_cap != 0 and friends) */
	bool usable;
	unsigned k_nr_sel, k_nr_mem;
	bool k_cfg, k_tee_limit;
	uint8_t used[SIM_MAX_BLOCKS];	/* pdev->ide_stream_ida */
};

struct sim_dev_faults {
	int connect_errno;	/* positive errno, 0 = none */
	enum sim_fault_stage connect_after;
	int rp_state, ep_state;	/* state reported when the partner enables */
	bool rp_ide_fail, ep_ide_fail;
	bool rp_dropped, ep_dropped;	/* drop to Insecure right after connect */
	long vanish_after_writes;	/* 0 = never */
	long vanish_after_opens;
	long write_delay_ms;
	bool store_manually;	/* a tsm/ store, the lock taken, waits for the control file's store-done BDF */
	bool spdm_manually;	/* a connect's SPDM session lasts until the control file's spdm-done BDF */
	int lock_errno, accept_errno;	/* the devsec TSM's lock/accept op fails */
	bool stream_alloc_fail;	/* tdx-connect: no stream resources (ENOMEM) */
	bool seamcall_fail;	/* tdx-connect: the TDX module refuses (EFAULT) */
	long writes, opens;	/* counters */
};

/* host bridge window shown in proc/iomem above the bridges' windows */
struct sim_hb_window {
	char *name;
	uint64_t base, limit;
};

struct sim_bar {
	bool present, is64, prefetch;
	uint64_t base, size;
};

struct sim_window {
	bool present;
	uint64_t base, limit;
};

struct sim_tsm;
struct sim_host_bridge;
struct sim_ide_stream;

/* one DOE extended capability and the features its discovery answers */
struct sim_doe_mb {
	char **feat;		/* "VVVV:TT", discovery "0001:00" included */
	size_t nr_feat;
};

/* device evidence (proposed, ABI.md §1.6): enum device_evidence_type */
#define SIM_EV_TYPES 11		/* cert0..cert7, vca, measurements, report */
#define SIM_EV_SLOTS 8
#define SIM_EV_VCA 8
#define SIM_EV_MEASUREMENTS 9
#define SIM_EV_REPORT 10
#define SIM_EV_MAX_OBJECT 0x01000000u	/* DEVICE_EVIDENCE_MAX_OBJECT_SIZE */
#define SIM_EV_DIGEST 48	/* SHA-384, the providers' digest */

/*
 * The interface report the provider makes (sim-evidence.c): the BARs as they
 * are (the report structure, or the whole TDISP response naming the
 * function), or broken: a range past its BAR, a misplaced MSI-X table, a
 * response naming another function, reserved bits set, two ranges
 * overlapping, every range 1 GiB away from its BAR (right only as offsets).
 */
enum sim_ev_report {
	SIM_REPORT_BARS, SIM_REPORT_OUTSIDE_BAR, SIM_REPORT_MSIX_MISPLACED, SIM_REPORT_RESPONSE,
	SIM_REPORT_OTHER_FUNCTION, SIM_REPORT_RESERVED_BITS, SIM_REPORT_OVERLAP, SIM_REPORT_MOVED,
};

/* How a provider hands out the measurements: the response, request || response, or the VCA first too. */
enum sim_ev_form { SIM_FORM_RESPONSE, SIM_FORM_EXCHANGE, SIM_FORM_TRANSCRIPT };

/* The measurements' signature: made as a responder makes it, or broken on purpose. */
enum sim_ev_sig {
	SIM_SIG_GOOD,		/* over the request of the nonce sent */
	SIM_SIG_ZERO,		/* its bytes zeroed */
	SIM_SIG_NONE,		/* none asked for, though CAPABILITIES says the device signs */
	SIM_SIG_REPLAY,		/* the response made for another request (another nonce) */
};

/* What a device's provider reports, from the topology's "evidence" (sim-evidence.c). */
struct sim_ev_spec {
	char *chain[SIM_EV_SLOTS];	/* certificate chain per slot (tests/sim/certs/NAME...), NULL: empty */
	bool vca, measurements, report;
	char *vca_file, *meas_file;	/* NAME.vca / NAME.meas gen-evidence built, instead of generated */
	enum sim_ev_report report_kind;
	char *firmware;		/* the firmware version the measurements carry */
	enum sim_ev_form form;	/* "form" */
	enum sim_ev_sig sig;	/* "signature" */
	char *signer;		/* "signer": the chain whose leaf key signs; NULL: slot 0's */
	unsigned truncate;	/* "truncate": bytes cut off the measurements object's end */
};

/* An MSI-X capability (config space 0x80) and where its table and PBA live. */
struct sim_msix {
	bool present;
	unsigned vectors;		/* table entries, 1..2048 */
	unsigned table_bar, pba_bar;
	uint32_t table_offset, pba_offset;
};

/* pdev->tsm->evidence while the context lasts: made at connect (DSM) or lock (TDI). */
struct sim_evidence {
	unsigned generation;	/* 1 at creation (device_evidence_create()), +1 per refresh */
	long validated;		/* the validate command's last generation, -1 none */
	uint8_t *obj[SIM_EV_TYPES];	/* generated objects (vca, measurements, report) */
	size_t len[SIM_EV_TYPES];
	uint8_t digest[SIM_EV_TYPES][SIM_EV_DIGEST];
	uint8_t req_nonce[32];	/* the last GET_MEASUREMENTS' nonce: a reader's, else the provider's */
	/* control-file knobs for the dumps of this device */
	enum { EVF_NONE, EVF_EAGAIN, EVF_REMOVE_TSM, EVF_REFRESH } fault;
	long fault_after;	/* messages of a dump before it hits; for EVF_REFRESH, whole dumps */
	long fault_times;	/* dumps it hits */
};

/* A certificate chain built by tests/sim/gen-cert-chain (SPDM CERT_CHAIN format). */
struct sim_chain {
	char *name;
	uint8_t *data;
	size_t len;
};

/*
 * The PSP's security attributes (drivers/crypto/ccp/hsti.c, sp-pci.c) on the
 * function the ccp driver binds: the HSTI bits while security_reporting is
 * set, the two firmware versions while their registers are readable.
 */
struct sim_psp {
	bool present;		/* "psp": the ccp driver's dev_groups apply here */
	bool security_reporting;	/* psp_security_is_visible(): all of them or none */
	bool has_boot_integrity;	/* 7.0 added the attribute: absent on older kernels */
	bool fused_part, boot_integrity, debug_lock_on, tsme_status, anti_rollback_status,
	     rpmc_production_enabled, rpmc_spirom_available, hsp_tpm_available,
	     rom_armor_enforced;
	uint64_t bootloader_version, tee_version;	/* registers; 0xffffffff hides them */
};

struct sim_dev {
	char *name;		/* BDF, "DDDD:BB:DD.F" */
	char *dir;		/* path below the root */
	unsigned domain, bus, slot, fn;
	uint16_t vendor, device, subvendor, subdevice;
	uint32_t class;
	uint8_t revision;
	int type;		/* enum sim_pcie_type */
	bool tee, flr;
	char *driver;		/* bound driver now */
	char *boot_driver;	/* bound at enumeration (topology "driver") */
	char *driver_override;	/* pdev->driver_override, NULL = unset */
	char *deferred;		/* deferred probe reason ("DRV: TEXT"), NULL = not deferred */
	bool encrypted;		/* accepted by a devsec TSM: "PCI MMIO Encrypted" in iomem */
	uint8_t link_port, link_speed, link_width;

	struct sim_host_bridge *hb;
	struct sim_dev *parent;	/* upstream bridge, NULL on the root bus */
	struct sim_dev **children;	/* devices on the secondary bus */
	size_t nr_children;
	unsigned secondary, subordinate;
	struct sim_window mem, pref;
	struct sim_bar bars[6];

	struct sim_dev *physfn;	/* set on VFs */
	struct sim_dev **vfs;	/* every VF it can have (sriov_totalvfs) */
	unsigned nr_vfs;	/* those enabled (sriov_numvfs, pci_num_vf()): vfs[0..nr_vfs) */
	unsigned nr_vfs_total, nr_vfs_boot, vf_offset, vf_stride;
	bool vf_tsm_init_manually;	/* a new VF's pci_tsm_init() waits for the control file's pci-tsm-init VF */
	uint16_t vf_device;

	char **doe;		/* DOE features "VVVV:TT" of every mailbox, once each (doe_features/) */
	size_t nr_doe;
	struct sim_doe_mb *mbs;	/* the DOE mailboxes, in config space order */
	size_t nr_mbs;
	unsigned ext_caps;	/* other extended capabilities ahead of DOE/SR-IOV/IDE */
	struct sim_dev_ide ide;

	struct sim_dev_faults faults;
	struct sim_ev_spec *ev_spec;	/* "evidence": what the provider reports, NULL: nothing */
	struct sim_msix msix;		/* "msix" */
	uint64_t dsn;		/* Device Serial Number capability (0x0003), 0 = none */
	bool dsn_reads_zero;	/* the DSN reads 0 now: serial_number is EIO (pci_get_dsn()) */
	struct sim_psp psp;	/* "psp" */
	struct sim_evidence ev;

	/* build-time connect request */
	char *boot_connect;
	bool boot_bound;	/* bound as a TDI at boot (VFIO did it) */
	int boot_h, boot_r, boot_e;	/* -1 = allocate */
	char *boot_lock;	/* locked to this devsec TSM at boot */
	bool boot_accepted;

	/* dynamic state */
	bool present;
	struct sim_tsm *ctx_tsm;	/* pdev->tsm->tsm_dev, NULL = no context */
	struct sim_dev *ctx_dsm;	/* pdev->tsm->dsm_dev */
	struct sim_ide_stream *stream;	/* stream this DSM owns */
	bool bound;
	struct sim_tsm *lock_tsm;	/* proposed: devsec context (TDI LOCKED) */
	bool accepted;		/* TDI in RUN (tsm/accept reads 1) */
};

struct sim_dangling_link {
	char *name, *target;	/* target relative to the host bridge dir */
};

struct sim_host_bridge {
	char *name;		/* "pciDDDD:BB" */
	char *dir;
	unsigned domain, bus;
	unsigned nr_streams;	/* pool size, 0 hides available_secure_streams */
	int keyp_streams;	/* ACPI KEYP entry's stream count, -1 = no entry */
	uint8_t pool[SIM_POOL_MAX];	/* hb->ide_stream_ida */
	uint8_t ids[256];	/* hb->ide_stream_ids_ida */
	struct sim_dev **devs;	/* devices on the root bus */
	size_t nr_devs;
	struct sim_dangling_link *dangling;
	size_t nr_dangling;
	struct sim_hb_window *windows;
	size_t nr_windows;
	char *owner;		/* module whose faux device is the parent, NULL = always there */
	char *acpi;		/* ACPI companion below sys/devices (firmware_node), or NULL */
	bool present;		/* enumerated (its bus module is loaded) */
	/*
	 * tsm-core.c's tsm_ide_streams entry for this host bridge (proposed ABI):
	 * keyed by the host bridge alone, it holds the TSM whose directory got
	 * the pciDDDD:BB link and a count of every stream registered here, by
	 * any TSM. stale: that TSM was unregistered while another TSM's stream
	 * still counted, so the entry outlived its link.
	 */
	struct sim_tsm *link_owner;
	unsigned link_refs;
	bool link_stale;
};

struct sim_tsm {
	unsigned id;
	char *name;		/* "tsmN" */
	char *decl_name;	/* "tsmN" as the topology names it (control file) */
	char *dir;		/* class device dir */
	char *parent_dir;	/* the parent device's dir */
	enum sim_tsm_kind kind;
	enum sim_tsm_provider provider;
	struct sim_dev *parent_pci;
	char *parent_faux;
	char *parent_platform;
	char **hbs;		/* host bridges the provider accepts, NULL = all */
	size_t nr_hbs;
	uint8_t sample_ids[SIM_SAMPLE_IDS];
	/* late registration (live mount): tsm_register() after the mount */
	long register_after_ms;	/* -1: registered at boot */
	bool register_manually;	/* registered when the control file says so */
	bool uevents;		/* KOBJ_ADD/CHANGE/REMOVE are sent */
	long change_after_ms;	/* from device_add() to the PCI registration */
	bool change_manually;	/* the PCI registration waits for the control file */
	bool registered;	/* device_add() done: tsmN exists (KOBJ_ADD) */
	bool pci_ready;		/* PCI/TSM registration done (KOBJ_CHANGE) */
	bool evidence_inputs;	/* the sample's certs/transcript on its faux device */
	bool evidence_refresh;	/* pci_tsm_ops.refresh_evidence exists (not the sample's) */
	/* tdx-connect: Stream IDs the TDX module hands out, in order (no list: lowest free) */
	bool has_module_ids;
	unsigned *module_ids;
	size_t nr_module_ids;
};

/* the tdx_host faux device of a TDX host (drivers/virt/coco/tdx-host/tdx-host.c) */
struct sim_tdx_host {
	bool present;		/* a TDX host: faux tdx_host exists while its module is loaded */
	char *version;		/* the TDX module's (0444) */
	char *seamldr_version;	/* runtime updates supported: P-SEAMLDR attributes, tdx_module upload */
	long remaining_updates;
};

struct sim_ide_stream {
	struct sim_host_bridge *hb;
	struct sim_dev *ep, *rp;
	struct sim_tsm *tsm;
	unsigned h, r, e;
	int stream_id;		/* -1 until chosen */
	int sample_id;		/* devsec sample bitmap slot, -1 = none */
	char *name;		/* non-NULL once registered (link exists) */
	bool id_reserved, tsm_registered;
	bool rp_setup, ep_setup, rp_enable, ep_enable;
	bool rp_default, ep_default;
	bool rp_pref_only;	/* RP address association: the prefetchable window alone */
	bool rp_cfg, rp_tee, ep_cfg, ep_tee;
	unsigned rp_rid_start, rp_rid_end, ep_rid_start, ep_rid_end;
	struct sim_ide_stream *next;
};

/* the generic module option of the later staging tree ("trust=") */
enum sim_trust_policy { TRUST_AUTO, TRUST_NONE, TRUST_TCB };

struct sim_module {
	char *name;
	char **keys, **vals, **defaults;	/* declared parameters: now, at load */
	size_t nr_params;
	bool loaded;		/* in the kernel (sys/module/NAME exists) */
	bool autoprobe;		/* module->autoprobe: drivers attach on their own */
	enum sim_trust_policy trust;
};

/* a PCI driver (sys/bus/pci/drivers/NAME); module NAME when one is declared */
struct sim_driver {
	char *name;
	char **ids;		/* static id table "VVVV:DDDD"; NULL: unknown (binds anything) */
	size_t nr_ids;
	bool has_ids;
	bool override_only;	/* table entries match only through driver_override */
	char **dynids;		/* new_id */
	size_t nr_dynids;
	char *defer_reason;	/* probe defers while the device is not accepted */
	int accepted_errno;	/* probe of an accepted (RUN) device fails with this */
};

/* a uevent queued under the lock, sent after it (sim-fuse-store.c) */
struct sim_event {
	char *action, *dir, *subsystem;
};

struct sim_faux {
	char *name;
	char *dir;
	bool present;		/* faux_device_create() done (its module is loaded) */
};

/* a platform device (sys/devices/platform/NAME), bound to the driver NAME */
struct sim_platform {
	char *name;
	char *dir;
};

/* configfs-tsm report providers (drivers/virt/coco/guest/report.c users) */
enum sim_report_provider { REPORT_NONE, REPORT_SEV_GUEST, REPORT_TDX_GUEST };

#define REPORT_INBLOB_MAX 64	/* TSM_REPORT_INBLOB_MAX */
#define REPORT_PRIVLEVEL_MAX 3	/* TSM_REPORT_PRIVLEVEL_MAX */

/* the topology's "report" object: configfs-tsm is loaded when present */
struct sim_report_cfg {
	bool present;
	enum sim_report_provider provider;
	unsigned privlevel_floor;
	bool svsm;		/* sev_guest below an SVSM (VMPL > 0) */
	long concurrent_writer;	/* phantom generation bump after this input write */
	int outblob_errno;	/* report generation fails with this */
	long outblob_errno_reads;	/* ... for this many reads (0 = always) */
	int commit_errno;	/* the inblob store at close fails with this */
	unsigned concurrent_extend;	/* RTMR N-1 another process extends once a report is made */
};

/* one mkdir'ed sys/kernel/config/tsm/report/NAME */
struct sim_report_entry {
	char *name;
	char *dir;
	unsigned long write_gen, read_gen;
	bool have_report;	/* outblob generated for read_gen */
	uint8_t inblob[REPORT_INBLOB_MAX];
	size_t inblob_len;
	unsigned privlevel;
	char *service_provider;
	uint8_t guid[16];
	unsigned manifest_version;
	long input_writes;	/* successful generation advances */
	long failed_reads;	/* outblob_errno hits so far */
	bool dead;		/* rmdir'ed; freed when the last handle goes */
	bool extend_pending;	/* concurrent_extend: a report was made, the extend not done yet */
	int refs;		/* open handles */
	struct sim_report_entry *next;
};

/* tsm-mr's registers of the tdx_guest misc device (drivers/virt/coco/guest/tsm-mr.c) */
#define SIM_MR_SIZE 48		/* SHA384_DIGEST_SIZE: every TDX measurement register */
#define SIM_NR_TDX_MRS 8	/* tdx-guest.c tdx_mrs[]: rtmr0..3, mrtd, mrconfigid, mrowner, mrownerconfig */
struct sim_tdx_guest {
	bool present;		/* "tdx_guest": the misc device while its module is loaded */
	uint8_t mr[SIM_NR_TDX_MRS][SIM_MR_SIZE];	/* in tdx_mrs[] order */
	int extend_errno;	/* TDG.MR.RTMR.EXTEND fails with this */
};

/* SNP_VERIFY_MITIGATION's vectors (drivers/crypto/ccp/sev-dev.c, 7.3) */
struct sim_sev_mitigations {
	bool present;		/* "sev_firmware": the firmware reports SNP_VERIFY_MITIGATION_SUPPORTED */
	uint64_t supported, verified;
	int status_errno;	/* the STATUS subcommand fails: both files' reads fail */
	int verify_errno;	/* the VERIFY subcommand fails */
	uint64_t verify_fail;	/* bits whose verification reports a failure status */
};

struct sim_model {
	enum sim_abi_flavour abi;
	enum sim_release release;
	/* the live mount: show the tree as it is now, then hold D's connect with the lock held */
	void (*connect_pause)(struct sim_model *m, struct sim_dev *d);
	struct sim_host_bridge **hbs;
	size_t nr_hbs;
	struct sim_dev **devs;	/* every function, topology order */
	size_t nr_devs;
	struct sim_tsm **tsms;
	size_t nr_tsms;
	struct sim_module *modules;
	size_t nr_modules;
	struct sim_faux *faux;
	size_t nr_faux;
	struct sim_platform *platform;
	size_t nr_platform;
	struct sim_driver *drivers;	/* every PCI driver the topology knows */
	size_t nr_drivers;
	bool rc1_links;		/* abi *-rc1: tsmN/streamH.R.E instead of tsmN/pciDDDD:BB */
	struct sim_tdx_host tdx;
	bool debugfs;		/* sys/kernel/debug/devices_deferred */
	struct sim_event *events;
	size_t nr_events;
	struct sim_ide_stream *streams;
	struct sim_report_cfg report;
	struct sim_report_entry *reports;
	/* the devsec sample's shared evidence inputs (samples/devsec/common.c) */
	uint8_t *sample_certs, *sample_transcript;
	size_t sample_certs_len, sample_transcript_len;
	struct sim_chain *chains;	/* loaded for the live mount */
	size_t nr_chains;
	/* the device-evidence family as the control file sets it */
	bool ev_validate;	/* the family offers the validate command */
	bool ev_old_family;	/* the family is the devsec mirror's pci-tsm, not device-evidence */
	bool ev_ext_ack, ev_cap_ack;	/* the socket options tsmctl sets (on) */
	struct sim_tdx_guest tdx_guest;	/* "tdx_guest" */
	struct sim_sev_mitigations sev_mit;	/* "sev_firmware" */
};

/* sim-topology-parse.c: a topology file into a model (checked by sim_topology_check()) */
int sim_topology_load(const char *file, struct sim_model **out, char **err);
/* sim-topology-check.c: what must hold across the whole loaded topology */
int sim_topology_check(const struct sim_model *m, char **err);
/* sim-topology-free.c */
void sim_model_free(struct sim_model *m);

/* sim-model.c: derived kernel predicates */
unsigned sim_dev_rid(const struct sim_dev *d);
bool sim_dev_is_pcie(const struct sim_dev *d);
bool sim_dev_is_pf0(const struct sim_dev *d);
bool sim_dev_has_doe(const struct sim_dev *d, const char *feature);
int sim_dev_doe_mailbox(const struct sim_dev *d, const char *feature);
struct sim_dev *sim_dev_root_port(struct sim_dev *d);
struct sim_dev *sim_model_find_dev(struct sim_model *m, const char *bdf);
struct sim_dev *sim_model_find_dev_dir(struct sim_model *m, const char *dir);
struct sim_tsm *sim_model_find_tsm(struct sim_model *m, long id);
size_t sim_model_hb_index(struct sim_model *m, const struct sim_host_bridge *hb);
unsigned sim_model_link_tsms(const struct sim_model *m);
unsigned sim_model_devsec_tsms(const struct sim_model *m);
bool sim_vis_link_group(const struct sim_model *m, const struct sim_dev *d);
bool sim_vis_connect(const struct sim_model *m, const struct sim_dev *d);
bool sim_vis_dsm(const struct sim_model *m, const struct sim_dev *d);
bool sim_vis_bound(const struct sim_model *m, const struct sim_dev *d);
bool sim_vis_devsec(const struct sim_model *m, const struct sim_dev *d);
struct sim_driver *sim_model_find_driver(struct sim_model *m, const char *name);
struct sim_module *sim_model_find_module(struct sim_model *m, const char *name);
bool sim_module_live(const struct sim_model *m, const char *name);
bool sim_driver_registered(const struct sim_model *m, const struct sim_driver *drv);
bool sim_dev_has_ctx(const struct sim_dev *d);
unsigned sim_vf_index(const struct sim_dev *vf);
unsigned sim_hb_available(const struct sim_host_bridge *hb);
bool sim_tsm_serves_dev(const struct sim_tsm *t, const struct sim_dev *d);
bool sim_hb_links_tsm(const struct sim_model *m, const struct sim_host_bridge *hb,
		      const struct sim_tsm *t);

/* sim-ide.c: register-level IDE model, mirrors drivers/pci/ide.c */
void sim_ide_boot(struct sim_model *m);
int sim_ide_stream_alloc(struct sim_model *m, struct sim_dev *ep,
			 struct sim_ide_stream **out);
int sim_ide_stream_register(struct sim_model *m, struct sim_ide_stream *s);
void sim_ide_stream_unregister(struct sim_ide_stream *s);
bool sim_ide_stream_name_taken(const struct sim_model *m,
			       const struct sim_host_bridge *hb, const char *name);
unsigned sim_ide_stream_nr_addr(const struct sim_ide_stream *s, bool rp);
void sim_ide_stream_setup(struct sim_ide_stream *s, bool rp);
void sim_ide_stream_teardown(struct sim_ide_stream *s, bool rp);
int sim_ide_stream_enable(struct sim_ide_stream *s, bool rp);
void sim_ide_stream_disable(struct sim_ide_stream *s, bool rp);
void sim_ide_stream_free(struct sim_model *m, struct sim_ide_stream *s);
void sim_ide_stream_release(struct sim_model *m, struct sim_ide_stream *s);
int sim_tsm_stream_register(struct sim_model *m, struct sim_ide_stream *s);
void sim_ide_enumerate_hb(struct sim_model *m, struct sim_host_bridge *hb);
void sim_tsm_stream_unregister(struct sim_model *m, struct sim_ide_stream *s);

/* sim-config.c */
size_t sim_config_size(const struct sim_dev *d);
void sim_config_build(const struct sim_dev *d, uint8_t *buf);
unsigned sim_config_ext_end(const struct sim_dev *d);
bool sim_config_is_bridge(const struct sim_dev *d);

/* sim-connect.c: pci_tsm_connect()/disconnect() and the providers */
int sim_parse_tsm_name(const char *buf, size_t len, long *id);
bool sim_sysfs_streq(const char *buf, size_t len, const char *name);
int sim_connect(struct sim_model *m, struct sim_dev *d, long tsm_id);
void sim_tsm_init(struct sim_model *m, struct sim_dev *d);
int sim_disconnect(struct sim_model *m, struct sim_dev *d, const char *buf,
		   size_t len);
void sim_vanish(struct sim_model *m, struct sim_dev *d);
int sim_boot_connects(struct sim_model *m, char **err);
enum sim_sample_op { SAMPLE_BIND, SAMPLE_UNBIND, SAMPLE_REQUEST };
int sim_sample_trigger(struct sim_model *m, struct sim_tsm *t, const char *buf,
		       size_t len, enum sim_sample_op op);
void sim_tsm_teardown(struct sim_model *m, struct sim_tsm *t);

/* sim-tdisp.c: proposed devsec lock/accept/unlock, driver bind/unbind */
int sim_kstrtobool(const char *s, bool *res);
int sim_lock(struct sim_model *m, struct sim_dev *d, long tsm_id);
int sim_accept(struct sim_model *m, struct sim_dev *d, const char *buf);
int sim_unlock(struct sim_model *m, struct sim_dev *d, const char *buf,
	       size_t len);
int sim_boot_locks(struct sim_model *m, char **err);
void sim_unlock_dev(struct sim_dev *d);

/* sim-module.c: modules, the PCI driver model, TSM ids (drivers/base, kernel/module) */
#define EPROBE_DEFER 517
int sim_module_boot(struct sim_model *m, char **err);
int sim_module_load(struct sim_model *m, const char *name, char **params, size_t n);
int sim_module_unload(struct sim_model *m, const char *name);
void sim_tsm_assign_id(struct sim_model *m, struct sim_tsm *t);
void sim_tsm_platform_init(struct sim_model *m, const struct sim_tsm *t);
void sim_tsm_unregister_now(struct sim_model *m, struct sim_tsm *t);
int sim_driver_bind_store(struct sim_model *m, struct sim_driver *drv,
			  const char *buf, size_t len, bool bind);
int sim_driver_id_store(struct sim_model *m, struct sim_driver *drv,
			const char *buf, bool add);
int sim_driver_override_store(struct sim_dev *d, const char *buf, size_t len);
void sim_event_queue(struct sim_model *m, const char *action, const char *dir,
		     const char *subsystem);
void sim_events_clear(struct sim_model *m);

/* sim-iomem.c: proc/iomem (kernel/resource.c r_show) */
char *sim_iomem_render(const struct sim_model *m);

/* sim-report.c: configfs-tsm attestation reports (drivers/virt/coco/guest/report.c) */
enum sim_report_attr {
	RA_INBLOB, RA_OUTBLOB, RA_AUXBLOB, RA_MANIFESTBLOB,	/* binary */
	RA_PROVIDER, RA_GENERATION, RA_PRIVLEVEL, RA_PRIVLEVEL_FLOOR,
	RA_SERVICE_PROVIDER, RA_SERVICE_GUID, RA_SERVICE_MANIFEST_VERSION,
	RA_COUNT
};
#define REPORT_ROOT "sys/kernel/config/tsm/report"
const char *sim_report_attr_name(enum sim_report_attr a);
bool sim_report_attr_is_bin(enum sim_report_attr a);
unsigned sim_report_attr_mode(enum sim_report_attr a);
bool sim_report_attr_visible(const struct sim_model *m, enum sim_report_attr a);
int sim_report_attr_lookup(const char *name);
const char *sim_report_provider_name(enum sim_report_provider p);
struct sim_report_entry *sim_report_find(struct sim_model *m, const char *name);
int sim_report_mkdir(struct sim_model *m, const char *name);
int sim_report_rmdir(struct sim_model *m, const char *name);
void sim_report_put(struct sim_report_entry *e);
int sim_report_store(struct sim_model *m, struct sim_report_entry *e,
		     enum sim_report_attr a, const char *buf);
int sim_report_commit_inblob(struct sim_model *m, struct sim_report_entry *e,
			     const uint8_t *data, size_t len);
int sim_report_show(struct sim_model *m, struct sim_report_entry *e,
		    enum sim_report_attr a, uint8_t **out, size_t *len);
void sim_report_free_all(struct sim_model *m);

/* sim-evidence.c: device evidence (ABI.md §1.6), its objects generated from the topology */
int sim_evidence_load_chains(struct sim_model *m, const char *dir, char **err);
void sim_evidence_create(struct sim_model *m, struct sim_dev *d);
bool sim_evidence_present(const struct sim_model *m, const struct sim_dev *d);
/* The object TYPE (or its digest) of a device with evidence; no copy is made. */
void sim_evidence_object(const struct sim_model *m, const struct sim_dev *d, unsigned type,
			 bool digest, const uint8_t **data, size_t *len);
/* The provider's refresh_evidence(): 0, or -EOPNOTSUPP without one. */
int sim_evidence_refresh(struct sim_model *m, struct sim_dev *d, const uint8_t *nonce, size_t len);
/* The sample's evidence inputs are EBUSY while a sample DSM is connected. */
bool sim_sample_evidence_busy(const struct sim_model *m);
void sim_evidence_free(struct sim_dev *d);

/* sim-evidence-sign.c: the device's side of a signed MEASUREMENTS exchange */
/* The GET_MEASUREMENTS a provider sends (every block; 1.3's CONTEXT 8 bytes) into OUT (>= 45). */
size_t sim_meas_request(uint8_t *out, uint8_t version, bool sign, const uint8_t nonce[32],
			uint8_t slot, const uint8_t *context);
struct evp_pkey_st;	/* libcrypto's EVP_PKEY */
/* The private key gen-cert-chain wrote for CHAIN's leaf, loaded with the chains; NULL if none. */
struct evp_pkey_st *sim_leaf_key(const struct sim_model *m, const char *chain);
/* KEY's signature over L1 (the VCA from 1.2, REQ, RSP) into SIG (>= 512 bytes): its length, 0 failed. */
size_t sim_meas_sign(struct evp_pkey_st *key, uint8_t version, const uint8_t *vca, size_t vca_len,
		     const uint8_t *req, size_t req_len, const uint8_t *rsp, size_t rsp_len,
		     uint8_t *sig);

/* sim-evidence-netlink.c: the device-evidence family on an AF_UNIX SOCK_SEQPACKET socket */
#define EVIDENCE_FILE "tsm-sim-evidence"
/* Make the socket (before daemonising); its path in *PATH. 0 or -errno. */
int sim_evnl_listen(char **path);
/* Serve it from a thread (after daemonising). */
int sim_evnl_start(void);
void sim_evnl_stop(void);

/*
 * sim-platform.c: the platform state beside the TSM: tsm-mr measurement
 * registers (tdx_guest), the PSP's security attributes, the SEV-SNP
 * mitigation vectors, PCI serial_number.
 */
#define SIM_TDX_GUEST_DIR "sys/devices/virtual/misc/tdx_guest"
#define SIM_SEV_VULN_DIR "sys/firmware/sev/vulnerabilities"
/* The files of the platform state below ROOT made to match the model (sim-tree.c's sync). */
int sim_platform_sync(const struct sim_model *m, const char *root);
/* Those of one present PCI function below its directory: serial_number, the PSP's. */
int sim_platform_dev_sync(const struct sim_model *m, const struct sim_dev *d, const char *root);
/* REL (below the root) is a binary attribute of the platform state: its st_size is its own. */
bool sim_platform_bin_attr(const struct sim_model *m, const char *rel);
/* A read of REL that the kernel's show() fails: its -errno, else 0 (D: REL's device or NULL). */
int sim_platform_read_errno(const struct sim_model *m, const struct sim_dev *d, const char *attr);
/*
 * A write(2) of SIZE bytes at OFF to REL if it is a store of the platform
 * state: true, *RC the kernel's answer (bytes taken or -errno); else false.
 */
bool sim_platform_store(struct sim_model *m, const char *rel, const char *buf, size_t size,
			off_t off, ssize_t *rc);
/* RTMR I (0..3) extended with 48 bytes of DATA, as a store to it does: 0 or -errno. */
int sim_platform_rtmr_extend(struct sim_model *m, unsigned i, const uint8_t *data);

/* sim-gen.c: the large benchmark topology */
struct sim_gen_params {
	unsigned long functions, host_bridges, streams;
	const char *abi;
	/* other shapes (1, 2, 1, 0, 0 and false: gen-large's own) */
	unsigned long switch_depth;	/* switches between a root port and its NICs */
	unsigned long sel_blocks;	/* a NIC's Selective blocks; its stream uses block j mod K */
	unsigned long addr_assoc;	/* address associations per Selective block */
	unsigned long faulty;		/* streams with a fault, and as many dangling links */
	unsigned long ext_caps;		/* other extended capabilities on PFs and ports */
	bool dependents;	/* the TSM gives a DSM's other functions and VFs contexts */
	bool port_ide;		/* every port without a stream has IDE too */
	bool tdx;		/* an Intel TDX Connect host instead (proposed ABI) */
	bool fanout;		/* every other device behind a switch port of its own */
	unsigned long empty_slots;	/* hot-plug downstream ports with nothing below */
	bool vmd;		/* every host bridge a VMD domain below a VMD endpoint */
	unsigned long crowded;	/* streams on the last host bridge, each on a root port of its own */
	bool evidence;		/* every connected NIC hands out evidence: a few shared chains */
};
int sim_gen_large(const struct sim_gen_params *p, const char *out, char **err);

/* sim-tree.c */
int sim_tree_sync(struct sim_model *m, const char *root);
int sim_tree_sync_reports(struct sim_model *m, const char *root);

/* sim-fsutil.c; sim_x*(): allocation that aborts when it fails (a test tool) */
void *sim_xcalloc(size_t n, size_t size);
void *sim_xrealloc(void *p, size_t n, size_t size);
char *sim_xstrdup(const char *s);
char *sim_path_join(const char *a, const char *b);
char *sim_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sim_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *sim_rel_link(const char *from_dir, const char *to);
int sim_fs_mkdir_p(const char *root, const char *rel);
/* pread of a value file, never between sim_fs_put()'s write and its cut: bytes or -errno */
ssize_t sim_fs_pread(int fd, void *buf, size_t size, off_t off);
int sim_fs_put(const char *root, const char *rel, const void *data, size_t len,
	       unsigned mode);
int sim_fs_put_str(const char *root, const char *rel, const char *s, unsigned mode);
int sim_fs_put_sized(const char *root, const char *rel, uint64_t size, unsigned mode);
int sim_fs_link(const char *root, const char *rel, const char *target);
int sim_fs_remove(const char *root, const char *rel);
int sim_fs_rm_rf(const char *path);
bool sim_fs_exists(const char *root, const char *rel);

/* sim-uevent.c: kobject uevents on NETLINK_KOBJECT_UEVENT group 1 */
int sim_uevent_allowed(char **why);
int sim_uevent_send(const char *action, const char *dir, const char *subsystem);
/*
 * A write of BUF to DIR's uevent file: kobject_synth_uevent(), "ACTION [UUID
 * [KEY=VALUE...]]", sent with SYNTH_UUID (and SYNTH_ARG_*) when SEND and the
 * object has a SUBSYSTEM (NULL: no bus or class, filtered). 0 or -EINVAL.
 */
int sim_uevent_synth(const char *dir, const char *subsystem, const char *buf, size_t count,
		     bool send);

/* sim-control.c: the live mount's test-only control file (outside sys/) */
#define CONTROL_FILE "tsm-sim-control"
enum sim_control_op { CTL_NONE, CTL_REGISTER, CTL_PCI_REGISTER, CTL_UNREGISTER, CTL_MODULE };
/* Parse and apply one command under the lock; op and tsm say what sim-fuse-store.c must finish. */
int sim_control_apply(struct sim_model *m, const char *buf, size_t len,
		      enum sim_control_op *op, struct sim_tsm **tsm);

/* sim-cost.c: the live mount's config space counts and cost per access (outside sys/) */
#define STATS_FILE "tsm-sim-stats"
void sim_cost_config_read(const struct sim_dev *d, off_t off, size_t n);
/* The stats text, made afresh for each read (malloc'd); *len is its length. */
char *sim_cost_stats_text(size_t *len);
int sim_cost_set_cycle_ns(const char *arg);
/* 0 or -errno for a cost command on the control file, 1 for any other */
int sim_cost_control(const char *buf, size_t len);

/* sim-modprobe.c: "tsm-sim modprobe MOUNT ...", kmod's modprobe against a live mount */
int sim_modprobe_main(int argc, char **argv);

/* sim-fuse.c: the live mount */
int sim_fuse_serve(struct sim_model *m, const char *mountpoint, bool foreground,
		   bool debug);

#endif
