#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: tsm_facts
short_description: PCIe TSM, device, IDE stream and host bridge state as facts
version_added: "0.2.0"
description:
  - Runs C(tsmctl list -J), C(tsmctl devices -J), C(tsmctl streams -J) and
    C(tsmctl host-bridges -J) on the managed host and returns their documents
    as the fact C(tsmctl).
  - Reads only; never writes to sysfs.
  - When the host has no TSM, the lists are empty and C(explanations) carries
    tsmctl's reason (no C(/sys/class/tsm), provider module not loaded, ...).
extends_documentation_fragment:
  - tsmctl.tsm.tsmctl
  - tsmctl.tsm.tsmctl.read_only
options:
  gather:
    description:
      - Which documents to read.
    type: list
    elements: str
    choices: [tsms, devices, streams, host_bridges]
    default: [tsms, devices, streams, host_bridges]
  all_devices:
    description:
      - List every PCIe function with IDE or TEE-IO in its config space
        (C(tsmctl devices --all)), not only those with the C(tsm/) group.
    type: bool
    default: false
attributes:
  facts:
    support: full
author:
  - tsmctl developers
seealso:
  - module: tsmctl.tsm.tsm_device
  - module: tsmctl.tsm.tsm_audit
'''

EXAMPLES = r'''
- name: Read the TSM state
  tsmctl.tsm.tsm_facts:

- name: Show the streams that are not SECURE on both partners
  ansible.builtin.debug:
    msg: "{{ ansible_facts.tsmctl.streams | rejectattr('endpoint.state', 'eq', 'secure') | map(attribute='name') }}"

- name: Only the host bridges' pools, from a captured tree
  tsmctl.tsm.tsm_facts:
    gather: [host_bridges]
    sysroot: /srv/captures/host17
'''

RETURN = r'''
ansible_facts:
  description: The documents read, under C(tsmctl).
  returned: always
  type: complex
  contains:
    tsmctl:
      description: One key per document read; each list as C(tsmctl -J) prints it (see tsmctl's schemas).
      returned: always
      type: dict
      contains:
        tsms:
          description: C(tsmctl list -J)'s C(tsms).
          returned: when C(tsms) is gathered
          type: list
          elements: dict
          sample: [{"name": "tsm0", "mode": null, "provider": "0000:02:00.1", "driver": "ccp", "connected_devices": 1}]
        devices:
          description: C(tsmctl devices -J)'s C(devices).
          returned: when C(devices) is gathered
          type: list
          elements: dict
          sample: [{"bdf": "0000:41:00.0", "tee_io": true, "connected": "tsm0", "locked": null, "accepted": null}]
        streams:
          description: C(tsmctl streams -J)'s C(streams).
          returned: when C(streams) is gathered
          type: list
          elements: dict
          sample: [{"name": "stream0.0.0", "host_bridge": "pci0000:40", "stream_id": 0, "target": "0000:41:00.0"}]
        host_bridges:
          description:
            - C(tsmctl host-bridges -J)'s C(host_bridges) (its C(schema_version) 2, where each
              host bridge has C(tsms), the list of TSMs using it).
          returned: when C(host_bridges) is gathered
          type: list
          elements: dict
          sample: [{"name": "pci0000:40", "available_secure_streams": 255, "streams": ["stream0.0.0"], "tsms": ["tsm0"]}]
explanations:
  description: What tsmctl said on stderr about empty results (why nothing was found).
  returned: always
  type: list
  elements: str
  sample: ["tsmctl list: no /sys/class/tsm: the kernel lacks PCI TSM support (CONFIG_PCI_TSM) ..."]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tsmctl.tsm.plugins.module_utils.tsmctl import (
    COMMON_ARGUMENT_SPEC, fail_tsmctl, run_tsmctl, stderr_lines)

# document key -> (tsmctl command, the array it prints)
DOCUMENTS = dict(
    tsms=('list', 'tsms'),
    devices=('devices', 'devices'),
    streams=('streams', 'streams'),
    host_bridges=('host-bridges', 'host_bridges'),
)

ARGUMENT_SPEC = dict(
    gather=dict(type='list', elements='str', choices=list(DOCUMENTS),
                default=list(DOCUMENTS)),
    all_devices=dict(type='bool', default=False),
    **COMMON_ARGUMENT_SPEC
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    facts = {}
    explanations = []
    for key in module.params['gather']:
        command, array = DOCUMENTS[key]
        args = [command, '-J']
        if key == 'devices' and module.params['all_devices']:
            args.append('--all')
        argv, rc, doc, err = run_tsmctl(module, args, array)
        if rc != 0 or doc is None:
            fail_tsmctl(module, argv, rc, err)
        facts[key] = doc.get(array, [])
        explanations += stderr_lines(err)
    module.exit_json(changed=False, ansible_facts=dict(tsmctl=facts), explanations=explanations)


if __name__ == '__main__':
    main()
