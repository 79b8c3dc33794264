"""`python -m app.cli …`: the same as the `whimbrel` console script."""

from app.cli.entry import main

raise SystemExit(main())
