"""A parsed JSON schema: its text, canonical forms and what the rules, the diff and the tree walk."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from registry.schema_types.json_schema.drafts import Draft
from registry.schema_types.json_schema.model import Model
from registry.schema_types.json_schema.refs import Refs

__all__ = ["ParsedJsonSchema"]

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class ParsedJsonSchema:
    """A valid JSON schema; build it with ``JsonSchema().parse``.

    ``canonical`` is the document as compact JSON with its keys sorted: what two texts that differ only in
    layout and key order share. Every keyword can change what data is valid (or what people read), so
    nothing is dropped and ``identity`` is the same text. Equality is the text's.
    """

    schema_type: ClassVar[str] = "JSON"
    text: str
    canonical: str
    identity: str
    fingerprint: str
    document: Any = field(compare=False, hash=False, repr=False)
    draft: Draft = field(compare=False, repr=False)
    refs: Refs = field(compare=False, hash=False, repr=False)

    @property
    def normalized(self) -> str:
        """What ``normalize=true`` registers: the canonical document."""
        return self.canonical

    @cached_property
    def model(self) -> Model:
        """The document as the rules see it (built on first use)."""
        return Model(self.refs).build_all()

    @property
    def label(self) -> str:
        """The first segment of field paths: the schema's ``title`` when it is a plain name, else ``$``."""
        title = self.document.get("title") if isinstance(self.document, dict) else None
        return title if isinstance(title, str) and _PLAIN_NAME.match(title) else "$"
