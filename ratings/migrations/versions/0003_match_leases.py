"""Leases: a claimed match holds the worker that claimed it (``worker``) and until when its claim
holds (``lease_until``, UTC), so that several `league work` processes share a league and a match
whose worker stopped renewing is claimed again by another. A match claimed before this version
holds no lease (``NULL``: it waits for `league resume`, as before).

Each column is added only if it is missing (a ledger made by a development build between the
releases upgrades too).

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = (sa.Column("worker", sa.String(), nullable=True),
           sa.Column("lease_until", sa.DateTime(), nullable=True))


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("match")}
    for column in COLUMNS:
        if column.name not in have:
            op.add_column("match", column)


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        for column in COLUMNS:
            batch.drop_column(column.name)
