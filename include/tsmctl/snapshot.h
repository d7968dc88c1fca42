/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of one scan: TSMs, host bridges, TSM-relevant PCI functions and
 * IDE streams, each linked to its neighbours. Commands read this, never sysfs.
 * A NULL string or a negative number means "absent in this tree" (JSON null).
 */
#ifndef TSMCTL_SNAPSHOT_H
#define TSMCTL_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ide.h"

struct tsm;
struct host_bridge;
struct pci_func;
struct ide_stream;

/* One BAR as the kernel's resource file gives it (read with SCAN_DETAIL). */
struct pci_bar {
	unsigned int index;	/* 0-5; 6 is the expansion ROM */
	uint64_t start, end;
	uint64_t flags;		/* IORESOURCE_*: include/linux/ioport.h */
};

struct tsm {
	char *name;		/* "tsm0" */
	int id;
	char *dir;		/* canonical root-relative class device dir */
	char *mode;		/* pci_mode: "link", "devsec", ...; NULL on v6.19 */
	bool has_pci_mode;
	int mode_err;		/* -errno: pci_mode exists but could not be read */
	char *provider;		/* parent device name (PCI BDF or faux name) */
	char *provider_dir;
	char *driver;		/* provider's driver, NULL if unbound */
	char *module;		/* provider driver's module, NULL if built in */
	char *provider_version;	/* the provider device's version (the TDX module's), NULL if none */
	char **hb_links;	/* proposed ABI: pciDDDD:BB entries, NULL if none */
	size_t nr_hb_links;
	char **stream_links;	/* 6.19-rc1 flavour: streamH.R.E entries, NULL if none */
	size_t nr_stream_links;
	size_t connected_devices;
	size_t nr_streams;
	/* SCAN_PLATFORM, a SEV-TIO TSM: its PSP's security attributes (ABI.md §7.2); else NULL */
	struct psp_security *psp;
};

struct host_bridge {
	char *name;		/* "pci0000:40" */
	char *dir;		/* canonical, e.g. sys/devices/pci0000:40 */
	unsigned int domain;
	unsigned int bus;
	long long available_streams;	/* -1 when the file is absent */
	int available_err;		/* -errno reading it, 0 if fine or absent */
	struct ide_stream **streams;
	size_t nr_streams;
	char **bad_links;	/* stream* entries that are no streamH.R.E name (ABI.md §1.3), sorted */
	size_t nr_bad_links;
	/* TSMs using it: tsmN/pciDDDD:BB links and the streams' TSMs, by id (a pool may be shared) */
	struct tsm **tsms;
	size_t nr_tsms;
};

/*
 * What pci_ide_init() made of a function's IDE at enumeration (ABI.md §2.4):
 * it claims the Stream ID of every block found enabled, once per host
 * bridge, and returns before it records the capability at the first claim
 * that fails, so that function has no usable IDE; nor has an endpoint below
 * a root port without it. Judged by snapshot_judge_ide_claims() over the
 * functions a scan read, in the kernel's order.
 */
enum ide_claim_state {
	IDE_CLAIM_UNKNOWN,	/* not judged: no IDE, or its enabled blocks not read */
	IDE_CLAIM_OK,		/* every enabled block's Stream ID was free */
	IDE_CLAIM_RESERVED,	/* a block enabled with the reserved Stream ID 255 */
	IDE_CLAIM_TAKEN,	/* a block whose Stream ID HOLDER claimed first */
	IDE_CLAIM_ROOT_PORT,	/* an endpoint whose root port (HOLDER) has no usable IDE */
};

struct ide_claim {
	enum ide_claim_state state;
	bool link;		/* the failed block is a Link block, else a Selective one */
	unsigned int block, stream_id;
	const struct pci_func *holder;	/* TAKEN: who claimed the ID (maybe itself); ROOT_PORT: the port */
	bool holder_link;
	unsigned int holder_block;
};

