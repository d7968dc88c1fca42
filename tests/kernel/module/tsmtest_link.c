// SPDX-License-Identifier: GPL-2.0
/*
 * tsmtest_link: a link TSM for tsmctl's kernel tests, on the faux device
 * "tsmtest_link", serving tsmtest_bus's host bridges only.
 *
 * connect does what a platform TSM driver does, with the kernel's helpers
 * (drivers/pci/ide.c) in their documented order: SPDM GET_VERSION over the
 * DSM's CMA mailbox, pci_ide_stream_alloc(), the lowest Stream ID the host
 * bridge has free (pci_ide_stream_register() reserves it), setup of both
 * partners, enable of the root port, then of the endpoint; any failure
 * releases everything (pci_ide_stream_release()). Dependent functions get
 * contexts. tsm_bind and tsm_unbind (written a PCI device name) bind and
 * unbind a TDI, which is what tsm/bound shows.
 *
 * Each kernel interface used is named with its 7.x source file.
 */
#include <linux/device/faux.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-doe.h>
#include <linux/pci-ide.h>
#include <linux/pci-tsm.h>
#include <linux/slab.h>
#include <linux/tsm.h>

#include "tsmtest.h"

MODULE_IMPORT_NS("PCI_IDE");	/* pci_ide_set_nr_streams() */

static int pool = 4;
module_param(pool, int, 0444);
MODULE_PARM_DESC(pool, "IDE streams per host bridge set at load (pci_ide_set_nr_streams); -1 keeps the kernel's");
static int connect_errno;
module_param(connect_errno, int, 0644);
MODULE_PARM_DESC(connect_errno, "when not 0, connect fails with this errno before any IDE setup");

struct tl_pf0 {
	struct pci_tsm_pf0 base;	/* include/linux/pci-tsm.h: the DSM's context */
	struct pci_ide *ide;		/* the stream connect set up */
};

static struct tsm_dev *tl_tsm;
static struct faux_device *tl_faux;
/* pci_tsm_bind() wants a VM; nothing dereferences it (drivers/pci/tsm.c) */
static int tl_vm_token;

static struct tl_pf0 *to_tl_pf0(struct pci_tsm *tsm)
{
	return container_of(tsm, struct tl_pf0, base.base_tsm);
}

/*
 * pci_tsm_ops .probe, called by drivers/pci/tsm.c pci_tsm_connect() and
 * probe_fn(): a context for our host bridges only; a DSM candidate
 * (include/linux/pci-tsm.h is_pci_tsm_pf0()) gets a pf0 context, another
 * function a dependent's.
 */
static struct pci_tsm *tl_probe(struct tsm_dev *tsm_dev, struct pci_dev *pdev)
{
	if (!tsmtest_bus_owns(pdev))
		return NULL;
	if (is_pci_tsm_pf0(pdev)) {
		struct tl_pf0 *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

		/* drivers/pci/tsm.c pci_tsm_pf0_constructor(): -ENODEV without a CMA mailbox */
		if (!ctx || pci_tsm_pf0_constructor(pdev, &ctx->base, tsm_dev)) {
			kfree(ctx);
			return NULL;
		}
		return &ctx->base.base_tsm;
	} else {
		struct pci_tsm *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

		/* drivers/pci/tsm.c pci_tsm_link_constructor(): a dependent of a connected DSM */
		if (!ctx || pci_tsm_link_constructor(pdev, ctx, tsm_dev)) {
			kfree(ctx);
			return NULL;
		}
		return ctx;
	}
}

/* pci_tsm_ops .remove, from drivers/pci/tsm.c tsm_remove(); drivers/pci/tsm.c pci_tsm_pf0_destructor() */
static void tl_remove(struct pci_tsm *tsm)
{
	if (tsm->dsm_dev == tsm->pdev) {
		struct tl_pf0 *ctx = to_tl_pf0(tsm);

		pci_tsm_pf0_destructor(&ctx->base);
		kfree(ctx);
	} else {
		kfree(tsm);
	}
}

/* SPDM GET_VERSION over CMA (drivers/pci/tsm.c pci_tsm_doe_transfer()): the session's first step. */
static int tl_spdm_version(struct pci_dev *pdev)
{
	__le32 req = cpu_to_le32(0x00008410);	/* SPDM 1.0 GET_VERSION (DSP0274) */
	u8 rsp[8];
	int rc;

	rc = pci_tsm_doe_transfer(pdev, PCI_DOE_FEATURE_CMA, &req, sizeof(req), rsp, sizeof(rsp));
	if (rc < 0)
		return rc;
	return rc >= 4 && rsp[1] == 0x04 ? 0 : -EIO;	/* VERSION */
}

/* The lowest Stream ID free on the host bridge: drivers/pci/ide.c pci_ide_stream_register() is EBUSY on a taken one. */
static int tl_register(struct pci_ide *ide)
{
	int rc = -EBUSY;

	for (int id = 0; id < PCI_IDE_RESERVED_STREAM_ID && rc == -EBUSY; id++) {
		ide->stream_id = id;
		rc = pci_ide_stream_register(ide);
	}
	if (rc)
		ide->stream_id = -1;
	return rc;
}

