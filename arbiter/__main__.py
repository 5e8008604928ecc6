"""``python -m arbiter ...``: the ``arbiter`` command (arbiter/app.py)."""

from arbiter.app import main

raise SystemExit(main())