/* What a scan could learn about one PCI function. */
struct pci_func {
	char *bdf;		/* canonical "0000:41:00.0" */
	char *dir;		/* canonical root-relative device dir; NULL if unresolvable */
	unsigned int domain, bus, dev, fn;
	struct host_bridge *hb;
	struct pci_func *root_port;	/* first PCI device below the host bridge */
	struct pci_func *parent;	/* the bridge above it, NULL below the host bridge (SCAN_TREE) */
	char *driver;

	/* config space, decoded once */
	bool cfg_read;
	int cfg_err;		/* -errno reading config, 0 if read */
	int gone;		/* -errno: its directory is not there (a dangling link's target) */
	bool needs_root;	/* kernel returned only the 64-byte header */
	struct pci_cfg cfg;
	bool ids_known;		/* cfg's vendor, device and class: from config or the ID files */
	uint8_t *sel_want;	/* a stream partner: bitmap of the Selective blocks shown */

	/* tsm/ attribute group (ABI.md §1.2); recognised by its files */
	bool tsm_dir;
	bool connect_read;
	char *connect, *dsm, *bound, *authenticated;
	char *lock, *accept;
	bool has_connect, has_dsm, has_bound, has_authenticated, has_lock, has_accept;
	/*
	 * Why an attribute that exists has no usable value: -errno reading it
	 * (its value NULL), or -EBADMSG: read, but not what the kernel prints
	 * (its text kept). 0 when read well, or absent.
	 */
	int connect_err, dsm_err, bound_err, auth_err, lock_err, accept_err;
	int tsm_err;		/* -errno: tsm/ is there but its files cannot be seen */

	char **doe_features;	/* "VVVV:TT", sorted */
	size_t nr_doe_features;
	bool doe_known;		/* doe_features/ read, or config space shows no DOE at all */

	/*
	 * The windows of the bridge right above F (ABI.md §2.6: what TDX Connect
	 * puts into the root port's address association), read for unconnected
	 * DSM candidates while a TDX Connect TSM is registered.
	 */
	char *upstream;		/* that bridge's BDF, NULL when not read */
	struct ide_addr_assoc up_mem, up_pref;

	/* SR-IOV: read with SCAN_IDE_PORTS or SCAN_DETAIL; audit and metrics read only what they judge */
	char *physfn;		/* a VF's PF (physfn link), NULL otherwise */
	bool has_sriov;		/* sriov_numvfs/offset/stride read */
	unsigned int sriov_numvfs, sriov_offset, sriov_stride;

	/* SCAN_DETAIL: the resource file's BARs in use, and the iommu_group link */
	bool bars_known;	/* resource was read */
	struct pci_bar *bars;
	size_t nr_bars;
	char *iommu_group;	/* the group's number, NULL without the link */

	/* SCAN_DETAIL: serial_number (ABI.md §7.4), NULL when absent or unreadable (serial_err) */
	char *serial_number;
	bool has_serial;	/* the attribute exists */
	int serial_err;		/* -errno reading it (-EACCES: needs root), -EBADMSG not "%8phD" */

	struct ide_claim ide_claim;	/* snapshot_judge_ide_claims() */

	struct tsm *connected_tsm;	/* resolved from `connect` */
	struct pci_func *dsm_func;	/* resolved from `dsm` */
	bool listed;		/* selected for the devices view */
	bool bus_listed;	/* sys/bus/pci/devices lists it (known with SCAN_ALL_FUNCS) */
};

struct ide_stream {
	char *name;		/* "stream0.0.0" */
	unsigned int h, r, e;
	struct host_bridge *hb;
	char *target;		/* canonical endpoint dir, NULL if unresolvable */
	bool dangling;		/* no endpoint below this host bridge: see link_err */
	/*
	 * Why the link names no endpoint: -ENOENT its target does not exist,
	 * -ELOOP a link loop, -EXDEV it leads out of the tree, -EINVAL the entry
	 * is no symbolic link, -ENODEV its target is no PCI function, other
	 * -errno: the target could not be examined; 0 when it names one (which
	 * may still lie below another host bridge: dangling then).
	 */
	int link_err;
	/*
	 * Another link of this host bridge names the same Selective block of a
	 * partner and is the stream those registers belong to: this one is a
	 * stray (snapshot_mark_duplicates()). NULL for a stream of its own.
	 */
	const struct ide_stream *dup_of;
	struct pci_func *endpoint;
	struct pci_func *root_port;
	struct tsm *tsm;	/* the endpoint's connected TSM, else the TSM naming it (rc1) */
	const char *link_dir;	/* where the link is: NULL = the host bridge dir */
	const struct tsm *rc1_tsm;	/* 6.19-rc1 flavour: the TSM linking it as tsmN/streamH.R.E */
	/*
	 * For a provider with its own address-association rule (TDX Connect),
	 * read by an audit scan: the root port block's associations and the
	 * windows of the endpoint's upstream bridge (ABI.md §2.3, §2.6).
	 */
	bool assoc_read;
	unsigned int rp_nr_addr;
	struct ide_addr_assoc *rp_addr;
	struct ide_addr_assoc up_mem, up_pref;
};

