"""Who holds a lease: the holder's name (user@host, or `[team] name`) on its workstream_leases row,
so the team view (`/team`) can say who has each live workstream open.

A store the baseline created from the current schema already has the column; it is added only where
it is missing.
"""

import sqlalchemy as sa
from alembic import op

revision = "r0003"
down_revision = "r0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "who" not in {column["name"] for column in inspector.get_columns("workstream_leases")}:
        op.add_column("workstream_leases", sa.Column("who", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("workstream_leases", "who")
