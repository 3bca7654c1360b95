"""`python -m table_runtime` is `table-runtime`."""

import sys

from table_runtime.cli import main

sys.exit(main())
