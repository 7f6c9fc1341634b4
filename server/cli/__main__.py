"""``python -m cardarena.server.cli``: the ``cardarena`` command."""
from . import main

main()
