"""``cristal serve --all``: every campaign of a PostgreSQL database behind one address (issue 20, item 4).

Each campaign keeps its own application (:func:`cristal_events.web.app.create_app`, built on first
use), its own tokens and its own pages; this dispatcher only chooses the campaign of a request:

* by URL path, ``/c/NAME/...``: the campaign chooser for a link that names its campaign; the prefix is
  removed before the campaign's application sees the request, and the token's cookie is then set for
  the whole site, so the page's own links (``/ui/...``, ``/events``) reach the same campaign;
* otherwise by the request's token (``?token=``, the ``cristal_token`` cookie, or ``Authorization:
  Bearer``): the campaign whose access table holds its SHA-256 (one query over all of them,
  :func:`cristal_events.store_pg.campaign_of_token`). So the URL ``cristal access grant`` prints
  (``/?token=T``) opens the right campaign with no change to the pages.

A request that names no campaign and carries no token it knows goes to the first campaign's
application, which refuses it as any unknown token is refused. Tokens stay per campaign: a token of
one never opens another (the campaign's application checks it again on every request).
"""

from __future__ import annotations

import hashlib
import re
import threading
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from ..i18n import _
from ..store_pg import campaign_of_token, campaigns, parse_target
from . import commands
from .app import COOKIE, create_app

_PREFIX = re.compile(r"^/c/([a-z][a-z0-9_]{0,39})(/.*)?$")


def _token(scope: dict[str, Any]) -> str | None:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if query.get("token"):
        return query["token"][0]
    for name, value in scope.get("headers", []):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return value[7:].decode("latin-1").strip()
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed cookie header is no token
                continue
            if COOKIE in jar:
                return jar[COOKIE].value
    return None


def create_host_app(target: str) -> Any:
    """An ASGI application serving every campaign of the database ``target`` names."""
    base = parse_target(target)
    apps: dict[str, Any] = {}
    guard = threading.Lock()

    def app_of(name: str) -> Any:
        with guard:
            if name not in apps:
                apps[name] = create_app(base.url(name))
            return apps[name]

    async def host(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    for name in list(apps):
                        commands.close_shared(base.url(name))
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        import anyio

        m = _PREFIX.match(scope.get("path", "/"))
        if m:
            name, rest = m.group(1), m.group(2) or "/"
            if name not in await anyio.to_thread.run_sync(campaigns, target):
                await _not_found(send, _("No campaign {name} on this server.").format(name=name))
                return
            scope = {**scope, "path": rest, "raw_path": rest.encode()}
        else:
            found = await anyio.to_thread.run_sync(lambda: _campaign_of(scope))
            if found is None:
                await _not_found(send, _("This database holds no campaign yet; create one with 'cristal init'."))
                return
            name = found
        await app_of(name)(scope, receive, send)

    def _campaign_of(scope: dict[str, Any]) -> str | None:
        """The campaign of the request's token; else the first campaign (which refuses the request)."""
        token = _token(scope)
        if token and len(token) <= 200:
            held = campaign_of_token(target, hashlib.sha256(token.encode()).hexdigest())
            if held is not None:
                return held
        names = campaigns(target)
        return names[0] if names else None

    host.apps = apps  # type: ignore[attr-defined]
    return host


async def _not_found(send: Any, sentence: str) -> None:
    body = sentence.encode()
    await send({"type": "http.response.start", "status": 404,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
