"""An export taken while the registry is being written to is one consistent snapshot, on PostgreSQL too."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from registry.service.bodies import SchemaRequest
from registry.storage import migrate
from registry.storage.backup import export_registry, validate
from registry.storage.db import Database
from registry.storage.repository import Registry
from tests.fixtures.postgres import PostgresCluster
from tests.registry.api.helpers import record


@pytest.mark.integration
def test_a_registration_during_an_export_is_wholly_in_it_or_wholly_out(
    postgres_cluster: PostgresCluster,
) -> None:
    url = postgres_cluster.create_database("export_snapshot")
    migrate.upgrade(url)
    writer, exporting = Registry(Database(url)), Database(url)
    writer.register("before-value", SchemaRequest(record(a="int")))
    registered: list[int] = []

    def register_after_the_schemas_query(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        """Commits a new schema and version from another connection right after the export read schemas."""
        if not registered and "FROM schemas" in statement:
            registered.append(writer.register("during-value", SchemaRequest(record(b="long"))).id)

    event.listen(exporting.engine, "after_cursor_execute", register_after_the_schemas_query)
    try:
        document = export_registry(exporting)
    finally:
        exporting.dispose()
        writer.db.dispose()
    assert registered, "the registration ran in the middle of the export"
    validate(document)  # every version's schema id is in the document
    assert [s["name"] for s in document["subjects"]] == ["before-value"]
    assert [s["id"] for s in document["schemas"]] == [1]
