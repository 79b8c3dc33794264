"""Who: the instance (user@host, or `[team] name`) beside each message row and audit row.

A store made at the baseline revision gains the column; a store that the baseline created from the
current schema already has it, so the column is added only where it is missing.
"""

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None

TABLES = ("messages", "audit_log")


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    for table in TABLES:
        if "who" not in {column["name"] for column in inspector.get_columns(table)}:
            op.add_column(table, sa.Column("who", sa.Text(), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        op.drop_column(table, "who")
