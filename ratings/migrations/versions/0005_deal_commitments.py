"""Deals proven: each match gets ``deal_salt`` and ``deal_commitment`` (cardarena.server.deal),
written when the match is scheduled, or, for a match scheduled before this version, when it is
played. Matches recorded before have neither: they were dealt without a commitment.

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None
COLUMNS = ("deal_salt", "deal_commitment")


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("match")}
    for name in COLUMNS:
        if name not in have:
            op.add_column("match", sa.Column(name, sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        for name in COLUMNS:
            batch.drop_column(name)
