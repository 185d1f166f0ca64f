"""Where a schema's ``$ref``s lead: its own document and the documents its references name.

A ``$ref`` to another document names it by URI; the registry gives a schema its references by name
(``Reference(name, schema)``), and a reference is found where its name is the ref's URI without the
fragment. As in Confluent, a name is resolved against the document's ``$id`` like the ref is, so
``"$ref": "customer.json"`` in a document with ``"$id": "https://example.com/order.json"`` finds the
reference named ``customer.json`` (and one named ``https://example.com/customer.json``). Local refs
(``#/definitions/x``, ``#/$defs/x``, anchors) resolve in the document. The ``referencing`` package does
the URI work; nothing is fetched (the drafts' metaschemas are known, anything else must be a reference).

``$dynamicRef`` and ``$recursiveRef`` are followed as plain refs (their static target), which is what a
schema that does not override its anchors means.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from jsonschema_specifications import REGISTRY as METASCHEMAS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable

from registry.compatibility.problems import SchemaProblem, pointer_join
from registry.schema_types.json_schema.drafts import Draft
from registry.schema_types.json_schema.keywords import ANNOTATIONS, subschemas

if TYPE_CHECKING:
    from referencing._core import Resolver  # the type of Registry.resolver(); not exported by the package

__all__ = ["REF_KEYWORDS", "Document", "Place", "Refs", "Unresolved", "referenced_documents"]

#: The keywords that point at another schema, in the order looked at.
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


@dataclass(frozen=True)
class Document:
    """One document a schema's refs may reach: ``label`` is ``""`` for the schema's own, else the name
    of the reference it came with."""

    label: str
    contents: Any
    draft: Draft
    uris: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Place:
    """A schema value, where it is (document and JSON pointer), and how refs inside it resolve."""

    value: Any
    document: Document
    pointer: str
    resolver: Resolver[Any] = field(repr=False)

    @property
    def key(self) -> tuple[str, str]:
        return self.document.label, self.pointer

    @property
    def draft(self) -> Draft:
        return self.document.draft

    def shown(self, *tokens: str | int) -> str:
        """The pointer to show: plain in the schema's own document, ``name#/pointer`` in a reference."""
        pointer = pointer_join(self.pointer, *tokens)
        return pointer if not self.document.label else f"{self.document.label}#{pointer}"

    def ref(self) -> str | None:
        """The ref this schema is, or ``None``."""
        if isinstance(self.value, dict):
            for keyword in REF_KEYWORDS:
                if isinstance(self.value.get(keyword), str):
                    return self.value[keyword]
        return None

    def only_ref(self) -> bool:
        """Whether the schema is its ref and nothing else: before 2019-09 a ref's siblings are ignored."""
        if self.ref() is None:
            return False
        return not self.draft.modern or all(k in ANNOTATIONS or k in REF_KEYWORDS for k in self.value)


class Unresolved(ValueError):
    """A ``$ref`` leads nowhere; the message says which and why."""


