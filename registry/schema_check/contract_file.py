"""A schema's data contract beside it in git: ``schemas/<topic>.avsc`` (or ``.proto``, ``.json``) +
``schemas/<topic>.meta.json``.

The sidecar holds what a registration sends besides the schema, in the registry API's own shape, so that
a contract is reviewed and versioned like the schema it governs::

    {
      "metadata": {"properties": {"owner": "payments", "major": "2"}, "tags": {"Payment.iban": ["PII"]}},
      "ruleSet": {"domainRules": [{"name": "positive", "kind": "CONDITION", "mode": "WRITE",
                                   "type": "CEL", "expr": "message.amount > 0"}]}
    }

Both keys are optional. It is validated with the registry's own rules, so a contract the registry would
refuse fails the commit with ``file:line:column``. Without a sidecar, a registration carries the previous
version's contract forward (as the registry does); ``{"metadata": {}}`` removes the metadata.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from registry.schema_check.checker import FileResult, Finding, Status
from registry.schema_check.layout import CONTRACT_SUFFIX, SchemaFile, split_name
from registry.schema_check.source_positions import START, Position, SourceIndex
from registry.schema_types import DEFAULT_SCHEMA_TYPE, all_types, schema_type
from registry.service.contracts import Metadata, RuleSet, parse_metadata, parse_rule_set
from registry.service.errors import RegistryError

__all__ = [
    "CONTRACT_SUFFIX",
    "INVALID_CONTRACT",
    "Contract",
    "ContractError",
    "parse_contract",
    "read_contract",
    "schema_path_of",
    "sidecar_of",
]

INVALID_CONTRACT = "invalid-contract"
_KEYS = {"metadata": parse_metadata, "ruleSet": parse_rule_set}


@dataclass(frozen=True)
class Contract:
    """A sidecar's metadata and rule set (``None``: not given), in the registry's canonical form."""

    metadata: Metadata | None = None
    rule_set: RuleSet | None = None

    def body(self) -> dict[str, Any]:
        """The fields a registration or lookup request carries."""
        out: dict[str, Any] = {}
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.rule_set is not None:
            out["ruleSet"] = self.rule_set
        return out


class ContractError(ValueError):
    """The sidecar is not a valid contract; ``finding`` says where in it and why."""

    def __init__(self, path: Path, finding: Finding) -> None:
        super().__init__(finding.message)
        self.path = path
        self.finding = finding

    def result(self, file: SchemaFile) -> FileResult:
        """The schema file's result: invalid, with the finding in the sidecar."""
        return FileResult(file, Status.INVALID, (self.finding,))


def sidecar_of(schema_path: Path) -> Path:
    """``x/page_view.avsc`` -> ``x/page_view.meta.json`` (``.key.proto`` -> ``.key.meta.json``)."""
    split = split_name(schema_path.name)
    stem = split[0] if split is not None else schema_path.stem
    return schema_path.with_name(stem + CONTRACT_SUFFIX)


def schema_path_of(path: Path) -> Path | None:
    """The schema a sidecar belongs to, so a commit that changes only the contract checks it too: the
    file of that stem of whichever type is there (an ``.avsc`` when none is, which then cannot be read)."""
    if not path.name.endswith(CONTRACT_SUFFIX):
        return None
    stem = path.name[: -len(CONTRACT_SUFFIX)]
    candidates = [path.with_name(stem + kind.file_suffix) for kind in all_types()]
    present = [candidate for candidate in candidates if candidate.exists()]
    return present[0] if present else path.with_name(stem + schema_type(DEFAULT_SCHEMA_TYPE).file_suffix)


def parse_contract(text: str, path: Path) -> Contract:
    """Validates a sidecar's text; raises :class:`ContractError` pointing into it."""

    def refuse(message: str, pointer: str = "", position: Position | None = None) -> ContractError:
        where = position or (SourceIndex(text).value(pointer) if pointer else START)
        return ContractError(path, Finding(where, INVALID_CONTRACT, message, path_display=path.as_posix()))

    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise refuse(f"not JSON: {exc.msg}", position=Position(exc.lineno, exc.colno)) from None
    if not isinstance(document, dict):
        raise refuse('a contract file is a JSON object with "metadata" and/or "ruleSet"')
    unknown = sorted(set(document) - set(_KEYS))
    if unknown:
        known = 'a contract file has "metadata" and "ruleSet"'
        raise refuse(f"unknown key {unknown[0]!r} ({known})", f"/{unknown[0]}")
    parsed: dict[str, Any] = {}
    for key, parse in _KEYS.items():
        try:
            parsed[key] = parse(document.get(key), key)
        except RegistryError as exc:
            raise refuse(exc.message, f"/{key}") from None
    return Contract(parsed["metadata"], parsed["ruleSet"])


def read_contract(schema_path: Path) -> Contract | None:
    """The sidecar of a schema file, or ``None`` when it has none; ``OSError`` when it cannot be read."""
    path = sidecar_of(schema_path)
    if not path.exists():
        return None
    return parse_contract(path.read_text(encoding="utf-8-sig"), path)
