"""The package speaks the whole control API, as the repository's shared list
(``fake/control-api.json``) names it: every endpoint is reached by a method of FakeServer, and its
fault kinds are the list's, each needing what the list says."""

import json
from pathlib import Path

import pytest

from dynalease_fake import FAULT_KINDS, FakeServer

LIST = json.loads((Path(__file__).resolve().parents[2] / "control-api.json").read_text())


def test_every_endpoint_of_the_shared_list_is_reached_by_a_method_and_no_other(tmp_path):
    reached = set()
    with FakeServer(clock="manual", start_time="2026-01-01T00:00:00Z", data=tmp_path / "t.json") as fake:
        send = fake._control.request

        def recording(method, path, body=None, *, raw=None):
            name = path.split("?")[0]
            reached.add(f"{method} {'faults/ID' if name.startswith('faults/') else name}")
            return send(method, path, body, raw=raw)

        fake._control.request = recording
        fake.now()
        fake.is_frozen()
        fake.freeze()
        fake.run()
        fake.set_time(fake.now().replace(year=2030))
        fake.advance(days=2)
        fake.faults()
        fake.remove_fault(fake.add_fault("throttle", operation="PutItem", times=1))
        fake.clear_faults()
        fake.reset()
        fake.load(fake.snapshot())
        fake.save()
        fake.requests(limit=5)
        fake.clear_requests()
    listed = {f"{endpoint['Method']} {endpoint['Path']}" for endpoint in LIST["Endpoints"]}
    assert reached == listed


def test_the_fault_kinds_are_the_shared_lists_each_needing_what_the_list_says(dynalease_fake):
    kinds = [kind["Fault"] for kind in LIST["FaultKinds"]]
    assert list(FAULT_KINDS.values()) == kinds
    detail = {"DelayMs": "ms", "Code": "code", "Message": "message", "Status": "status", "Processed": "processed",
              "MaxLagMs": "max_lag_ms"}
    value = {"code": "AccessDeniedException", "message": "no", "status": 403}
    by_control_name = {control: name for name, control in FAULT_KINDS.items()}
    for kind in LIST["FaultKinds"]:
        name = by_control_name[kind["Fault"]]
        details = {detail[member]: value.get(detail[member], 1) for member in kind["Needs"] + kind.get("May", [])}
        assert dynalease_fake.add_fault(name, operation="GetItem", times=1, **details) > 0
        for member in kind["Needs"]:
            lacking = {key: item for key, item in details.items() if key != detail[member]}
            with pytest.raises(TypeError, match=f"a {name} fault needs {detail[member]}="):
                dynalease_fake.add_fault(name, **lacking)
    assert [rule["Fault"] for rule in dynalease_fake.faults()] == kinds


def test_a_rule_narrowed_by_every_member_the_shared_list_names_is_taken(dynalease_fake):
    values = {"Operation": "PutItem", "Table": "Carts", "Account": "111122223333", "Region": "eu-west-1",
              "Probability": 0.5, "Times": 1, "After": 1}
    arguments = {}
    for member in LIST["RuleMembers"]:
        assert member in values, f"a rule member the test does not know: {member}"
        arguments[member.lower()] = values[member]
    rule_id = dynalease_fake.add_fault("throttle", **arguments)
    [rule] = [rule for rule in dynalease_fake.faults() if rule["Id"] == rule_id]
    assert {member: rule[member] for member in LIST["RuleMembers"] if member != "Times"} == {
        member: value for member, value in values.items() if member != "Times"
    }
