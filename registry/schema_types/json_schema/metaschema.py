"""A document checked against its draft's metaschema: valid in microseconds, and if not, why and where.

Walking ``jsonschema``'s validator over the metaschema was about 70% of parsing a 30-field schema (some
2 ms of its 2.6 ms on a quiet machine). So a compiled validator (``jsonschema-rs``, built once per draft
with format checks off, as ``jsonschema`` runs without a format checker, and offline: each draft's
metaschemas ship inside it) says whether the document is valid, and only a document it finds invalid
(or cannot take, as a number it cannot hold) is walked by ``jsonschema``, whose errors carry the paths
that become the problems' pointers, lines and columns. ``jsonschema`` stays the judge: a document the fast
check refuses but ``jsonschema`` accepts is valid, so the fast check can only ever cost time.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema_rs

from registry.compatibility.problems import SchemaProblem, pointer_join
from registry.schema_types.json_schema.drafts import DRAFTS, Draft

__all__ = ["metaschema_problems"]

#: Characters of a metaschema message kept (they quote the offending value, which may be big).
_MAX_MESSAGE = 300

_FAST: dict[str, type[Any]] = {
    "draft-04": jsonschema_rs.Draft4Validator,
    "draft-06": jsonschema_rs.Draft6Validator,
    "draft-07": jsonschema_rs.Draft7Validator,
    "2019-09": jsonschema_rs.Draft201909Validator,
    "2020-12": jsonschema_rs.Draft202012Validator,
}


def metaschema_problems(document: Any, draft: Draft, limit: int) -> list[SchemaProblem]:
    """Where and why ``document`` is not valid against ``draft``'s metaschema (at most ``limit``
    problems, sorted by pointer); empty when it is valid."""
    if _fast_valid(document, draft):
        return []
    found = []
    for error in _validator(draft.name).iter_errors(document):
        message = error.message
        if len(message) > _MAX_MESSAGE:
            message = message[: _MAX_MESSAGE - 3] + "..."
        found.append(
            SchemaProblem(pointer_join("", *error.absolute_path), f"not valid {draft.name}: {message}")
        )
        if len(found) >= limit:
            break
    return sorted(found, key=lambda p: (p.pointer, p.message))


def _fast_valid(document: Any, draft: Draft) -> bool:
    try:
        return bool(_fast_validator(draft.name).is_valid(document))
    except Exception:  # a value it cannot convert: let jsonschema judge
        return False


_BY_NAME = {draft.name: draft for draft in DRAFTS}


@cache
def _fast_validator(name: str) -> Any:
    """The compiled validator of draft ``name``'s metaschema, built once (both kinds are immutable, so
    one serves every thread)."""
    return _FAST[name](_BY_NAME[name].validator.META_SCHEMA, validate_formats=False, offline=True)


@cache
def _validator(name: str) -> Any:
    """``jsonschema``'s validator of draft ``name``'s metaschema, built once."""
    validator = _BY_NAME[name].validator
    return validator(validator.META_SCHEMA)