/* A directory entry that is not the object its name promises, and what it is instead. */
struct bad_entry {
	char *name;
	/*
	 * -ENOTDIR not a directory, -ELOOP a link loop, -ENOENT a dangling
	 * link, -EXDEV a link out of the tree, -EACCES not readable, -ENODATA
	 * a directory without the object's files, -EBADMSG a name the kernel
	 * does not make.
	 */
	int err;
};

/* What ERR of a struct bad_entry (or of a directory read) says it is: "a link loop", ... */
const char *bad_entry_kind(int err);

/* ---- the platform state beside the TSM (ABI.md §7), read with SCAN_PLATFORM / SCAN_MEASUREMENTS ---- */

/* The PSP's security bits (sysfs-driver-ccp, ABI.md §7.2), in the kernel's order. */
enum psp_bit {
	PSP_FUSED_PART, PSP_BOOT_INTEGRITY, PSP_DEBUG_LOCK_ON, PSP_TSME_STATUS,
	PSP_ANTI_ROLLBACK, PSP_RPMC_PRODUCTION, PSP_RPMC_SPIROM, PSP_HSP_TPM, PSP_ROM_ARMOR,
	PSP_NR_BITS
};
/* "fused_part", ... : each bit's attribute */
extern const char *const psp_bit_attr[PSP_NR_BITS];

struct psp_security {
	const char *function;	/* the PSP's BDF: its TSM's provider */
	/* 1 or 0; -ENOENT absent, other -errno unreadable, -EBADMSG not what the kernel prints */
	int bit[PSP_NR_BITS];
	char *bootloader_version, *tee_version;	/* "AA.BB.CC.DD"; NULL: absent or unreadable */
	int bootloader_err, tee_err;		/* as bit[] */
};

/* One register of a tsm-mr measurements/ group (ABI.md §7.1). */
struct measurement_register {
	char *file;		/* the attribute: "rtmr0:sha384", "mrconfigid" */
	char *name;		/* before the colon: "rtmr0" */
	char *hash;		/* after it: "sha384"; NULL for a register without one */
	unsigned int mode;	/* its permission bits: 0200 set = extendable */
	uint8_t *value;		/* NULL when unreadable */
	size_t len;
	int err;		/* -errno reading it */
};

/* A misc device's measurements/ group: the registers of one guest driver. */
struct measurements {
	char *device;		/* "tdx_guest" */
	char *dir;		/* root-relative path of its measurements/ */
	struct measurement_register *regs;	/* sorted by file name */
	size_t nr_regs;
	int err;		/* -errno listing it */
};

/* The SEV-SNP mitigation vectors (ABI.md §7.3). */
struct sev_mitigations {
	bool present;		/* sys/firmware/sev/vulnerabilities exists */
	int supported_err, verified_err;	/* 0, -errno (-EACCES: root only), -EBADMSG */
	uint64_t supported, verified;
};

