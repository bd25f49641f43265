"""A workspace setting: how reviewers who differ are settled (``latest`` or ``senior``;
`core.team.review.DISPUTE_RULES`). Existing workspaces keep the rule they had: the latest decision.

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(sa.Column("dispute_rule", sa.String(20), nullable=False, server_default="latest"))


def downgrade():
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("dispute_rule")
