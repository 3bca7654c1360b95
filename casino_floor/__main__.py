"""``python -m casino_floor`` is ``table-floor``."""

from casino_floor.cli import main

raise SystemExit(main())