struct tsm_snapshot {
	bool have_tsm_class;	/* sys/class/tsm could be listed */
	int tsm_class_err;	/* why not: -ENOENT absent, -EACCES unreadable, -ENOTDIR ... */
	struct bad_entry *bad_tsms;	/* entries of sys/class/tsm that are no TSM */
	size_t nr_bad_tsms;
	int pci_devices_err;	/* sys/bus/pci/devices could not be listed: -errno */
	struct tsm **tsms;
	size_t nr_tsms;
	struct host_bridge **hbs;
	size_t nr_hbs;
	struct pci_func **funcs;	/* only those the scan needed, sorted by BDF */
	size_t nr_funcs;
	struct ide_stream **streams;	/* by host bridge, then H.R.E */
	size_t nr_streams;
	bool any_needs_root;	/* some config space came back as 64 bytes */
	size_t nr_cfg_unreadable;	/* config files that could not be read at all */
	int cfg_unreadable_err;		/* the first one's -errno */
	/* faux tdx_host's version: the TDX module's, on any TDX host, TSM or not (ABI.md §2.6) */
	char *tdx_module_version;
	/* SCAN_MEASUREMENTS: every misc device's tsm-mr group (ABI.md §7.1) */
	struct measurements *mr_groups;
	size_t nr_mr_groups;
	/* SCAN_PLATFORM: the SEV-SNP mitigation vectors (ABI.md §7.3) */
	struct sev_mitigations sev_mit;
};

/* What a command needs; the scan does no more than that. */
enum scan_flags {
	SCAN_TSMS	= 1u << 0,
	SCAN_HBS	= 1u << 1,
	SCAN_STREAMS	= 1u << 2,	/* implies SCAN_HBS */
	SCAN_DEVICES	= 1u << 3,	/* functions with a tsm/ group */
	SCAN_ALL_FUNCS	= 1u << 4,	/* every IDE/TEE-capable PCIe function */
	/* config of the root-bus ports of host bridges with a pool; SR-IOV of tsm/ functions */
	SCAN_IDE_PORTS	= 1u << 5,
	/* every function's path to its host bridge: the bridges between, with parent set */
	SCAN_TREE	= 1u << 6,
	/* each function's config in full, its BARs, IOMMU group and SR-IOV (devices -v) */
	SCAN_DETAIL	= 1u << 7,
	/* the PSP's security attributes of SEV-TIO TSMs, the SEV-SNP mitigations (ABI.md §7.2, §7.3) */
	SCAN_PLATFORM	= 1u << 8,
	/* the tsm-mr measurement registers of guest drivers (ABI.md §7.1) */
	SCAN_MEASUREMENTS = 1u << 9,
};

/* Scan sysfs into SNAP. Never fails: what cannot be read is absent (or -errno) in the model. */
void snapshot_scan(struct tsm_snapshot *snap, unsigned int flags);
void snapshot_free(struct tsm_snapshot *snap);

/* qsort orders of the model's lists: BDF; domain and bus; H, R, E. */
int func_cmp(const void *a, const void *b);
int hb_cmp(const void *a, const void *b);
int stream_cmp(const void *a, const void *b);

struct tsm *snapshot_find_tsm(const struct tsm_snapshot *snap, const char *name);
/* The link TSM a hint names (the lowest numbered), NULL without one. */
const struct tsm *snapshot_first_link_tsm(const struct tsm_snapshot *snap);
struct host_bridge *snapshot_find_hb(const struct tsm_snapshot *snap, const char *name);
struct pci_func *snapshot_find_func(const struct tsm_snapshot *snap, const char *bdf);
/* The host bridge whose directory holds DIR (the deepest: a VMD domain's sits below another's). */
struct host_bridge *snapshot_hb_holding(const struct tsm_snapshot *snap, const char *dir);
/*
 * The host bridges of the functions NAME (a BDF, or a slot "DDDD:BB:DD.*")
 * names, looked up in sysfs like the filters' names: any PCI function, not
 * only those the scan needed. Adds each to HBS (N entries, room for
 * snap->nr_hbs) once.
 */
void snapshot_device_hbs(const struct tsm_snapshot *snap, const char *name,
			 const struct host_bridge **hbs, size_t *n);

/* What filters named: canonical BDFs or slots "DDDD:BB:DD.*", tsmN, pciDDDD:BB. */
struct snapshot_names {
	char *const *devices;
	size_t nr_devices;
	char *const *tsms;
	size_t nr_tsms;
	char *const *hbs;
	size_t nr_hbs;
};

