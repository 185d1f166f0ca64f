"""The Apache ``avro`` package's compatibility checker, used as a test oracle only."""

from __future__ import annotations

import json
from typing import Any

import avro.schema
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

from registry.compatibility import IncompatibilityKind


def oracle_kinds(reader: Any, writer: Any) -> set[IncompatibilityKind] | None:
    """The set of kinds the oracle reports; None when it finds the pair compatible."""
    r = avro.schema.parse(json.dumps(reader))
    w = avro.schema.parse(json.dumps(writer))
    result = ReaderWriterCompatibilityChecker().get_compatibility(r, w)
    if result.compatibility is SchemaCompatibilityType.compatible:
        return None
    return {IncompatibilityKind(kind.value.upper()) for kind in result.incompatibilities}
