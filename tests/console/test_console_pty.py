"""``cristal play`` at a terminal (a pseudo-terminal): the prompt, Tab completion and the bottom bar."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time

import pyte
from console_helpers import CRISTAL, ENV, last_position, play

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>()][0-9A-Za-z]?|[\x00-\x08\x0e-\x1f]")


class Terminal:
    """The console on a pseudo-terminal of 120 x 30 answering as a terminal does; ``screen`` is what the
    console wrote, escapes removed (a prompt's trailing space is a cursor move: prompts are matched without it);
    ``drawn`` is the screen as a terminal shows it now (pyte, a VT100 emulator): where prompt_toolkit redraws
    the line being typed and the bottom bar in place, the pieces it writes need not follow each other in the
    stream (under load a completion's last letters came after the bar's redraw), so what is typed and the
    bar are looked for there."""

    def __init__(self, db):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        env = {**ENV, **{k: v for k, v in os.environ.items() if k == "CRISTAL_SECRETS_DIR"}, "TERM": "xterm"}
        self.proc = subprocess.Popen([*CRISTAL, "--db", str(db), "play"], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, close_fds=True)
        os.close(slave)
        self.raw = b""
        self.vt = pyte.Screen(120, 30)
        self.vt_stream = pyte.ByteStream(self.vt)

    @property
    def screen(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    @property
    def drawn(self) -> str:
        return "\n".join(line.rstrip() for line in self.vt.display)

    def wait_for(self, text: str, timeout: float = 60, *, drawn: bool = False) -> str:
        deadline = time.monotonic() + timeout
        while text not in (self.drawn if drawn else self.screen):
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the terminal shows:\n{(self.drawn if drawn else self.screen)[-3000:]}"
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the console left
                    break
                self.raw += chunk
                self.vt_stream.feed(chunk)
                for _ in range(chunk.count(b"\x1b[6n")):  # the cursor position request a terminal answers:
                    os.write(self.master, b"\x1b[1;1R")  # prompt_toolkit draws its bottom bar once it knows
        shown = self.drawn if drawn else self.screen
        assert text in shown, shown[-3000:]
        return shown

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(30)
        finally:
            os.close(self.master)


def test_the_prompt_completes_an_id_and_shows_the_session_and_the_fight_in_its_bottom_bar(brigands):
    assert play(brigands, 'session start --title "Le retour"\n'
                          "combat start col --with lia,brok,loup --it loup=4 --stat loup:DP=9 --stat loup:PV=10\n"
                ).returncode == 0
    term = Terminal(brigands)
    try:
        term.wait_for("table>")
        term.wait_for("Session 3 « Le retour »")  # the bottom bar: the open session
        term.type("fight col\r")
        term.wait_for("table col>")
        # the bar now draws the fight's timeline: who acts next, each fighter's IT and PV
        term.wait_for("col: next lia · lia IT 0 PV 6 · brok IT 0 PV 18 · loup IT 4 PV 10", drawn=True)
        before = last_position(brigands)
        term.type("sheet br\t")  # Tab completes the one id that starts with 'br'
        term.wait_for("sheet brok", drawn=True)
        term.type("\r")
        term.wait_for("Brok")
        term.type("attack lia lo\t")
        term.wait_for("attack lia loup", drawn=True)
        term.type(" --weapon Arc --projectile Flèche --distance 10 15,4\r")
        term.wait_for("lia attacks loup")
        term.wait_for("col: next brok", drawn=True)  # the bar follows the attack: lia's IT moved on
        term.type("exit\r")
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert last_position(brigands) > before
    history = (brigands.parent / "table.db.history").read_text(encoding="utf-8")
    assert "+fight col" in history and "+attack lia loup --weapon Arc" in history  # the campaign's own history file


def test_at_a_terminal_a_postgresql_campaigns_history_is_kept_beside_its_secret(tmp_path, pg_url, monkeypatch):
    from console_helpers import build
    from pgcluster import with_campaign

    from cristal_events.console.session import history_path

    url = with_campaign(pg_url, "brigands")
    build(tmp_path, "brigands_de_la_foret.toml", url)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    term = Terminal(url)
    try:
        term.wait_for("brigands>")  # the prompt names the campaign, not its URL
        term.type("note 'La brume monte.'\r")
        term.wait_for("Note recorded at position")
        term.type("exit\r")
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    history = history_path(url)
    assert history.parent == tmp_path / "secrets"
    assert "+note 'La brume monte.'" in history.read_text(encoding="utf-8")
    assert list(here.iterdir()) == []
