"""The baseline: the schema as the hand-written migrations (app/storage/migrations.py) leave it, version 16.

A store made before Alembic (any version 1-16) is brought up to version 16 by those steps, which
only create what is missing; a new store gets every table. Later schema changes are revisions after
this one (`op.add_column`, …), and never edit it.
"""

from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    from app.storage.migrations import upgrade_in
    from app.storage.schema_upgrade import BoundConnection

    upgrade_in(BoundConnection(op.get_bind()))


def downgrade() -> None:
    raise NotImplementedError("the baseline is not undone: restore a backup of the store instead")
