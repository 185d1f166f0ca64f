"""Every compatibility level over chains of three versions, through real HTTP to ``registry serve``.

Four chains, each built so that some levels accept a step and others refuse it (a = {id}, b/d/e added or
removed fields with or without defaults). Expected outcomes follow from Avro's resolution rules:
BACKWARD = the new schema reads the old data, FORWARD = the old schema reads the new data, FULL = both,
*_TRANSITIVE = against every earlier version instead of only the latest.
"""

from __future__ import annotations

import uuid

import pytest
import requests

from tests.registry.api.helpers import CT, body, record

A = record(a="long")
AB_DEFAULT = record(a="long", b=("string", "x"))
AB_REQUIRED = record(a="long", b="string")
ABD = record(a="long", b=("string", "x"), d="int")
AE_DEFAULT = record(a="long", e=("int", 0))

LEVELS = [
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
]

# chain name -> (v1, v2, v3), {level: (v2 accepted, v3 accepted)}, field named in refusals
CHAINS = {
    "required-field-added-after-default": (
        (A, AB_DEFAULT, AB_REQUIRED),
        dict(zip(LEVELS, [(1, 1), (1, 1), (1, 0), (1, 1), (1, 1), (1, 1), (1, 0)], strict=True)),
        "b",
    ),
    "required-field-removed-in-two-steps": (
        (AB_REQUIRED, AB_DEFAULT, A),
        dict(zip(LEVELS, [(1, 1), (1, 1), (1, 1), (1, 1), (1, 0), (1, 1), (1, 0)], strict=True)),
        "b",
    ),
    "field-without-default-added": (
        (A, AB_DEFAULT, ABD),
        dict(zip(LEVELS, [(1, 1), (1, 0), (1, 0), (1, 1), (1, 1), (1, 0), (1, 0)], strict=True)),
        "d",
    ),
    "required-field-then-dropped": (
        (A, AB_REQUIRED, AE_DEFAULT),
        dict(zip(LEVELS, [(1, 1), (0, 1), (0, 1), (1, 0), (1, 0), (0, 1), (0, 1)], strict=True)),
        "b",
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("chain", list(CHAINS))
def test_level_over_a_chain_of_three_versions(registry_url: str, chain: str, level: str) -> None:
    schemas, expected, field = CHAINS[chain]
    subject = f"{chain}-{level}-{uuid.uuid4().hex[:8]}-value"
    url = f"{registry_url}/subjects/{subject}/versions"
    put = requests.put(f"{registry_url}/config/{subject}", json={"compatibility": level}, timeout=10)
    assert put.json() == {"compatibility": level}
    assert requests.post(url, json=body(schemas[0]), timeout=10).status_code == 200
    for step, (schema, accepted) in enumerate(zip(schemas[1:], expected[level], strict=True), start=2):
        probe = requests.post(
            f"{registry_url}/compatibility/subjects/{subject}/versions?verbose=true",
            json=body(schema),
            timeout=10,
        )
        assert probe.json()["is_compatible"] is bool(accepted), (step, probe.json())
        resp = requests.post(url, json=body(schema), headers={"Content-Type": CT}, timeout=10)
        if accepted:
            assert resp.status_code == 200, (step, resp.json())
        else:
            assert resp.status_code == 409, (step, resp.json())
            assert resp.json()["error_code"] == 409
            message = resp.json()["message"]
            assert field in message and level in message, message
            assert probe.json()["messages"], "verbose answers say why"
    live = requests.get(url, timeout=10).json()
    assert live == list(range(1, 2 + sum(expected[level]))), "refused schemas take no version"
