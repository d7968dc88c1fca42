// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why a store of the platform state failed (ABI.md §7): an extend of a
 * measurement register, the verification of a SEV-SNP mitigation. Words
 * only; the stores are platform-store.c's, the verdicts the commands'.
 */
#include <errno.h>
#include <unistd.h>

#include "tsmctl/explain.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

char *explain_store_refused(const char *file)
{
	return xasprintf("not written: %s is neither a kernel's sysfs nor a live tsm-sim mount, so "
			 "no kernel would take the store: %s there is a plain file (a copy or a "
			 "capture?); --force writes it all the same (EROFS)", sysfs_root_path(), file);
}

char *explain_extend(const char *file, size_t size, int err)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		if (geteuid() != 0)
			return xasprintf("extending %s needs root (mode 0644): run tsmctl as root",
					 file);
		return xasprintf("%s refused the write (%s): it is not writable", file,
				 errno_symbol(-err));
	case EINVAL:
		return xasprintf("the kernel refused the extend (EINVAL): it takes exactly %zu bytes "
				 "in one write at offset 0", size);
	case EFBIG:
		return xasprintf("the kernel refused the extend (EFBIG): a write at or past the "
				 "register's %zu bytes", size);
	case ENXIO:
		return xstrdup("the TDX module refused the extend as an invalid operand (ENXIO)");
	case EBUSY:
		return xstrdup("the TDX module was busy with the register (EBUSY): try again");
	case EINTR:
		return xstrdup("interrupted while waiting for the guest driver's report lock (EINTR)");
	case EIO:
		return xstrdup("the TDX module failed the extend (EIO): see dmesg "
			       "(tdx_mcall_extend_rtmr)");
	case ENOENT:
		return xasprintf("%s is gone: the guest driver was unloaded", file);
	default:
		return xasprintf("the kernel refused the extend (%s)", errno_symbol(-err));
	}
}

char *explain_verify_mitigation(unsigned int bit, int err)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		if (geteuid() != 0)
			return xstrdup("verifying a mitigation needs root (verified_mitigations is "
				       "0600): run tsmctl as root");
		return xasprintf("verified_mitigations refused the write (%s)", errno_symbol(-err));
	case EINVAL:
		return xasprintf("the SEV firmware could not verify mitigation %u (EINVAL: a failure "
				 "status): AMD's security bulletin for it says what it needs, often a "
				 "firmware or microcode update; see dmesg (\"Verify Mitigation\")", bit);
	case EIO:
		return xstrdup("the SEV firmware's SNP_VERIFY_MITIGATION command failed (EIO): see "
			       "dmesg");
	case EBUSY:
		return xstrdup("the SEV firmware was busy (EBUSY): try again");
	case ENODEV:
	case ENOENT:
		return xstrdup("/sys/firmware/sev/vulnerabilities is gone: SEV-SNP was shut down "
			       "(ccp unloaded)");
	default:
		return xasprintf("the kernel refused the store (%s)", errno_symbol(-err));
	}
}
