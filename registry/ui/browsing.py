"""What the registry's web page shows, assembled from the repository the JSON API answers from.

Each function takes the repository (``registry.storage.repository.Registry``) and returns one plain value
per page, so the page's views only pick arguments and render, and the same reads serve both the page and
its benchmark. Nothing here opens a session: the repository does the I/O, the compatibility package and
the schema check do the thinking, exactly as for the API and ``registry check``.
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from registry.compatibility import Change, CompatibilityLevel, Conflict
from registry.schema_types import DEFAULT_SCHEMA_TYPE, FieldRow, Parsed, SchemaType, schema_type
from registry.service import errors
from registry.service.requests import LATEST, validate_subject
from registry.service.search import Digest, Hit, candidate_text, digest_hits, mentions, searchable
from registry.ui.candidate import ReferenceRow
from registry.ui.contract_diff import ContractChange, contract_changes
from registry.ui.contract_view import ConfigItem, ContractView, contract_view, subject_config
from registry.ui.field_tree import field_tree
from registry.ui.version_summary import version_summaries

if TYPE_CHECKING:
    from registry.storage.repository import Registry
    from registry.storage.views import (
        StoredSchema,
        SubjectHistory,
        SubjectListing,
        VersionRecord,
    )

PAGE_SIZE = 50


SORTS = ("name", "recent", "versions")


@dataclass(frozen=True)
class SubjectQuery:
    """What the subject list was asked for: text to find (in names, and with ``contains`` in the latest
    schemas too), soft-deleted subjects or not, a level and a mode to keep, an order, a page."""

    text: str = ""
    prefix_only: bool = False
    include_deleted: bool = False
    page: int = 1
    level: str = ""
    mode: str = ""
    sort: str = "name"


@dataclass(frozen=True)
class SubjectListPage:
    query: SubjectQuery
    listing: SubjectListing
    page_count: int
    #: Why a subject matched the text in its latest schema rather than (only) its name.
    hits: dict[str, tuple[Hit, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    """A subject version that uses a schema id."""

    subject: str
    version: int
    schema_id: int
    deleted: bool = False
    #: The version of the referenced subject this one uses (the subject page's "used by").
    uses: int | None = None


@dataclass(frozen=True)
class SchemaDetail:
    """One schema shown in full: its tree, its text as registered (JSON pretty-printed), its references,
    and its type's file suffix (the download's)."""

    id: int
    schema_type: str
    tree: tuple[FieldRow, ...]
    pretty: str
    references: tuple[dict[str, Any], ...]
    suffix: str = ".avsc"
    is_json: bool = True

    @property
    def title(self) -> str:
        """What the text block is called: ``Schema JSON``, or ``Schema (.proto)``."""
        return "Schema JSON" if self.is_json else f"Schema ({self.suffix})"


@dataclass(frozen=True)
class Download:
    """A version's schema as a file to save: its name, text and media type."""

    name: str
    text: str
    media_type: str


@dataclass(frozen=True)
class ContractBlock:
    """A titled JSON value shown with a version (its data contract: metadata, rule set)."""

    title: str
    pretty: str


@dataclass(frozen=True)
class SubjectPage:
    history: SubjectHistory
    version: VersionRecord
    schema: SchemaDetail
    referenced_by: tuple[Usage, ...]
    #: The version before the shown one, which the diff compares it with by default.
    previous: int | None
    #: The version's data contract (metadata, rule set), shown under the schema, one block each.
    contract: tuple[ContractBlock, ...] = field(default=())
    #: The same contract as rows (tags, properties, rules as a table).
    contract_rows: ContractView = field(default_factory=ContractView)
    #: Every config setting in force for the subject (level, compatibility group, contract defaults...).
    config: tuple[ConfigItem, ...] = ()
    #: The subject versions referencing any version of this subject, with the version each uses.
    used_by: tuple[Usage, ...] = ()
    #: Each version's change from the one before, in one line.
    summaries: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DiffLine:
    """A line of the text diff: ``kind`` is ``added``, ``removed``, ``hunk``, ``file`` or ``same``."""

    kind: str
    text: str


@dataclass(frozen=True)
class VersionDiff:
    """Two versions of a subject side by side: what changed, and whether the newer reads the older."""

    history: SubjectHistory
    old: VersionRecord
    new: VersionRecord
    changes: tuple[Change, ...]
    level: str
    #: Conflicts of ``new`` with ``old`` under ``level`` (none at NONE).
    conflicts: tuple[Conflict, ...]
    new_reads_old: bool
    old_reads_new: bool
    text_diff: tuple[DiffLine, ...]
    #: Metadata and rule-set changes (tags, properties, rules added, removed or changed).
    contract_changes: tuple[ContractChange, ...] = ()

    @property
    def compatible(self) -> bool:
        return not self.conflicts


