"""Initial registry schema: global state, schemas, subjects, subject versions, references.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-23 03:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    state = op.create_table(
        "registry_state",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("compatibility", sa.String(length=32), nullable=True),
        sa.Column("mode", sa.String(length=16), nullable=True),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    # The lock row every write transaction takes; it must exist before the first request.
    op.bulk_insert(state, [{"id": 1, "compatibility": None, "mode": None, "epoch": 0}])
    op.create_table(
        "schemas",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("identity_hash", sa.String(length=64), nullable=False),
        sa.Column("schema_type", sa.String(length=16), nullable=False),
        sa.Column("schema_text", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("references_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("identity_hash"),
    )
    op.create_index("ix_schemas_fingerprint", "schemas", ["fingerprint"])
    op.create_table(
        "subjects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("compatibility", sa.String(length=32), nullable=True),
        sa.Column("mode", sa.String(length=16), nullable=True),
        sa.Column("last_version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "subject_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("subject_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("schema_id", sa.Integer(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["schema_id"], ["schemas.id"]),
        sa.ForeignKeyConstraint(["subject_id"], ["subjects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("subject_id", "version", name="uq_subject_versions_subject_version"),
    )
    op.create_index("ix_subject_versions_schema_id", "subject_versions", ["schema_id"])
    op.create_table(
        "schema_references",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("schema_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["schema_id"], ["schemas.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_schema_references_target", "schema_references", ["subject", "version"])


def downgrade() -> None:
    op.drop_index("ix_schema_references_target", table_name="schema_references")
    op.drop_table("schema_references")
    op.drop_index("ix_subject_versions_schema_id", table_name="subject_versions")
    op.drop_table("subject_versions")
    op.drop_table("subjects")
    op.drop_index("ix_schemas_fingerprint", table_name="schemas")
    op.drop_table("schemas")
    op.drop_table("registry_state")
