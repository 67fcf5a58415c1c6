"""The table on the web (``cristal serve``): an ASGI application (Starlette under uvicorn) over the
same click commands as the terminal. See :mod:`cristal_events.web.app` and docs/api.md."""
