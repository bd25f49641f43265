"""The first schema: workspaces, members, datasets, runs, saved views, reviews.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _stamp():
    return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)


def upgrade():
    op.create_table("workspaces", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("name", sa.String(200), nullable=False, unique=True), _stamp())
    op.create_table("members", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id"), nullable=False),
                    sa.Column("email", sa.String(320), nullable=False), sa.Column("role", sa.String(20), nullable=False),
                    _stamp(), sa.UniqueConstraint("workspace_id", "email"))
    op.create_table("datasets", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id"), nullable=False),
                    sa.Column("fingerprint", sa.String(64), nullable=False), sa.Column("name", sa.String(500), nullable=False),
                    sa.Column("source", sa.Text, nullable=False), sa.Column("roles", sa.JSON, nullable=False),
                    sa.Column("created_by", sa.String(320), nullable=False), _stamp(),
                    sa.UniqueConstraint("workspace_id", "fingerprint"))
    op.create_table("runs", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id"), nullable=False),
                    sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False),
                    sa.Column("key", sa.String(64), nullable=False), sa.Column("representation", sa.Text, nullable=False),
                    sa.Column("params", sa.JSON, nullable=False), sa.Column("seed", sa.Integer),
                    sa.Column("versions", sa.JSON, nullable=False), sa.Column("status", sa.String(20), nullable=False),
                    sa.Column("file", sa.Text), sa.Column("sha256", sa.String(64)),
                    sa.Column("created_by", sa.String(320), nullable=False), _stamp(),
                    sa.UniqueConstraint("workspace_id", "key"))
    op.create_table("views", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False),
                    sa.Column("name", sa.String(200), nullable=False), sa.Column("tau", sa.Float, nullable=False),
                    sa.Column("target_size", sa.Integer, nullable=False),
                    sa.Column("created_by", sa.String(320), nullable=False), _stamp())
    op.create_table("reviews", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False),
                    sa.Column("example_id", sa.String(200), nullable=False),
                    sa.Column("decision", sa.String(20), nullable=False), sa.Column("note", sa.Text, nullable=False),
                    sa.Column("reviewer", sa.String(320), nullable=False), _stamp())
    op.create_index("ix_reviews_run_id", "reviews", ["run_id"])
    op.create_index("ix_reviews_example_id", "reviews", ["example_id"])


def downgrade():
    for table in ("reviews", "views", "runs", "datasets", "members", "workspaces"):
        op.drop_table(table)
