"""``python -m casino_floor`` is ``table-floor``."""

from casino_floor.launcher import main

raise SystemExit(main())