class Refs:
    """The documents of one schema (its own and its references', transitively) and lookups among them."""

    def __init__(self, contents: Any, draft: Draft, references: Sequence[tuple[str, Refs]] = ()) -> None:
        own_id = _id_of(contents, draft)
        self.main = Document("", contents, draft, ("", own_id) if own_id else ("",))
        documents: dict[str, Document] = {}
        for name, theirs in references:
            uris = {name, urljoin(own_id, name)} if own_id else {name}
            documents.setdefault(name, Document(name, theirs.main.contents, theirs.main.draft, tuple(uris)))
            for nested in theirs.documents[1:]:
                documents.setdefault(nested.label, nested)
        self.documents: tuple[Document, ...] = (self.main, *documents.values())
        pairs = [
            (uri, Resource(document.contents, specification=document.draft.specification))
            for document in self.documents
            for uri in document.uris
        ]
        self.registry: Registry[Any] = METASCHEMAS.with_resources(pairs).crawl()
        self._by_uri = {uri: document for document in self.documents for uri in document.uris}
        self._where: dict[int, tuple[Document, str]] = {}
        for document in self.documents:
            for pointer, container in _containers(document.contents):
                self._where.setdefault(id(container), (document, pointer))

    def root(self) -> Place:
        return Place(self.main.contents, self.main, "", self.registry.resolver(base_uri=self.main.uris[-1]))

    @staticmethod
    def child(place: Place, pointer: str, value: Any) -> Place:
        """The subschema ``value`` at ``pointer`` below ``place``; an ``$id`` there changes the base URI."""
        resolver = place.resolver
        if isinstance(value, dict) and isinstance(value.get(place.draft.id_keyword), str):
            resolver = resolver.in_subresource(Resource(value, specification=place.draft.specification))
        return Place(value, place.document, pointer, resolver)

    def follow(self, place: Place) -> Place:
        """Where the ref of ``place`` leads; raises :class:`Unresolved`."""
        ref = place.ref()
        assert ref is not None
        try:
            resolved = place.resolver.lookup(ref)
        except PointerToNowhere:
            raise Unresolved(
                f"$ref {ref!r} leads nowhere: its document has no {urldefrag(ref).fragment!r}"
            ) from None
        except NoSuchAnchor:
            raise Unresolved(
                f"$ref {ref!r} leads nowhere: its document has no anchor {urldefrag(ref).fragment!r}"
            ) from None
        except Unresolvable:
            uri = urldefrag(ref).url
            names = ", ".join(repr(d.label) for d in self.documents[1:]) or "none"
            raise Unresolved(
                f"$ref {ref!r} names the document {uri!r}, which is none of the schema's references "
                f"(given: {names}); add a reference named {uri!r}"
            ) from None
        found = self._where.get(id(resolved.contents))
        if found is not None:
            document, pointer = found
        else:  # true or false, which have no identity of their own, or a part of a metaschema
            uri, fragment = urldefrag(urljoin(_base(place), ref))
            document = self._by_uri.get(uri) or Document(uri, None, place.draft, (uri,))
            pointer = unquote(fragment) if fragment.startswith("/") else ""
        return Place(resolved.contents, document, pointer, resolved.resolver)

    def target(self, place: Place) -> Place:
        """``place`` with its refs followed while it is nothing but a ref; raises :class:`Unresolved` for a
        ref that leads nowhere or back to itself."""
        seen = {place.key}
        while place.only_ref():
            ref = place.ref()
            place = self.follow(place)
            if place.key in seen:
                raise Unresolved(
                    f"$ref {ref!r} is a loop: it leads back to itself without describing anything"
                )
            seen.add(place.key)
        return place

    def problems(self) -> list[SchemaProblem]:
        """Every ref of the schema's own document that leads nowhere, or around in a loop of refs."""
        found: list[SchemaProblem] = []
        todo = [self.root()]
        while todo:
            place = todo.pop()
            keyword = next(
                (k for k in REF_KEYWORDS if isinstance(place.value, dict) and k in place.value), None
            )
            if keyword is not None and place.ref() is not None:
                try:
                    self.target(place) if place.only_ref() else self.follow(place)
                except Unresolved as exc:
                    found.append(SchemaProblem(pointer_join(place.pointer, keyword), str(exc)))
            todo.extend(
                self.child(place, pointer, value) for pointer, value in subschemas(place.value, place.pointer)
            )
        return sorted(found, key=lambda p: p.pointer)


def _id_of(contents: Any, draft: Draft) -> str:
    if isinstance(contents, dict) and isinstance(contents.get(draft.id_keyword), str):
        return urldefrag(contents[draft.id_keyword]).url
    return ""


def _base(place: Place) -> str:
    return place.resolver._base_uri  # the base is public in lookups only; a false/true target needs it


def _containers(value: Any) -> Iterator[tuple[str, Any]]:
    """Every object and array in ``value``, with its pointer."""
    todo: list[tuple[str, Any]] = [("", value)]
    while todo:
        pointer, item = todo.pop()
        if isinstance(item, dict):
            yield pointer, item
            todo.extend((pointer_join(pointer, k), v) for k, v in item.items() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            yield pointer, item
            todo.extend(
                (pointer_join(pointer, i), v) for i, v in enumerate(item) if isinstance(v, (dict, list))
            )


def referenced_documents(text: str) -> tuple[str, ...]:
    """The other documents the schema ``text`` refers to by a relative URI (``customer.json`` of
    ``"$ref": "customer.json#/$defs/address"``), each once, in the order of a walk over its subschemas:
    the names its references go by. Absolute URIs (with a scheme or a host) name no file; text that is
    not JSON names none."""
    try:
        document = json.loads(text)
    except ValueError:
        return ()
    found: dict[str, None] = {}
    todo: list[Any] = [document]
    while todo:
        schema = todo.pop(0)
        for keyword in REF_KEYWORDS:
            value = schema.get(keyword) if isinstance(schema, dict) else None
            if isinstance(value, str):
                uri = urldefrag(value).url
                parts = urlsplit(uri)
                if uri and not parts.scheme and not parts.netloc:
                    found.setdefault(uri)
        todo.extend(value for _, value in subschemas(schema, ""))
    return tuple(found)
