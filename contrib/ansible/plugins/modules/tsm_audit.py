#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: tsm_audit
short_description: Audit PCIe device security (TSM, IDE streams, TDISP) with tsmctl
version_added: "0.2.0"
description:
  - Runs C(tsmctl audit -J) on the managed host and returns every check
    result and the summary.
  - The task fails when a check failed (C(fail)), and with C(fail_on_warn)
    also on a warning; the message names each failing check, its object and
    tsmctl's hint.
  - Reads only; never changes anything.
extends_documentation_fragment:
  - tsmctl.tsm.tsmctl
  - tsmctl.tsm.tsmctl.read_only
options:
  fail_on_warn:
    description:
      - Fail on warnings too (tsmctl's C(--strict)).
    type: bool
    default: false
  require_connected:
    description:
      - Devices that must be connected to a TSM (PCI addresses, or C(all) for
        every TEE-IO capable device with C(tsm/connect)); one that is not
        fails C(device.connected) (tsmctl's C(--require-connected)).
    type: list
    elements: str
  require_verified:
    description:
      - Devices whose evidence must prove them (PCI addresses or slots, or
        C(all) for every device with evidence); one whose evidence does not
        (identity by a certificate chain, the measurements' signature, the
        interface report, unless an C(allow_*) option takes that risk, as
        THE DECISION in tsmctl-evidence(8) says), that has no evidence, or
        that does not exist fails C(device.evidence) (tsmctl's
        C(--require-verified)).
    type: list
    elements: str
  trust:
    description:
      - The trust anchors C(device.evidence) verifies certificate chains
        against (a PEM file or a directory of them; tsmctl's default is
        C(/etc/tsmctl/trust.d)). Without a trust store no device is verified,
        and each device with evidence warns, "never verified".
    type: path
  reference:
    description:
      - The reference manifest C(device.evidence) judges the measurements by
        (tsmctl-evidence(8), REFERENCE MANIFEST).
    type: path
  partial_chain:
    description:
      - Let a trust anchor be an intermediate or the leaf itself (tsmctl's
        C(--partial-chain)).
    type: bool
    default: false
  allow_first_use:
    description:
      - Take on trust a chain whose root is only pinned now, on first use
        (tsmctl's C(--allow-first-use)).
    type: bool
    default: false
  allow_unsigned_measurements:
    description:
      - Take on trust measurements whose signature cannot be checked here
        (tsmctl's C(--allow-unsigned-measurements)).
    type: bool
    default: false
  allow_no_reference:
    description:
      - Take on trust measurements compared with no reference manifest
        (tsmctl's C(--allow-no-reference)).
    type: bool
    default: false
  allow_replay:
    description:
      - Take on trust evidence with no nonce of tsmctl's (tsmctl's
        C(--allow-replay)).
    type: bool
    default: false
  allow_report_offsets:
    description:
      - Take on trust an interface report that gives MMIO as offsets only
        (tsmctl's C(--allow-report-offsets)).
    type: bool
    default: false
  device:
    description: Audit only these devices (tsmctl's C(-d)).
    type: list
    elements: str
  tsm:
    description: Audit only these TSMs (tsmctl's C(-t)).
    type: list
    elements: str
  host_bridge:
    description: Audit only these host bridges (tsmctl's C(-b), C(pciDDDD:BB)).
    type: list
    elements: str
author:
  - tsmctl developers
seealso:
  - module: tsmctl.tsm.tsm_device
  - module: tsmctl.tsm.tsm_facts
'''

EXAMPLES = r'''
- name: Audit; fail the host on any failed check
  tsmctl.tsm.tsm_audit:

- name: Every TEE device must be connected, and warnings count
  tsmctl.tsm.tsm_audit:
    require_connected: all
    fail_on_warn: true
  register: audit

- name: Show what did not pass
  ansible.builtin.debug:
    msg: "{{ audit.checks | rejectattr('status', 'eq', 'pass') }}"

- name: The NIC's evidence must prove it, against the fleet's roots and reference
  tsmctl.tsm.tsm_audit:
    require_verified: ["0000:41:00.0"]
    trust: /etc/tsmctl/trust.d
    reference: /etc/tsmctl/nic.reference.json
'''

RETURN = r'''
checks:
  description: tsmctl's C(checks), one per check and object (see tsmctl-audit(8)).
  returned: always
  type: list
  elements: dict
  sample:
    - id: stream.secure
      category: stream
      parent: stream.link
      object: pci0000:40/stream0.0.0
      status: fail
      message: "root port 0000:40:01.1 block 0 INSECURE (status 0x00000000)"
      hint: "the link is not protected ...: disconnect and reconnect the endpoint; check the link (AER, dmesg)"
summary:
  description: How many results had each status.
  returned: always
  type: dict
  sample: {"total": 32, "pass": 31, "warn": 1, "fail": 0, "skip": 0, "needs_root": 0}
failed_checks:
  description: The results that fail the task (C(fail), and C(warn) with C(fail_on_warn)).
  returned: always
  type: list
  elements: dict
cmd:
  description: The tsmctl command line that ran the audit.
  returned: always
  type: list
  elements: str
rc:
  description: tsmctl's exit status (0 nothing failed, 1 a check failed, 2 usage error).
  returned: always
  type: int
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tsmctl.tsm.plugins.module_utils.tsmctl import (
    COMMON_ARGUMENT_SPEC, RISK_ARGUMENT_SPEC, check_addresses, fail_tsmctl, risk_args, run_tsmctl)

ARGUMENT_SPEC = dict(
    fail_on_warn=dict(type='bool', default=False),
    require_connected=dict(type='list', elements='str'),
    require_verified=dict(type='list', elements='str'),
    trust=dict(type='path'),
    reference=dict(type='path'),
    partial_chain=dict(type='bool', default=False),
    device=dict(type='list', elements='str'),
    tsm=dict(type='list', elements='str'),
    host_bridge=dict(type='list', elements='str'),
    **dict(COMMON_ARGUMENT_SPEC, **RISK_ARGUMENT_SPEC)
)

FILTERS = (('device', '-d'), ('tsm', '-t'), ('host_bridge', '-b'))


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    check_addresses(module, 'require_connected', 'require_verified', 'device')
    args = ['audit', '-J']
    if p['fail_on_warn']:
        args.append('--strict')
    for key in ('require_connected', 'require_verified'):
        if p[key]:
            args += ['--' + key.replace('_', '-'), ','.join(p[key])]
    for key in ('trust', 'reference'):
        if p[key]:
            args += ['--' + key, p[key]]
    if p['partial_chain']:
        args.append('--partial-chain')
    args += risk_args(p)
    for key, opt in FILTERS:
        if p[key]:
            args += [opt, ','.join(p[key])]
    argv, rc, doc, err = run_tsmctl(module, args, 'checks')
    if doc is None or rc not in (0, 1):
        fail_tsmctl(module, argv, rc, err)
    checks = doc.get('checks', [])
    failing = ('fail', 'warn') if p['fail_on_warn'] else ('fail',)
    failed = [c for c in checks if c['status'] in failing]
    out = dict(changed=False, checks=checks, summary=doc.get('summary', {}),
               failed_checks=failed, cmd=argv, rc=rc)
    if failed or rc != 0:
        words = ['%s %s on %s: %s%s' % (c['id'], c['status'], c['object'], c['message'],
                                        ' (%s)' % c['hint'] if c.get('hint') else '')
                 for c in failed]
        module.fail_json(msg='tsmctl audit: %d result(s) failing: %s'
                         % (len(failed), '; '.join(words) or err.strip()), **out)
    module.exit_json(**out)


if __name__ == '__main__':
    main()