enum snapshot_missing_kind {
	SNAPSHOT_NO_DEVICE,	/* no such PCI device in sysfs (scanned or not) */
	SNAPSHOT_NO_SLOT,	/* no function of the slot */
	SNAPSHOT_NO_TSM,
	SNAPSHOT_NO_HB,
};

struct snapshot_missing {
	enum snapshot_missing_kind kind;
	const char *name;	/* points into the snapshot_names */
};

/*
 * 0 when the tree has every object WANT names; else -ENOENT and the first one
 * missing. Devices are looked up in sysfs (scan.c): a filter may name any PCI
 * function, not only those the scan needed.
 */
int snapshot_find_missing(const struct tsm_snapshot *snap, const struct snapshot_names *want,
			  struct snapshot_missing *missing);

/* ---- accessors: the model's answers, shared by views, actions and audit ---- */

/* Config space decoded far enough to trust fields past the header. */
bool func_cfg_known(const struct pci_func *f);
/* Unreadable for lack of privilege: 64-byte header only, or EACCES/EPERM outright. */
bool func_cfg_needs_root(const struct pci_func *f);
/*
 * What a function is by what every user may read (ABI.md §3): its header
 * type in the first 64 bytes, or, config unreadable, the class the kernel's
 * class file gives (0604 and 0609 a PCI bridge, 0607 CardBus). A port or an
 * endpoint, not which: that is the PCIe capability's, past the header.
 */
enum func_kind { FUNC_KIND_UNKNOWN, FUNC_KIND_ENDPOINT, FUNC_KIND_BRIDGE, FUNC_KIND_CARDBUS };
enum func_kind func_header_kind(const struct pci_func *f);
/* tsm/connect names a TSM (F may be NULL). */
bool func_connected(const struct pci_func *f);
/*
 * The TSM holding the function's TDISP lock: what tsm/lock names, unless that
 * is a link TSM's connection (tsm/lock names any context holder, ABI.md §1.2),
 * which tsm/connect or tsm/dsm then show. NULL when unlocked, absent or F NULL.
 */
const char *func_lock_holder(const struct pci_func *f);
/* tsm/accept: 1 or 0; -1 when absent, unreadable or neither "0" nor "1". */
int func_accepted(const struct pci_func *f);
/* tsm/connect exists, was read, and names no TSM: a DSM that is not connected. */
bool func_not_connected(const struct pci_func *f);
/*
 * The DSM a function belongs to as a dependent: what tsm/dsm names, else
 * (unconnected) function 0 of its slot, for a VF function 0 of its PF's
 * slot, when the snapshot has it (ABI.md §2.2: the kernel's dependents).
 * NULL for a DSM candidate itself, or when none is known.
 */
const struct pci_func *func_dsm_of(const struct tsm_snapshot *snap, const struct pci_func *f);
/*
 * The function whose evidence speaks for F (ABI.md §1.6): F itself when it
 * has some (a connected DSM, a TDI locked to a devsec TSM), else its DSM
 * (func_dsm_of()) when that is connected, as `evidence` reads a dependent's.
 * NULL: none.
 */
const struct pci_func *func_evidence_holder(const struct tsm_snapshot *snap,
					    const struct pci_func *f);
/* Is A on B's path to its host bridge (SCAN_TREE's parents)? */
bool func_is_ancestor(const struct pci_func *a, const struct pci_func *b);
/*
 * The TSM of a function, what -t matches: the one it is connected to, else
 * the one holding its lock, else its DSM's (a dependent's context). NULL: none.
 */
const char *func_tsm(const struct pci_func *f);

#define DOE_FEATURE_CMA		"0001:01"	/* CMA/SPDM (ABI.md §3, other constants) */
#define DOE_FEATURE_SSESSION	"0001:02"	/* secure CMA/SPDM */
/* Does doe_features list FEATURE ("VVVV:TT")? False also when they are unknown. */
bool func_has_doe(const struct pci_func *f, const char *feature);