@dataclass(frozen=True)
class SchemaPage:
    schema: SchemaDetail
    usages: tuple[Usage, ...]
    contract: tuple[ContractBlock, ...] = field(default=())
    contract_rows: ContractView = field(default_factory=ContractView)


def subject_list(registry: Registry, query: SubjectQuery) -> SubjectListPage:
    offset = (query.page - 1) * PAGE_SIZE
    found: dict[str, int] = {}
    digests: dict[int, Digest] = {}
    if query.text and not query.prefix_only:
        candidates = registry.latest_schemas_containing(candidate_text(query.text))
        digests = _digests(registry, [schema_id for _, schema_id in candidates])
        found = {name: sid for name, sid in candidates if mentions(digests.get(sid, ""), query.text)}
    listing = registry.subject_summaries(
        query.text,
        query.prefix_only,
        query.include_deleted,
        offset,
        PAGE_SIZE,
        also=found,
        level=query.level or None,
        mode=query.mode or None,
        sort=query.sort,
    )
    hits = {  # where each subject shown matched
        s.name: tuple(digest_hits(digests[found[s.name]], query.text))
        for s in listing.subjects
        if s.name in found
    }
    page_count = max(1, math.ceil(listing.total / PAGE_SIZE))
    if query.page > page_count:  # past the end (a bookmark of a longer list): the last page
        return subject_list(registry, replace(query, page=page_count))
    return SubjectListPage(query, listing, page_count, hits)


def _digests(registry: Registry, schema_ids: list[int]) -> dict[int, Digest]:
    """Search digests by schema id, made once per schema id and process (ids never change content)."""
    cache = registry.search_cache
    out = {sid: digest for sid in schema_ids if (digest := cache.get(sid)) is not None}
    missing = [sid for sid in schema_ids if sid not in out]
    for sid, stored in (registry.schemas_by_id(missing) if missing else {}).items():
        out[sid] = searchable(schema_type(stored.schema_type).search_entries(registry.parsed(stored)))
        cache.put(sid, out[sid])
    return out


def subject_page(registry: Registry, subject: str, version: int = LATEST) -> SubjectPage:
    """A subject's history and one version in full (default: the newest live one, else the newest)."""
    history = registry.subject_history(subject)
    shown = _pick(history, version)
    view = registry.get_version(subject, shown.version, include_deleted=True)
    numbers = [v.version for v in history.versions]
    position = numbers.index(shown.version)
    used_by = tuple(
        Usage(referrer, version, schema_id, deleted, uses)
        for uses, referrer, version, schema_id, deleted in registry.subject_referrers(subject)
    )
    return SubjectPage(
        history=history,
        version=shown,
        schema=schema_detail(registry, view.schema),
        referenced_by=tuple(u for u in used_by if u.uses == shown.version and not u.deleted),
        previous=numbers[position - 1] if position > 0 else None,
        contract=contract_blocks(view.schema),
        contract_rows=contract_view(view.schema.metadata, view.schema.rule_set),
        config=subject_config(registry, subject, history.settings.compatibility_own),
        used_by=used_by,
        summaries=version_summaries(registry, history),
    )


def version_diff(registry: Registry, subject: str, old: int | None = None, new: int = LATEST) -> VersionDiff:
    """``new`` against ``old`` (default: the newest version against the one before it)."""
    history = registry.subject_history(subject)
    if len(history.versions) < 2:
        raise errors.VersionNotFound(f"Subject '{subject}' has one version only: nothing to compare it with.")
    after = _pick(history, new)
    if old is None:
        position = history.versions.index(after)
        if position == 0:
            raise errors.VersionNotFound(
                f"Version {after.version} is the first version of '{subject}': choose one to compare it with."
            )
        before = history.versions[position - 1]
    else:
        before = _pick(history, old)
    old_view = registry.get_version(subject, before.version, include_deleted=True)
    new_view = registry.get_version(subject, after.version, include_deleted=True)
    old_schema, new_schema = registry.parsed(old_view.schema), registry.parsed(new_view.schema)
    kind = schema_type(new_schema.schema_type)
    level = history.settings.compatibility
    conflicts = kind.conflicts(new_schema, [(before.version, old_schema)], _single(level))
    return VersionDiff(
        history=history,
        old=before,
        new=after,
        changes=tuple(kind.diff(old_schema, new_schema)),
        level=level,
        conflicts=tuple(conflicts),
        new_reads_old=kind.reads(new_schema, old_schema),
        old_reads_new=kind.reads(old_schema, new_schema),
        text_diff=tuple(text_diff(kind, old_schema, new_schema, before.version, after.version)),
        contract_changes=tuple(contract_changes(old_view.schema.contract, new_view.schema.contract)),
    )


