"""Datasets can be removed from a workspace without losing their runs' reviews (a soft
delete), and runs record when their status last changed (interrupted runs list it).

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    # batch mode: SQLite cannot ALTER TABLE ... ADD CONSTRAINT, so Alembic copies the table
    with op.batch_alter_table("datasets") as batch:
        batch.add_column(sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("deleted_by", sa.String(320), nullable=True))
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_runs_status", ["status"])


def downgrade():
    with op.batch_alter_table("runs") as batch:
        batch.drop_index("ix_runs_status")
        batch.drop_column("updated_at")
    with op.batch_alter_table("datasets") as batch:
        batch.drop_column("deleted_by")
        batch.drop_column("deleted_at")
