"""Review a team can measure (issue 22): workspace settings for reviews per example (N, default 1)
and blind review (off), adjudications recorded as such (``reviews.kind``), and review guidelines
with their history; each review records the guidelines version it was made under. Existing
workspaces keep reviewing as before (one review per example, not blind, no guidelines).

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN (with a constant default): a batch copy of ``workspaces`` on SQLite would drop a
    # table every other table refers to
    op.add_column("workspaces", sa.Column("reviews_per_example", sa.Integer(), nullable=False, server_default="1"))
    op.add_column("workspaces", sa.Column("blind", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "guidelines",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("workspace_id", sa.Integer(), sa.ForeignKey("workspaces.id"), nullable=False, index=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.add_column("reviews", sa.Column("kind", sa.String(20), nullable=False, server_default="review"))
    op.add_column("reviews", sa.Column("guidelines_id", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("guidelines_id")
        batch.drop_column("kind")
    op.drop_table("guidelines")
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("blind")
        batch.drop_column("reviews_per_example")
