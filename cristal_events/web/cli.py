"""``cristal access`` (who may reach the table on the web) and ``cristal serve`` (the web table).

A token is shown once, in the URL ``access grant`` prints; the campaign keeps only its SHA-256, in the
``access_tokens`` table beside the log. Each grant and revoke is an event naming the holder and the
characters (``access.granted``, ``access.revoked``), never the token or its hash.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os

import click

from ..cli.common import actor, echo, emit_json, json_option, open_campaign
from ..display import visible
from ..i18n import _
from ..service import GrantAccess, RevokeAccess

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8019


def token_hash(token: str) -> str:
    """The SHA-256 of a token: what the campaign stores and compares."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def table_url(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


@click.group("access")
def access_group() -> None:
    """Who may reach the table on the web ('cristal serve'): grant, list, revoke.

    Example: cristal access grant alice --character thor
    """


@access_group.command("grant")
@click.argument("name")
@click.option("--character", "characters", multiple=True, metavar="ID",
              help="A character the holder may act for (repeatable).")
@click.option("--gm", is_flag=True, help="A game master: every command and every read.")
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="The host the URL names ('serve --host').")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True,
              help="The port the URL names ('serve --port').")
@json_option
@click.pass_context
def grant_cmd(ctx: click.Context, name: str, characters: tuple[str, ...], gm: bool, host: str, port: int,
              as_json: bool) -> None:
    """Give NAME a token and print the URL that carries it (shown this once, never again).

    Example: cristal access grant alice --character thor
    """
    token = os.urandom(24).hex()
    camp = open_campaign(ctx, write=True)
    camp.execute(GrantAccess(name=name, token_hash=token_hash(token), characters=list(characters), gm=gm),
                 actor=actor(ctx))
    url = table_url(host, port, token)
    if as_json:
        emit_json({"name": name, "token": token, "url": url})
        return
    echo(_("Access for {name} ({value}):").format(name=name, value='game master' if gm else 'characters ' + ', '.join(characters)))
    echo(url)  # hex token, host and port: nothing for visible() to change
    echo(_("The token is shown only now; 'cristal access revoke' withdraws it."))


@access_group.command("list")
@json_option
@click.pass_context
def list_cmd(ctx: click.Context, as_json: bool) -> None:
    """Every holder of access (revoked ones too), never a token.

    Example: cristal access list --json
    """
    camp = open_campaign(ctx)
    rows = camp.store.access_list()
    if as_json:
        emit_json(rows)
        return
    if not rows:
        echo(_("Nobody holds access yet; 'cristal access grant NAME --character ID' gives some."))
    for r in rows:
        what = _("game master") if r["gm"] else ", ".join(r["characters"])
        state = (_("revoked {at}").format(at=r["revoked_at"]) if r["revoked_at"]
                 else _("granted {at}").format(at=r["granted_at"]))
        echo(f"{r['name']:<16} {what:<30} {state}")


@access_group.command("revoke")
@click.argument("name")
@json_option
@click.pass_context
def revoke_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Withdraw NAME's token: it stops working at once.

    Example: cristal access revoke alice
    """
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(RevokeAccess(name=name), actor=actor(ctx))
    if as_json:
        emit_json({"name": name, "revoked": True, "position": recs[-1].position})
        return
    echo(_("Access of {name} revoked (position {position}).").format(name=name, position=recs[-1].position))


@click.command("serve")
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="The address to listen on; anything but a loopback address opens the table to the network.")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@click.option("--all", "all_campaigns", is_flag=True,
              help="Serve every campaign of the PostgreSQL database --db names (each request goes to the "
                   "campaign of its token, or of its /c/NAME/ path).")
@json_option
@click.pass_context
def serve_cmd(ctx: click.Context, host: str, port: int, all_campaigns: bool, as_json: bool) -> None:
    """Serve the campaign to the table's browsers: the game master's and the players' pages, and the
    HTTP API (docs/api.md). Each holder opens the URL 'cristal access grant' printed.

    Example: cristal --db taverne.db serve --port 8019
    """
    if all_campaigns:
        _serve_all(ctx, host, port, as_json)
        return
    try:
        import uvicorn

        from .app import create_app
    except ModuleNotFoundError as exc:
        raise click.ClickException(_("'cristal serve' needs the web extra ({name} is missing): pip install "
                                     "'cristal-events[web]'.").format(name=exc.name)) from None
    camp = open_campaign(ctx)  # refuses what is not a campaign before anything listens
    camp.close()
    warning = None if is_loopback(host) else (_("serving on {host} opens the table to the network; anyone who "
                                                "reaches it still needs a token").format(host=host))
    if warning:
        echo(_("Warning: {problem}.").format(problem=warning), err=True)
    if as_json:  # one line when the server starts, for a script that waits for it
        emit_json({"db": ctx.obj["db"], "host": host, "port": port, "warning": warning})
    else:
        echo(_("Serving {visible} on http://{host}:{port}/ (Ctrl-C stops).").format(visible=visible(ctx.obj['db']), host=host, port=port))
    app = create_app(ctx.obj["db"])
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _serve_all(ctx: click.Context, host: str, port: int, as_json: bool) -> None:
    """``serve --all``: every campaign of a PostgreSQL database (cristal_events/web/hosting.py)."""
    from ..errors import CristalError
    from ..store import is_postgres

    if not is_postgres(ctx.obj["db"]):
        raise CristalError(_("'serve --all' serves the campaigns of a PostgreSQL database; give --db "
                             "postgresql://..."))
    try:
        import uvicorn

        from .hosting import create_host_app
    except ModuleNotFoundError as exc:
        raise click.ClickException(_("'cristal serve' needs the web extra ({name} is missing): pip install "
                                     "'cristal-events[web]'.").format(name=exc.name)) from None
    from ..store_pg import campaigns

    names = campaigns(ctx.obj["db"])
    if as_json:
        emit_json({"db": ctx.obj["db"], "host": host, "port": port, "campaigns": names})
    else:
        echo(_("Serving {count} campaign(s) of {db} on http://{host}:{port}/ ({names}; each at /c/NAME/ or by "
               "its token; Ctrl-C stops).").format(count=len(names), db=visible(ctx.obj["db"]), host=host, port=port,
                                                   names=", ".join(names) or _("none yet")))
    if not is_loopback(host):
        echo(_("Warning: serving on {host} opens the tables to the network; anyone who reaches them still needs a "
               "token.").format(host=host), err=True)
    uvicorn.run(create_host_app(ctx.obj["db"]), host=host, port=port, log_level="warning")


COMMANDS = [access_group, serve_cmd]