/* pci_tsm_ops .connect, under the DSM's lock (drivers/pci/tsm.c pci_tsm_connect()) */
static int tl_connect(struct pci_dev *pdev)
{
	struct tl_pf0 *ctx = to_tl_pf0(pdev->tsm);
	struct pci_dev *rp = pcie_find_root_port(pdev);	/* include/linux/pci.h pcie_find_root_port() */
	struct pci_ide *ide;
	int rc = -READ_ONCE(connect_errno);

	if (rc)
		return rc;
	rc = tl_spdm_version(pdev);
	if (rc)
		return rc;
	/*
	 * drivers/pci/ide.c pci_ide_stream_alloc(), then the Stream ID,
	 * drivers/pci/ide.c pci_ide_stream_setup() of both partners and
	 * drivers/pci/ide.c pci_ide_stream_enable() of the root port, then the
	 * endpoint; drivers/pci/ide.c pci_ide_stream_release() undoes what was done
	 */
	ide = pci_ide_stream_alloc(pdev);
	if (!ide)
		return -ENOMEM;
	rc = tl_register(ide);
	if (!rc) {
		pci_ide_stream_setup(pdev, ide);
		pci_ide_stream_setup(rp, ide);
		rc = pci_ide_stream_enable(rp, ide);
	}
	if (!rc)
		rc = pci_ide_stream_enable(pdev, ide);
	if (rc) {
		pci_ide_stream_release(ide);
		return rc;
	}
	ctx->ide = ide;
	return 0;
}

/* pci_tsm_ops .disconnect: the stream goes (drivers/pci/ide.c pci_ide_stream_release()) */
static void tl_disconnect(struct pci_dev *pdev)
{
	struct tl_pf0 *ctx = to_tl_pf0(pdev->tsm);

	if (ctx->ide)
		pci_ide_stream_release(ctx->ide);
	ctx->ide = NULL;
}

/* pci_tsm_ops .bind (drivers/pci/tsm.c pci_tsm_bind(), pci_tsm_tdi_constructor()) */
static struct pci_tdi *tl_bind(struct pci_dev *pdev, struct kvm *kvm, u32 tdi_id)
{
	struct pci_tdi *tdi = kzalloc(sizeof(*tdi), GFP_KERNEL);

	if (!tdi)
		return ERR_PTR(-ENOMEM);
	pci_tsm_tdi_constructor(pdev, tdi, kvm, tdi_id);
	return tdi;
}

/* pci_tsm_ops .unbind (drivers/pci/tsm.c __pci_tsm_unbind()) */
static void tl_unbind(struct pci_tdi *tdi)
{
	kfree(tdi);
}

static struct pci_tsm_ops tl_ops = {
	.probe = tl_probe,
	.remove = tl_remove,
	.connect = tl_connect,
	.disconnect = tl_disconnect,
	.bind = tl_bind,
	.unbind = tl_unbind,
};

/* A PCI device by name (include/linux/device/bus.h bus_find_device_by_name()), with a reference. */
static struct pci_dev *tl_find(const char *buf)
{
	char name[32];
	struct device *dev;

	strscpy(name, buf, sizeof(name));
	strim(name);
	dev = bus_find_device_by_name(&pci_bus_type, NULL, name);
	return dev ? to_pci_dev(dev) : NULL;
}

static ssize_t tsm_bind_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct pci_dev *pdev = tl_find(buf);
	int rc;

	if (!pdev)
		return -ENODEV;
	/* drivers/pci/tsm.c pci_tsm_bind(): EINVAL without a context, ENXIO not a link TSM's */
	rc = pci_tsm_bind(pdev, (struct kvm *)&tl_vm_token, pci_dev_id(pdev));
	pci_dev_put(pdev);	/* drivers/pci/pci-driver.c pci_dev_put() */
	return rc ? rc : len;
}
static DEVICE_ATTR_WO(tsm_bind);

static ssize_t tsm_unbind_store(struct device *d, struct device_attribute *attr,
				const char *buf, size_t len)
{
	struct pci_dev *pdev = tl_find(buf);

	if (!pdev)
		return -ENODEV;
	pci_tsm_unbind(pdev);	/* drivers/pci/tsm.c pci_tsm_unbind(): bound or not */
	pci_dev_put(pdev);
	return len;
}
static DEVICE_ATTR_WO(tsm_unbind);

static struct attribute *tl_attrs[] = {
	&dev_attr_tsm_bind.attr,
	&dev_attr_tsm_unbind.attr,
	NULL
};
ATTRIBUTE_GROUPS(tl);

/*
 * faux_device_ops .probe: size the pools, then register the TSM
 * (drivers/pci/ide.c pci_ide_set_nr_streams() before the first
 * pci_ide_stream_alloc(); drivers/virt/coco/tsm-core.c tsm_register()).
 */
static int tl_probe_faux(struct faux_device *fdev)
{
	struct pci_host_bridge *bridge;

	for (int i = 0; pool >= 0 && (bridge = tsmtest_bus_bridge(i)); i++)
		pci_ide_set_nr_streams(bridge, pool);
	tl_tsm = tsm_register(&fdev->dev, &tl_ops);
	return PTR_ERR_OR_ZERO(tl_tsm);
}

/* faux_device_ops .remove: drivers/virt/coco/tsm-core.c tsm_unregister() tears down every context of this TSM */
static void tl_remove_faux(struct faux_device *fdev)
{
	tsm_unregister(tl_tsm);
}

static const struct faux_device_ops tl_faux_ops = {
	.probe = tl_probe_faux,
	.remove = tl_remove_faux,
};

static int __init tl_init(void)
{
	if (pool > 256)
		return -EINVAL;
	/* drivers/base/faux.c faux_device_create_with_groups(): the triggers appear after the probe */
	tl_faux = faux_device_create_with_groups("tsmtest_link", NULL, &tl_faux_ops, tl_groups);
	return tl_faux ? 0 : -ENODEV;
}
module_init(tl_init);

static void __exit tl_exit(void)
{
	faux_device_destroy(tl_faux);
}
module_exit(tl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tsmctl test rig: a link TSM using the kernel's PCI TSM and IDE helpers");
