"""Examples sent to the front of a run's review queue (issue 44): the rows that carry a new cue
`check` named, each with why and the cue's strength. One row per (run, example, reason), held by
a unique index. Existing runs have none, so their queues are served as before.

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "review_flags",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("runs.id"), nullable=False, index=True),
        sa.Column("example_id", sa.String(200), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("created_by", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("run_id", "example_id", "reason", name="ux_review_flags_run_example_reason"),
    )


def downgrade():
    op.drop_table("review_flags")
