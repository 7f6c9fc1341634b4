"""The ledger of cardarena 0.1.0, the first release: bots, leagues, matches, seats, match logs,
ratings and their history. A ledger made by that release has no ``alembic_version`` table; it is
taken to be at this revision (``schema.current``), so this migration changes nothing.

Revision ID: 0001
Revises:
"""
revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
