"""Runs in progress hold a lease: the process at work on one (``holder``) renews ``lease_until``
with a heartbeat; a server marks interrupted only the runs whose lease ran out, so two app
processes (or a restart while another serves) share one database. Rows from before have no
lease: the next start marks them interrupted, as before.

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("holder", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("lease_until")
        batch.drop_column("holder")
