"""Parsing Canonical Form, its fingerprints, and the registry's "identity form".

Parsing Canonical Form (PCF) follows the specification's "Parsing Canonical Form for Schemas": primitives
as bare names, full names everywhere and no ``namespace``, only the attributes that matter to parsing
(``type``, ``name``, ``fields``, ``symbols``, ``items``, ``values``, ``size``) in that order, integers
without leading zeros, no whitespace; a named type is written out in full at its first occurrence and by
name afterwards. Its fingerprints are CRC-64-AVRO (the spec's Rabin fingerprint, returned as an unsigned
64-bit int) and SHA-256 (hex) of the UTF-8 text.

PCF is the right key for "can these two schemas read each other's bytes", but it is the wrong key for
"is this the same registration": two schemas that differ only in a field ``default`` or in a
``logicalType`` have the same PCF yet behave differently (schema resolution, decoded values), and must
not share a registry id. The *identity form* therefore applies the PCF rules (full names, no namespace,
fixed order of the PCF attributes, no whitespace) but KEEPS, after the PCF attributes and sorted by key:
``aliases`` (of named types, fully qualified), ``default``, ``doc``, ``order`` (dropped when it is the
implicit ``"ascending"``), ``logicalType`` and its parameters, and any other custom property. Whitespace,
key order, namespace spelling and the ``{"type": "int"}`` vs ``"int"`` spelling still do not matter.
The identity form is itself a valid schema that parses back to the same identity form (the registry may
store it as the normalized text); to keep that true it adds ``"namespace": ""`` to a type of the null
namespace defined inside a namespaced one, which PCF's full names cannot express.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from registry.compatibility.schema_model import Field, Node

RABIN_EMPTY = 0xC15D213AA4D7A795


def _rabin_table() -> list[int]:
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (RABIN_EMPTY & -(fp & 1))
        table.append(fp)
    return table


_RABIN_TABLE = _rabin_table()


def rabin_fingerprint(data: bytes) -> int:
    """CRC-64-AVRO of ``data`` as the specification defines it (unsigned; Java's ``long`` is signed)."""
    fp = RABIN_EMPTY
    table = _RABIN_TABLE
    for byte in data:
        fp = (fp >> 8) ^ table[(byte ^ fp) & 0xFF]
    return fp


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class _Writer:
    """Writes one form; ``keep_props`` switches between PCF and the identity form."""

    def __init__(self, keep_props: bool) -> None:
        self.keep_props = keep_props
        self.seen: set[str] = set()
        self.space = ""  # namespace of the innermost named type being written

    def write(self, node: Node) -> str:
        kind = node.type
        if kind == "union":
            return "[" + ",".join(self.write(b) for b in node.branches) + "]"
        if node.name is not None:
            # Names, field names and symbols match the Avro name pattern: nothing to escape in them.
            if node.name in self.seen:
                return f'"{node.name}"'
            self.seen.add(node.name)
            outer, self.space = self.space, node.name.rpartition(".")[0]
            parts = [f'"name":"{node.name}"', f'"type":"{kind}"']
            if kind == "record":
                parts.append('"fields":[' + ",".join(self.field(f) for f in node.fields) + "]")
            elif kind == "enum":
                parts.append('"symbols":[' + ",".join(f'"{s}"' for s in node.symbols) + "]")
            elif kind == "fixed":
                parts.append(f'"size":{node.size}')
            self.space = outer
            extra: dict[str, Any] = {}
            if node.aliases:
                extra["aliases"] = list(node.aliases)
            if node.enum_default is not None:
                extra["default"] = node.enum_default
            if outer and "." not in node.name:
                # Without this a re-parse would put the type in the enclosing namespace (PCF has the
                # same ambiguity, but PCF's attribute list is fixed by the specification).
                extra["namespace"] = ""
            return self.close(parts, node.props, extra)
        if kind == "array":
            return self.close(['"type":"array"', f'"items":{self.write(node.items)}'], node.props)  # type: ignore[arg-type]
        if kind == "map":
            return self.close(['"type":"map"', f'"values":{self.write(node.values)}'], node.props)  # type: ignore[arg-type]
        if self.keep_props and node.props:
            return self.close([f'"type":"{kind}"'], node.props)
        return f'"{kind}"'

    def field(self, f: Field) -> str:
        parts = [f'"name":"{f.name}"', f'"type":{self.write(f.type)}']
        if not self.keep_props:
            return "{" + ",".join(parts) + "}"
        extra: dict[str, Any] = {}
        if f.aliases:
            extra["aliases"] = list(f.aliases)
        if f.has_default:
            extra["default"] = f.default
        return self.close(parts, f.props, extra)

    def close(self, parts: list[str], props: dict[str, Any], extra: dict[str, Any] | None = None) -> str:
        if self.keep_props:
            kept = dict(props)
            kept.pop("namespace", None)
            if extra:
                kept.update(extra)
            if kept.get("order") == "ascending":
                del kept["order"]
            parts = parts + [f"{json.dumps(k, ensure_ascii=False)}:{_dump(kept[k])}" for k in sorted(kept)]
        return "{" + ",".join(parts) + "}"


def parsing_canonical_form(node: Node) -> str:
    """The specification's Parsing Canonical Form of ``node``."""
    return _Writer(keep_props=False).write(node)


def identity_form(node: Node) -> str:
    """PCF plus every attribute that changes meaning or documentation (see the module docstring)."""
    return _Writer(keep_props=True).write(node)
