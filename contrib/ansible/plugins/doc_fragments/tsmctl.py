# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):
    # The options every tsmctl module takes (module_utils/tsmctl.py COMMON_ARGUMENT_SPEC).
    DOCUMENTATION = r'''
options:
  sysroot:
    description:
      - Treat this directory as C(/) (tsmctl's C(--sysroot)), reading and writing
        C(DIR/sys) instead of C(/sys). For a captured tree or a simulated host.
      - When not set, tsmctl uses C(/), or C(TSMCTL_SYSROOT) when the task's
        environment sets it.
    type: path
  tsmctl_path:
    description:
      - The tsmctl binary on the managed host.
      - When not set, C(tsmctl) is looked up in C(PATH) and the sbin directories.
    type: path
requirements:
  - tsmctl on the managed host (nothing else; the modules use only Python's standard library)
notes:
  - Runs C(tsmctl) with C(-J) and reads its JSON documents at the C(schema_version) each
    has in this release (C(host_bridges) 2, the others 1); a document of another version
    fails the task rather than be misread.
'''

    # The modules that only read (tsmctl.tsm.tsmctl.read_only).
    READ_ONLY = r'''
attributes:
  check_mode:
    support: full
    description: Reads only; the same in check mode.
  diff_mode:
    support: none
    description: Changes nothing, so there is nothing to compare.
'''
