from __future__ import annotations

import sys

from truc_p2p.cli import main

sys.exit(main())
