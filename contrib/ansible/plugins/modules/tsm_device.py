#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: tsm_device
short_description: Connect, disconnect, lock, accept or unlock PCIe devices with tsmctl
version_added: "0.2.0"
description:
  - Brings one device, a list of devices, or every candidate to a PCIe TSM
    state by running the matching tsmctl verb (C(connect), C(disconnect),
    C(lock), C(accept), C(unlock)) with C(-J) and reporting what tsmctl
    reported for each device.
  - tsmctl checks every device before writing and writes each C(tsm/)
    attribute at most once; a device already in the state is left alone
    (tsmctl's result C(already)). So the task is idempotent, and C(changed)
    is true only when tsmctl reported a store (result C(ok), or C(insecure)
    for a device connected whose stream is not SECURE).
  - When tsmctl fails (any device failed, came up insecure, or the TSM cannot
    serve), the task fails with tsmctl's message and exit status, and still
    returns the per-device C(results).
  - With C(device=all), tsmctl leaves out the devices it knows cannot reach
    the state (no stream pool on their host bridge, no CMA/SPDM mailbox, ...)
    and says why; those notes come back as warnings and in C(notes).
extends_documentation_fragment:
  - tsmctl.tsm.tsmctl
options:
  device:
    description:
      - PCI addresses (C(0000:41:00.0); C(41:00.0) means domain 0), or the
        single word C(all) for every candidate of the verb (tsmctl's C(--all)).
      - Quote addresses in YAML, as in C("0000:41:00.0"). Unquoted, YAML reads
        C(0000:41:00.0) as the number 2460.0, which the module refuses.
      - The candidates are every unconnected device with C(tsm/connect) for
        C(connected), every connected one for C(disconnected), every unlocked
        device with C(tsm/lock) and no driver for C(locked), every locked
        unaccepted one without a driver for C(accepted), every locked one for
        C(unlocked).
    type: list
    elements: str
    required: true
    aliases: [devices, bdf]
  state:
    description:
      - C(connected) (tsmctl connect; IDE link encryption with a link TSM),
        C(disconnected) (tsmctl disconnect), C(locked) (tsmctl lock, TDISP
        LOCKED, inside a confidential guest), C(accepted) (tsmctl accept,
        LOCKED to RUN; the device must be locked already; with C(verify)
        its evidence is judged first), C(unlocked) (tsmctl unlock).
    type: str
    required: true
    choices: [connected, disconnected, locked, accepted, unlocked]
  tsm:
    description:
      - The TSM (C(tsm0)). Required for C(locked) (a devsec TSM). For
        C(connected), a link TSM; when not set, the host's only link TSM
        (C(pci_mode) link, or none on v6.19). A host with several fails
        naming them; on a host with none, C(device=all) has nothing to
        connect (not changed, with a note) and named devices fail. For
        C(disconnected) and C(unlocked) it must be the TSM the device is
        connected or locked to. Not used by C(accepted) (tsmctl accept acts
        for the TSM holding the lock).
    type: str
  strict:
    description:
      - Treat a device that is in the state already as a failure
        (tsmctl's C(--strict)).
    type: bool
    default: false
  keep_going:
    description:
      - Go on with the next device after one failed (tsmctl's C(--keep-going)),
        so that every device that can reach the state does. The task still
        fails when one did not.
    type: bool
    default: true
  wait:
    description:
      - Wait up to this many seconds for the TSM (C(tsm), else any) to be
        registered and ready first. For C(connected) this is tsmctl
        connect's C(--wait); for the other states C(tsmctl wait --timeout)
        runs before the verb.
    type: int
  verify:
    description:
      - With C(state=accepted) only, tsmctl's C(accept --verify) reads the
        device's evidence and writes the accept only when it proves the
        device (THE DECISION in tsmctl-evidence(8)), that is its identity (a
        certificate chain to a trust anchor, or to a root pinned before),
        the measurements bound to that chain's key by their signature, and
        the interface report bound to the function; and when the evidence
        is still the generation decided on. What cannot be proven refuses
        the accept unless one of the C(allow_*) options takes that risk on
        trust. A device refused fails, with tsmctl's reason and the option
        that would take the risk in the message.
    type: bool
    default: false
  allow_first_use:
    description:
      - With C(verify), accept a chain whose root is only pinned now, on
        first use, vouched for by no trust anchor (tsmctl's
        C(--allow-first-use)).
    type: bool
    default: false
  allow_unsigned_measurements:
    description:
      - With C(verify), accept measurements whose signature cannot be checked
        here, the TSM's own SPDM authentication standing in (tsmctl's
        C(--allow-unsigned-measurements)).
    type: bool
    default: false
  allow_no_reference:
    description:
      - With C(verify), accept measurements compared with no reference
        manifest (tsmctl's C(--allow-no-reference)).
    type: bool
    default: false
  allow_replay:
    description:
      - With C(verify), accept evidence with no nonce of tsmctl's, so that a
        replay is not excluded (tsmctl's C(--allow-replay)).
    type: bool
    default: false
  allow_report_offsets:
    description:
      - With C(verify), accept an interface report that gives MMIO as
        offsets only, its addresses not proven (tsmctl's
        C(--allow-report-offsets)).
    type: bool
    default: false
  trust:
    description:
      - With C(verify), the trust anchors (a PEM file or a directory of them;
        tsmctl's default is C(/etc/tsmctl/trust.d)).
    type: path
  reference:
    description:
      - With C(verify), the reference manifest the measurements are judged by
        (tsmctl-evidence(8), REFERENCE MANIFEST).
    type: path
  pin:
    description:
      - With C(verify), trust on first use (tsmctl's C(--pin)), the file where
        each device's root digest is recorded the first time and compared later.
      - Check mode records a first-seen root as well (tsmctl's
        C(--dry-run) verifies, and the pin is part of verifying).
    type: path
  partial_chain:
    description:
      - With C(verify), let a trust anchor be an intermediate or the leaf
        itself (tsmctl's C(--partial-chain)).
    type: bool
    default: false
  syslog:
    description:
      - Log each store to the system log (tsmctl's audit trail). C(false)
        passes C(--no-syslog), for rehearsals on simulated hosts.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
    description: Runs the verb with tsmctl's C(--dry-run), which checks everything and writes nothing.
  diff_mode:
    support: full
    description: Each device's C(connected), C(locked) and C(accepted) state before and after (predicted in check mode).
author:
  - tsmctl developers
seealso:
  - module: tsmctl.tsm.tsm_facts
  - module: tsmctl.tsm.tsm_audit
'''

EXAMPLES = r'''
- name: Connect every TEE device that can connect to the host's link TSM
  tsmctl.tsm.tsm_device:
    device: all
    state: connected
    wait: 30

- name: Disconnect two NICs
  tsmctl.tsm.tsm_device:
    device: ["0000:41:00.0", "0000:42:00.0"]
    state: disconnected

# Inside a confidential guest: lock, then accept only if the evidence proves the device.
- name: Lock the assigned device to the devsec TSM
  tsmctl.tsm.tsm_device:
    device: "0000:00:05.0"
    state: locked
    tsm: tsm0
- name: Accept it if its evidence proves it; the TSM's SPDM authentication stands in for the signature
  tsmctl.tsm.tsm_device:
    device: "0000:00:05.0"
    state: accepted
    verify: true
    trust: /etc/tsmctl/trust.d
    reference: /etc/tsmctl/nic.reference.json
    allow_unsigned_measurements: true
'''

RETURN = r'''
results:
  description: tsmctl's C(results), one object per device it acted on (see tsmctl-connect(8) and tsmctl-lock(8)).
  returned: always
  type: list
  elements: dict
  sample:
    - bdf: "0000:81:00.0"
      action: connect
      result: ok
      errno: null
      message: connected to tsm0
      tsm: tsm0
      streams: [{"name": "stream0.0.0", "host_bridge": "pci0000:80", "stream_id": 0,
                 "endpoint_state": "secure", "root_port_state": "secure"}]
      available_secure_streams: 255
devices:
  description: Each device's result (C(ok), C(already), C(dry-run), C(insecure), C(failed), C(skipped)).
  returned: always
  type: dict
  sample: {"0000:81:00.0": "ok", "0000:41:00.0": "already"}
summary:
  description: How many devices got each result.
  returned: always
  type: dict
  sample: {"ok": 1, "already": 1}
cmd:
  description: The tsmctl command line that ran the verb (or C(list), when the host had no link TSM to connect to).
  returned: always
  type: list
  elements: str
rc:
  description: tsmctl's exit status (0 every device succeeded, 1 any failed, 2 usage error).
  returned: always
  type: int
notes:
  description: What tsmctl said on stderr when it succeeded (for example the devices C(all) left out, and why).
  returned: always
  type: list
  elements: str
  sample: ["tsmctl connect: --all leaves out 0000:38:00.0: its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams)"]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tsmctl.tsm.plugins.module_utils.tsmctl import (
    COMMON_ARGUMENT_SPEC, RISKS, RISK_ARGUMENT_SPEC, check_addresses, fail_tsmctl, risk_args, run_tsmctl,
    stderr_lines)

VERBS = dict(connected='connect', disconnected='disconnect', locked='lock',
             accepted='accept', unlocked='unlock')

# The inputs of accept --verify, named as tsmctl's options.
VERIFY_INPUTS = ('trust', 'reference', 'pin')

# Results that mean tsmctl wrote (or, in check mode, would write).
STORED = ('ok', 'insecure')

ARGUMENT_SPEC = dict(
    device=dict(type='list', elements='str', required=True, aliases=['devices', 'bdf']),
    state=dict(type='str', required=True, choices=list(VERBS)),
    tsm=dict(type='str'),
    strict=dict(type='bool', default=False),
    keep_going=dict(type='bool', default=True),
    wait=dict(type='int'),
    verify=dict(type='bool', default=False),
    trust=dict(type='path'),
    reference=dict(type='path'),
    pin=dict(type='path'),
    partial_chain=dict(type='bool', default=False),
    syslog=dict(type='bool', default=True),
    **dict(COMMON_ARGUMENT_SPEC, **RISK_ARGUMENT_SPEC)
)


def verb_argv(module, verb):
    p = module.params
    args = [verb, '-J']
    if module.check_mode:
        args.append('--dry-run')
    if p['strict']:
        args.append('--strict')
    if p['keep_going']:
        args.append('--keep-going')
    if not p['syslog']:
        args.append('--no-syslog')
    if verb == 'connect' and p['wait'] is not None:
        args += ['--wait', str(p['wait'])]
    if p['verify']:
        args.append('--verify')
        for key in VERIFY_INPUTS:
            if p[key]:
                args += ['--' + key, p[key]]
        if p['partial_chain']:
            args.append('--partial-chain')
        args += risk_args(p)
    if p['device'] == ['all']:
        args.append('--all')
    else:
        args += p['device']
    if p['tsm'] and verb != 'accept':
        args.append(p['tsm'])
    return args


def only_link_tsm(module):
    """The host's one link TSM, for state=connected without tsm; a host without
    one ends the module (nothing to do for all, a failure for named devices)."""
    p = module.params
    if p['wait'] is not None:
        argv, rc, out, err = run_tsmctl(module, ['wait', '--timeout', str(p['wait'])])
        if rc != 0:
            fail_tsmctl(module, argv, rc, err)
    argv, rc, doc, err = run_tsmctl(module, ['list', '-J'], 'tsms')
    if rc != 0 or doc is None:
        fail_tsmctl(module, argv, rc, err)
    # v6.19 has no pci_mode (null): its TSMs are all link TSMs
    names = [t['name'] for t in doc['tsms'] if t.get('mode') != 'devsec']
    if len(names) > 1:
        module.fail_json(msg='several link TSMs (%s): name one with tsm' % ', '.join(names), cmd=argv, rc=rc)
    if names:
        return names[0]
    why = '; '.join(stderr_lines(err))
    if p['device'] != ['all']:
        module.fail_json(msg='no link TSM to connect %s to%s' % (', '.join(p['device']), ': ' + why if why else ''),
                         cmd=argv, rc=rc)
    note = 'no link TSM on this host: nothing to connect' + (' (%s)' % why if why else '')
    module.warn(note)
    module.exit_json(changed=False, results=[], devices={}, summary={}, cmd=argv, rc=rc, notes=[note])


def device_states(module):
    """bdf -> one line of what the kernel shows (for diff mode)."""
    argv, rc, doc, err = run_tsmctl(module, ['devices', '-J'], 'devices')
    if rc != 0 or doc is None:
        fail_tsmctl(module, argv, rc, err)
    return dict((d['bdf'], dict(connected=d.get('connected'), locked=d.get('locked'),
                                accepted=d.get('accepted')))
                for d in doc.get('devices', []))


def predicted(state, result):
    """What a dry-run result says the device would show afterwards."""
    after = dict(state)
    if result['action'] == 'connect':
        after['connected'] = result['tsm']
    elif result['action'] == 'disconnect':
        after['connected'] = None
    elif result['action'] == 'lock':
        after.update(locked=result['tsm'], accepted=False)
    elif result['action'] == 'accept':
        after['accepted'] = True
    elif result['action'] == 'unlock':
        after.update(locked=None, accepted=False)
    return after


def show(bdf, state):
    def word(v):
        if v is None:
            return '-'
        if isinstance(v, bool):
            return 'yes' if v else 'no'
        return v
    return '%s: connected=%s locked=%s accepted=%s\n' % (
        bdf, word(state.get('connected')), word(state.get('locked')), word(state.get('accepted')))


def make_diff(module, before, results):
    after = before if module.check_mode else device_states(module)
    diff = dict(before='', after='')
    for r in results:
        b = before.get(r['bdf'], {})
        a = predicted(b, r) if module.check_mode and r['result'] == 'dry-run' else after.get(r['bdf'], {})
        diff['before'] += show(r['bdf'], b)
        diff['after'] += show(r['bdf'], a)
    return diff


def main():
    module = AnsibleModule(
        argument_spec=ARGUMENT_SPEC,
        required_if=[('state', 'locked', ['tsm'])],
        supports_check_mode=True,
    )
    p = module.params
    check_addresses(module, 'device')
    if 'all' in p['device'] and len(p['device']) > 1:
        module.fail_json(msg="device: 'all' stands alone, not in a list of addresses")
    if p['verify'] and p['state'] != 'accepted':
        module.fail_json(msg='verify goes with state=accepted (tsmctl accept --verify)')
    if not p['verify'] and (p['partial_chain'] or any(p[k] for k in VERIFY_INPUTS + RISKS)):
        module.fail_json(msg='trust, reference, pin, partial_chain and the allow_* options go with verify')
    if p['state'] == 'accepted' and p['tsm']:
        module.warn('tsm is not used by state=accepted: tsmctl accept acts for the TSM holding the lock')
    verb = VERBS[p['state']]

    if verb == 'connect' and not p['tsm']:
        p['tsm'] = only_link_tsm(module)

    if p['wait'] is not None and verb != 'connect':
        argv, rc, out, err = run_tsmctl(module, ['wait', '--timeout', str(p['wait'])] +
                                        ([p['tsm']] if p['tsm'] and verb != 'accept' else []))
        if rc != 0:
            fail_tsmctl(module, argv, rc, err)

    before = device_states(module) if module._diff else None
    argv, rc, doc, err = run_tsmctl(module, verb_argv(module, verb), 'results')
    results = doc.get('results', []) if doc else []
    stored = STORED + (('dry-run',) if module.check_mode else ())
    summary = {}
    for r in results:
        summary[r['result']] = summary.get(r['result'], 0) + 1
    out = dict(
        changed=any(r['result'] in stored for r in results),
        results=results,
        devices=dict((r['bdf'], r['result']) for r in results),
        summary=summary,
        cmd=argv,
        rc=rc,
        notes=stderr_lines(err) if rc == 0 else [],
    )
    for note in out['notes']:
        module.warn(note)
    if before is not None:
        out['diff'] = make_diff(module, before, results)
    if rc != 0:
        fail_tsmctl(module, argv, rc, err, **dict((k, v) for k, v in out.items() if k not in ('cmd', 'rc')))
    module.exit_json(**out)


if __name__ == '__main__':
    main()