/* v6.19 has no pci_mode: every TSM registered there is a link TSM (ABI.md §1.1). */
bool tsm_is_link(const struct tsm *t);
/* pci_mode says the TSM is not a devsec one (without pci_mode the kernel must tell). */
bool tsm_not_devsec(const struct tsm *t);
/* Intel TDX Connect's link TSM: registered on the tdx_host faux device (ABI.md §2.6). */
bool tsm_is_tdx_connect(const struct tsm *t);
/* AMD SEV-TIO's TSM: registered on the PSP's PCI function, driver ccp (ABI.md §2.5). */
bool tsm_is_sev_tio(const struct tsm *t);

/* Has the kernel taken a registered TSM on for PCI (ABI.md §1.1, §2.8)? */
enum tsm_pci_side {
	TSM_PCI_SHOWN,		/* its pci_mode, or (v6.19) a function's tsm/ group shows it */
	TSM_PCI_NOT_YET,	/* other TSMs show pci_mode and this one not yet */
	TSM_PCI_NO_GROUP,	/* v6.19 and no function shows tsm/: not yet, or no DSM candidate */
};
enum tsm_pci_side tsm_pci_side(const struct tsm_snapshot *snap, const struct tsm *t);
/*
 * Would the kernel show tsm/connect on F once a link TSM is registered
 * (is_pci_tsm_pf0(), ABI.md §2.1)? False when its config space is unknown.
 */
bool func_dsm_candidate(const struct pci_func *f);

/*
 * Does the TSM's provider link its streams into the TSM's directory (the
 * kernel's tsm_ide_stream_register(): tsmN/pciDDDD:BB, or tsmN/streamH.R.E
 * in the 6.19-rc1 flavour; ABI.md §1.1)? The devsec sample, TDX Connect and
 * Arm CCA do; SEV-TIO (ccp) never does. Another provider: known once the
 * tree shows one of its links.
 */
enum tsm_stream_links { TSM_LINKS_UNKNOWN, TSM_LINKS_NEVER, TSM_LINKS_MADE };
enum tsm_stream_links tsm_stream_links(const struct tsm *t);

/* Functions whose TDISP lock T holds (func_lock_holder()); of those accepted into *ACCEPTED. */
size_t tsm_nr_locked(const struct tsm_snapshot *snap, const struct tsm *t, size_t *accepted);
/*
 * The names of the host bridges with T's streams (hb_has_tsm()), in SNAP's
 * order, into OUT (room for snap->nr_hbs); returns how many.
 */
size_t tsm_hb_names(const struct tsm_snapshot *snap, const struct tsm *t, const char **out);

/*
 * The TSMs F provides, as their class devices' parent (the PSP on SEV-TIO,
 * ABI.md §2.5), in SNAP's order, into OUT (room for snap->nr_tsms); how many.
 */
size_t func_provided_tsms(const struct tsm_snapshot *snap, const struct pci_func *f,
			  const char **out);
/* T is one of the TSMs using HB (its streams, or its tsmN/pciDDDD:BB link). */
bool hb_has_tsm(const struct host_bridge *hb, const struct tsm *t);
/* The host bridge shows no available_secure_streams (and reading did not fail): no IDE pool. */
bool hb_no_pool(const struct host_bridge *hb);
/* available_secure_streams reads 0: a pool whose every stream is in use. */
bool hb_exhausted(const struct host_bridge *hb);
/*
 * Why F cannot be connected for lack of a pool: "its host bridge pciDDDD:BB
 * has no IDE stream pool (...)"; NULL when it has one (TDX: no ACPI KEYP
 * entry, ABI.md §1.3, §2.6).
 */
char *func_no_pool_reason(const struct pci_func *f);

/*
 * Why a connect of F to T (NULL: any link TSM) must fail, from what the tree
 * shows, or NULL when nothing rules it out: the one judgement audit's hints,
 * connect --all and the views share (ABI.md §2.1, §2.3, §2.5, §2.6). A
 * DSM that is no PCIe endpoint, or without IDE (itself or its root port),
 * gets no stream from the kernel's helpers; no CMA/SPDM DOE mailbox, no
 * session; SEV-TIO also needs secure SPDM on it; and a host bridge without
 * a pool has no stream to give.
 */