def schema_page(registry: Registry, schema_id: int) -> SchemaPage:
    stored = registry.get_schema(schema_id)
    live = set(registry.schema_usages(schema_id, include_deleted=False))
    usages = tuple(
        Usage(subject, version, schema_id, deleted=(subject, version) not in live)
        for subject, version in registry.schema_usages(schema_id, include_deleted=True)
    )
    return SchemaPage(
        schema_detail(registry, stored),
        usages,
        contract_blocks(stored),
        contract_view(stored.metadata, stored.rule_set),
    )


@dataclass(frozen=True)
class Prefill:
    """The check form's start: a schema text of a type, with its references as form rows."""

    text: str = ""
    rows: tuple[ReferenceRow, ...] = ()
    schema_type: str = DEFAULT_SCHEMA_TYPE


def check_prefill(registry: Registry, subject: str, max_subject_length: int) -> Prefill:
    """The check form's start for ``subject``: its latest live version (JSON pretty-printed), its type
    and its references as form rows; empty for no subject or one without live versions."""
    if not subject:
        return Prefill()
    try:
        validate_subject(subject, max_subject_length)
        view = registry.get_version(subject, LATEST)
    except (errors.InvalidSubject, errors.SubjectNotFound, errors.VersionNotFound):
        return Prefill()
    rows = tuple(
        ReferenceRow(str(ref["name"]), str(ref["subject"]), str(ref["version"]))
        for ref in view.schema.references
    )
    kind = schema_type(view.schema.schema_type)
    return Prefill(shown_text(kind, view.schema.schema), rows, kind.name)


def contract_blocks(stored: StoredSchema) -> tuple[ContractBlock, ...]:
    """The schema's metadata and rule set, each as indented JSON (none when it has no contract)."""
    parts = (("Metadata", stored.metadata), ("Rule set", stored.rule_set))
    return tuple(
        ContractBlock(title, json.dumps(value, indent=2, ensure_ascii=False))
        for title, value in parts
        if value
    )


def schema_detail(registry: Registry, stored: StoredSchema) -> SchemaDetail:
    parsed = registry.parsed(stored)
    kind = schema_type(stored.schema_type)
    return SchemaDetail(
        id=stored.id,
        schema_type=stored.schema_type,
        tree=tuple(field_tree(kind, parsed, stored.metadata)),
        pretty=shown_text(kind, stored.schema),
        references=stored.references,
        suffix=kind.file_suffix,
        is_json=kind.text_is_json,
    )


def schema_download(registry: Registry, subject: str, version: int) -> Download:
    """A version's schema as a file of its type (``<subject>-v<n>.avsc``, ``.proto``, ``.json``): JSON
    indented, other text as registered. Soft-deleted versions too, as the subject page shows them."""
    view = registry.get_version(subject, version, include_deleted=True)
    kind = schema_type(view.schema.schema_type)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in subject).strip("._") or "schema"
    text = shown_text(kind, view.schema.schema)
    return Download(f"{safe}-v{view.version}{kind.file_suffix}", text.rstrip("\n") + "\n", kind.media_type)


def shown_text(kind: SchemaType, text: str) -> str:
    """A schema's text for reading: JSON indented (stored JSON is valid: it was parsed when registered),
    other text (a ``.proto`` file) as registered."""
    return pretty_json(text) if kind.text_is_json else text


def pretty_json(text: str) -> str:
    """JSON text indented for reading."""
    return json.dumps(json.loads(text), indent=2, ensure_ascii=False)


def text_diff(
    kind: SchemaType, old: Parsed, new: Parsed, old_version: int, new_version: int
) -> list[DiffLine]:
    """A unified diff of the two schemas' identity forms, laid out for reading (``SchemaType.readable``).

    The identity form (Avro's: full names, attributes in a fixed order, docs, defaults and logical types
    kept) rather than the texts as registered, so that whitespace and key order do not show as changes.
    """
    before = kind.readable(old).splitlines()
    after = kind.readable(new).splitlines()
    lines = difflib.unified_diff(
        before, after, f"version {old_version}", f"version {new_version}", n=3, lineterm=""
    )
    return [DiffLine(_line_kind(line), line) for line in lines]


def _line_kind(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "added", "-": "removed"}.get(line[:1], "same")


def _pick(history: SubjectHistory, version: int) -> VersionRecord:
    """A version of the history: ``LATEST`` is the newest live one (the newest of all if none is live)."""
    if version == LATEST:
        live = [v for v in history.versions if not v.deleted]
        return (live or list(history.versions))[-1]
    for record in history.versions:
        if record.version == version:
            return record
    raise errors.VersionNotFound(f"Version {version} not found for subject '{history.name}'.")


def _single(level: str) -> CompatibilityLevel:
    """Between two versions a transitive level means the same as its plain form."""
    return CompatibilityLevel(level.removesuffix("_TRANSITIVE"))
