"""Data contracts: each schema's metadata, rule set and GUID; contract config globally and per subject.

Columns are added in place (no table rebuild), because SQLite rebuilds a table by dropping it, which its
foreign keys forbid for ``schemas`` and ``subjects`` while rows reference them. That is also why ``guid``
is a nullable column with a unique index: every existing row gets its GUID here, and every new one when
it is written.

Revision ID: 0003_data_contracts
Revises: 0002_users
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_data_contracts"
down_revision: str | None = "0002_users"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SETTINGS_TABLES = ("registry_state", "subjects")


def _guid(identity_hash: str) -> str:
    """The GUID of a schema row, as ``registry.service.schemas.guid_for`` computes it (frozen here)."""
    raw = bytearray(bytes.fromhex(identity_hash)[:16])
    raw[6] = (raw[6] & 0x0F) | 0x80
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


def _settings_columns() -> list[sa.Column]:
    return [
        sa.Column("compatibility_group", sa.String(length=255), nullable=True),
        sa.Column("default_metadata", sa.Text(), nullable=True),
        sa.Column("override_metadata", sa.Text(), nullable=True),
        sa.Column("default_rule_set", sa.Text(), nullable=True),
        sa.Column("override_rule_set", sa.Text(), nullable=True),
    ]


def upgrade() -> None:
    op.add_column("schemas", sa.Column("guid", sa.String(length=36), nullable=True))
    op.add_column("schemas", sa.Column("metadata_json", sa.Text(), nullable=True))
    op.add_column("schemas", sa.Column("rule_set_json", sa.Text(), nullable=True))
    schemas = sa.table(
        "schemas", sa.column("id", sa.Integer()), sa.column("identity_hash"), sa.column("guid")
    )
    connection = op.get_bind()
    for schema_id, identity_hash in connection.execute(sa.select(schemas.c.id, schemas.c.identity_hash)):
        connection.execute(
            schemas.update().where(schemas.c.id == schema_id).values(guid=_guid(identity_hash))
        )
    op.create_index("ix_schemas_guid", "schemas", ["guid"], unique=True)
    for table in SETTINGS_TABLES:
        for column in _settings_columns():
            op.add_column(table, column)


def downgrade() -> None:
    for table in SETTINGS_TABLES:
        for column in reversed(_settings_columns()):
            op.drop_column(table, column.name)
    op.drop_index("ix_schemas_guid", table_name="schemas")
    for name in ("rule_set_json", "metadata_json", "guid"):
        op.drop_column("schemas", name)
