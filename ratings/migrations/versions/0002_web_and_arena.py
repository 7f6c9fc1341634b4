"""The web and the arena: a bot's owner, pause and bench; each match's kind (filled in from its
league for older matches); the indexes of the web's reads and of matches by kind.

Each step checks first (a column or index already there is left alone), so a ledger made by a
development build between the two releases upgrades too.

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COLUMNS = (("bot", sa.Column("owner", sa.String(), nullable=True)),
           ("bot", sa.Column("paused", sa.Boolean(), nullable=True)),
           ("bot", sa.Column("benched_until", sa.DateTime(), nullable=True)),
           ("bot", sa.Column("bench_reason", sa.String(), nullable=True)),
           ("match", sa.Column("kind", sa.String(), nullable=True)))
INDEXES = (("ix_seat_bot_match", "seat", ["bot_id", "match_id"]),
           ("ix_rating_history_line", "rating_history", ["bot_id", "game", "rated", "match_id", "mu", "sigma"]),
           ("ix_match_kind", "match", ["kind", "id"]))


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    for table, column in COLUMNS:
        if column.name not in {c["name"] for c in inspector.get_columns(table)}:
            op.add_column(table, column)
    match = sa.table("match", sa.column("kind", sa.String()), sa.column("league_id", sa.Integer()))
    op.execute(match.update().where(match.c.kind.is_(None), match.c.league_id.is_not(None)).values(kind="league"))
    op.execute(match.update().where(match.c.kind.is_(None)).values(kind="match"))
    for name, table, columns in INDEXES:
        if name not in {i["name"] for i in sa.inspect(bind).get_indexes(table)}:
            op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _ in INDEXES:
        op.drop_index(name, table_name=table)
    with op.batch_alter_table("match") as batch:
        batch.drop_column("kind")
    with op.batch_alter_table("bot") as batch:
        for _, column in COLUMNS[:4]:
            batch.drop_column(column.name)