char *func_connect_blocker(const struct pci_func *f, const struct tsm *t);
/*
 * TDX Connect's own refusal (tdx_ide_stream_create(), ABI.md §2.6): the root
 * port's memory association is forced off and the stream is refused with
 * EFAULT unless exactly one association is left, the prefetchable window of
 * the bridge above F in a root port with association blocks. Why F falls
 * foul of it, or NULL when nothing shows it does.
 */
char *func_tdx_assoc_blocker(const struct pci_func *f);
/*
 * The devsec sample's emulated root port (samples/devsec/bus.c, ABI.md §4):
 * it only stores register writes and the sample enables the endpoint alone,
 * so its IDE blocks never read enabled or SECURE: a rig, not a fault.
 */
bool func_is_devsec_sample_port(const struct pci_func *f);
/*
 * SEV-TIO's rule on DOE mailboxes (ABI.md §2.5): secure SPDM on the mailbox
 * CMA uses. doe_features is the union of every mailbox's features, so with
 * more than one mailbox in config space only the connect can tell; true then.
 */
bool func_doe_mailboxes_ambiguous(const struct pci_func *f);
/* The same for every link TSM of SNAP: NULL when one of them might connect F. */
char *snapshot_connect_blocker(const struct tsm_snapshot *snap, const struct pci_func *f);

/*
 * pci_ide_init()'s claims (ABI.md §2.4) for every function of SNAP whose
 * enabled blocks were read, host bridge by host bridge, in the order the
 * kernel enumerates: by bus, then device and function (bus numbers follow
 * the scan that gave them), VFs after the rest. A function the scan did not
 * read claims nothing here.
 */
void snapshot_judge_ide_claims(struct tsm_snapshot *snap);
/*
 * Why the kernel gave F no usable IDE, in words ("its Selective block 0 was
 * enabled at boot with Stream ID 5, which ..."), or NULL when nothing read
 * shows it (ide_claim).
 */
char *func_ide_unusable_reason(const struct pci_func *f);

/* The endpoint (ENDPOINT) or root port partner, NULL when unknown. */
const struct pci_func *stream_partner(const struct ide_stream *s, bool endpoint);
/* The Selective block a stream uses in one partner (E in the endpoint, R in the root port). */
const struct ide_sel_stream *stream_partner_block(const struct ide_stream *s, bool endpoint);
/* The TSM the stream's endpoint is connected to, NULL when none. */
const char *stream_connected_tsm(const struct ide_stream *s);
/* A link that is a stream of its own: it names an endpoint below its host bridge, and is no stray. */
bool stream_is_real(const struct ide_stream *s);
/*
 * The Selective block the link names in one partner (E in the endpoint, R in
 * the root port) is enabled and SECURE, or has IDE_FAIL set: what the
 * registers say, whether or not the link is a stream of its own (a connect's
 * verification judges every link naming its device).
 */
bool stream_block_secure(const struct ide_stream *s, bool endpoint);
bool stream_block_ide_fail(const struct ide_stream *s, bool endpoint);
/* A stream of its own with block E of the endpoint and block R of the root port both enabled and SECURE. */
bool stream_secure(const struct ide_stream *s);
/* Either partner's block has IDE_FAIL set (it received an IDE Fail message). */
bool stream_ide_fail(const struct ide_stream *s);
/*
 * A stream of its own whose both blocks were read, and which is not secure:
 * a partner disabled, INSECURE or in a reserved state (IDE_FAIL aside).
 */
bool stream_insecure(const struct ide_stream *s);
/* The link names no endpoint below its host bridge (partner state "dangling"). */
bool stream_dangling(const struct ide_stream *s);

/*
 * A stream's state in one word, the one streams --state selects and metrics
 * counts (tsmctl-streams(8), STATE FILTER), the worst first: dangling
 * (stream_dangling()), ide-fail (stream_ide_fail(), SECURE or not), secure
 * (stream_secure()), insecure (stream_insecure()), or unknown (registers
 * unreadable, a stray link): no --state word names it.
 */
