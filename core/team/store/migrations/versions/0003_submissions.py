"""Examples written by creators and their validation (paper 002 §3.2): submissions with the
feedback they were written against, and validators' decisions (append-only).

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table("submissions", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("workspace_id", sa.Integer, sa.ForeignKey("workspaces.id"), nullable=False),
                    sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False),
                    sa.Column("creator", sa.String(320), nullable=False),
                    sa.Column("fields", sa.JSON, nullable=False), sa.Column("label", sa.String(200), nullable=False),
                    sa.Column("feedback", sa.JSON, nullable=False),
                    sa.Column("status", sa.String(20), nullable=False),
                    sa.Column("revises", sa.Integer, sa.ForeignKey("submissions.id"), nullable=True),
                    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_submissions_dataset_status", "submissions", ["dataset_id", "status"])
    op.create_table("validations", sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("submission_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False),
                    sa.Column("validator", sa.String(320), nullable=False),
                    sa.Column("decision", sa.String(20), nullable=False), sa.Column("note", sa.Text, nullable=False),
                    sa.Column("components", sa.JSON, nullable=False),
                    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_validations_submission_id", "validations", ["submission_id"])


def downgrade():
    op.drop_table("validations")
    op.drop_table("submissions")
