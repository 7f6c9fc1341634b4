"""cardarena.server.web: the read-only pages and JSON API over the ledger (DESIGN.md "The web").

FastAPI with Jinja2 templates and plain CSS and JavaScript shipped in the package (no front-end
build step); charts are SVG drawn on the server. :func:`~cardarena.server.web.app.create_app`
builds the application over a ledger; ``cardarena web --db …`` serves it with uvicorn.
Installed with the ``web`` extra (``pip install 'cardarena[web]'``); nothing else imports it.
"""
