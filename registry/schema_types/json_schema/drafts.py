"""The JSON Schema drafts the registry accepts, and how a document says which one it is written in.

A document names its draft with ``$schema``; without one it is draft 7, as Confluent's default. Each draft
brings the ``jsonschema`` validator whose metaschema checks the document, the ``referencing``
specification that finds its ``$id``s and anchors, and the few differences the rules care about (the
keyword of an id, whether ``$ref`` excludes its siblings, 2020-12's ``prefixItems``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import referencing.jsonschema
from jsonschema import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)
from jsonschema.protocols import Validator
from referencing import Specification

__all__ = ["DEFAULT_DRAFT", "DRAFTS", "Draft", "UnknownDraft", "draft_of"]


@dataclass(frozen=True)
class Draft:
    """One draft of JSON Schema."""

    name: str
    uri: str  # as ``$schema`` names it, without the trailing "#"
    validator: type[Validator]
    specification: Specification[Any]
    id_keyword: str = "$id"
    #: 2019-09 and later: ``$ref`` is one keyword among others, not a replacement of its object;
    #: ``dependentRequired``/``dependentSchemas``, ``unevaluated*`` and ``*Contains`` exist.
    modern: bool = False
    #: 2020-12: ``prefixItems`` holds a tuple's items and ``items`` what follows them.
    prefix_items: bool = False


DRAFTS: tuple[Draft, ...] = (
    Draft(
        "draft-04",
        "http://json-schema.org/draft-04/schema",
        Draft4Validator,
        referencing.jsonschema.DRAFT4,
        "id",
    ),
    Draft(
        "draft-06", "http://json-schema.org/draft-06/schema", Draft6Validator, referencing.jsonschema.DRAFT6
    ),
    Draft(
        "draft-07", "http://json-schema.org/draft-07/schema", Draft7Validator, referencing.jsonschema.DRAFT7
    ),
    Draft(
        "2019-09",
        "https://json-schema.org/draft/2019-09/schema",
        Draft201909Validator,
        referencing.jsonschema.DRAFT201909,
        modern=True,
    ),
    Draft(
        "2020-12",
        "https://json-schema.org/draft/2020-12/schema",
        Draft202012Validator,
        referencing.jsonschema.DRAFT202012,
        modern=True,
        prefix_items=True,
    ),
)

#: The draft of a document without ``$schema`` (Confluent's default).
DEFAULT_DRAFT = DRAFTS[2]


class UnknownDraft(ValueError):
    """``$schema`` names no draft the registry accepts; the message names the ones it does."""


def _key(uri: str) -> str:
    """``$schema`` as compared: without a trailing "#" or empty fragment, http and https alike."""
    uri = uri.strip().rstrip("#")
    return uri.removeprefix("https://").removeprefix("http://")


_BY_KEY = {_key(draft.uri): draft for draft in DRAFTS}


def draft_of(document: Any) -> Draft:
    """The draft ``document`` is written in; raises :class:`UnknownDraft` for another ``$schema``."""
    if not isinstance(document, dict) or "$schema" not in document:
        return DEFAULT_DRAFT
    declared = document["$schema"]
    found = _BY_KEY.get(_key(declared)) if isinstance(declared, str) else None
    if found is None:
        known = ", ".join(f"{d.uri} ({d.name})" for d in DRAFTS)
        raise UnknownDraft(f"$schema {declared!r} names no draft this registry accepts; use one of {known}")
    return found