enum stream_state {
	STREAM_SECURE, STREAM_INSECURE, STREAM_IDE_FAIL, STREAM_DANGLING,
	STREAM_UNKNOWN, STREAM_NR_STATES
};
enum stream_state stream_state(const struct ide_stream *s);
/* "secure", "insecure", "ide-fail", "dangling", "unknown" */
const char *stream_state_name(enum stream_state state);

/*
 * One partner of a stream, in the words every view uses (tsmctl-streams(8),
 * STATES): what its Selective block's registers say, or why they cannot be
 * judged. IDE_FAIL is told beside it (stream_partner_ide_fail()).
 */
enum partner_state {
	PARTNER_SECURE,		/* enabled, state SECURE */
	PARTNER_INSECURE,	/* enabled, state INSECURE */
	PARTNER_RESERVED,	/* enabled, a state value the specification reserves */
	PARTNER_DISABLED,	/* the block is not enabled: no traffic is protected */
	PARTNER_NO_BLOCK,	/* config read, but no Selective block of that index decoded */
	PARTNER_NEEDS_ROOT,	/* the kernel gave this user the 64-byte header only */
	PARTNER_UNREADABLE,	/* config could not be read at all (-errno opening it) */
	PARTNER_NO_ROOT_PORT,	/* no root port above the endpoint */
	PARTNER_DANGLING,	/* the link names no endpoint below its host bridge */
	PARTNER_DUPLICATE,	/* a stray link: another link's stream holds these blocks */
};
enum partner_state stream_partner_state(const struct ide_stream *s, bool endpoint);
/* The partner's block has IDE_FAIL set (false when it cannot be read). */
bool stream_partner_ide_fail(const struct ide_stream *s, bool endpoint);

/*
 * What the blocks of a SEV-TIO stream that is not SECURE on both partners
 * say of its enable step (ABI.md §2.5). 7.x enables the endpoint, then the
 * root port, and keeps both enable bits whatever either answers; v6.19
 * enabled the root port first, never the endpoint when the root port stayed
 * INSECURE, and cleared the root port again when the endpoint did.
 */
enum stream_enable_shape {
	ENABLE_SHAPE_NONE,	/* secure, unreadable, not SEV-TIO, or no shape the enable step leaves */
	ENABLE_SHAPE_BOTH,	/* both enabled, not both SECURE: 7.x's order (or a later drop) */
	ENABLE_SHAPE_RP_FIRST,	/* RP enabled, not SECURE; EP set up, never enabled: v6.19's order */
	ENABLE_SHAPE_RP_UNDONE,	/* EP enabled, not SECURE; RP control cleared: v6.19's order */
};
enum stream_enable_shape stream_enable_shape(const struct ide_stream *s);
/*
 * The same in words, for connect's note and audit's hints: Linux 7.x's
 * order, or v6.19's; NULL when the blocks tell no such story. Not escaped.
 */
char *stream_enable_story(const struct ide_stream *s);

/*
 * Of links of one host bridge naming the same Selective block of a partner
 * (root port block R, endpoint block E), only one can be the stream those
 * registers belong to: the one whose endpoint block exists and carries the
 * root port block's Stream ID, then whose H lies in the pool, then the
 * lowest H. The others get dup_of. Needs the partners' config (scan.c).
 */
void snapshot_mark_duplicates(struct tsm_snapshot *snap);

/* ---- the platform state (ABI.md §7) ---- */

/* The PSP reports its security state: any of its bits could be read (ABI.md §7.2). */
bool psp_reports_security(const struct psp_security *p);
/* A measurement register the kernel lets root extend (mode 0200, ABI.md §7.1). */
bool mr_extendable(const struct measurement_register *r);
/* The register FILE or NAME ("rtmr2:sha384" or "rtmr2") of any group, NULL when none; *GROUP its group. */
const struct measurement_register *snapshot_find_mr(const struct tsm_snapshot *snap,
						    const char *name,
						    const struct measurements **group);
/* Supported mitigations not verified yet: 0 when both vectors are not known. */
uint64_t sev_mitigations_unverified(const struct sev_mitigations *m);

#endif
