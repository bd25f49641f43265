"""Invariants held by the database: one validation per submission, one revision per rejected
submission (unique indexes; a race between two validators or two revisions is decided by the
index, not by a read before the write).

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade():
    conn = op.get_bind()
    # races before this revision could leave several; the first decision stands, as the status said
    conn.execute(sa.text("DELETE FROM validations WHERE id NOT IN "
                         "(SELECT MIN(id) FROM validations GROUP BY submission_id)"))
    conn.execute(sa.text("UPDATE submissions SET revises = NULL WHERE revises IS NOT NULL AND id NOT IN "
                         "(SELECT MIN(id) FROM submissions WHERE revises IS NOT NULL GROUP BY revises)"))
    op.drop_index("ix_validations_submission_id", table_name="validations")
    op.create_index("ux_validations_submission_id", "validations", ["submission_id"], unique=True)
    op.create_index("ux_submissions_revises", "submissions", ["revises"], unique=True)


def downgrade():
    op.drop_index("ux_submissions_revises", table_name="submissions")
    op.drop_index("ux_validations_submission_id", table_name="validations")
    op.create_index("ix_validations_submission_id", "validations", ["submission_id"])
