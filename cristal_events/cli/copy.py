"""``cristal copy SRC DST``: move a campaign between backends (cristal_events/jobs/copy.py)."""

from __future__ import annotations

import click

from ..i18n import _
from .common import echo, emit_json, json_option, tty_progress


@click.command("copy")
@click.argument("source")
@click.argument("destination")
@json_option
def copy_cmd(source: str, destination: str, as_json: bool) -> None:
    """Copy the campaign SOURCE to a new campaign DESTINATION, either an SQLite file or a PostgreSQL URL
    (postgresql://USER@HOST/DB?campaign=NAME): the same events, positions and hashes, so its receipts
    and dice commitments stay valid; SOURCE must verify, DESTINATION must not exist. The open session's
    dice secret goes along; web access tokens do not (grant them again on the new table).

    Example: cristal copy taverne.db 'postgresql://cristal@db.example/tables?campaign=taverne'
    """
    from ..jobs.copy import copy_campaign

    done = copy_campaign(source, destination, progress=tty_progress("read models"))
    if as_json:
        emit_json(done)
    else:
        text = (_("Copied {events} events to {destination}; both end on the receipt {receipt} (the open "
                  "session's dice secret too).") if done.secret_copied else
                _("Copied {events} events to {destination}; both end on the receipt {receipt}."))
        echo(text.format(events=done.events, destination=destination, receipt=done.receipt))


COMMANDS = [copy_cmd]
