"""The web table: a Starlette application over one campaign file.

* ``/api/...``: the HTTP API (docs/api.md), authorised by ``Authorization: Bearer TOKEN``; every
  command runs the same click command as the terminal (:mod:`cristal_events.web.commands`).
* ``/`` and ``/ui/...``: the pages, rendered on the server with Jinja2 (autoescape on) from the same
  calls the API makes; the URL ``cristal access grant`` printed (``/?token=T``) puts the token in an
  HttpOnly, SameSite=Strict cookie; every form post carries a CSRF token tied to it.
* ``/events``: server-sent events, one ``append`` message whenever the log's last position moves
  (polled every :data:`POLL_SECONDS` on the file, so the terminal's and the other pages' writes show too).

Nothing served carries a token hash, a session secret or a snapshot: the pages and the API read only
through the commands' ``--json`` output and the ``access_tokens`` lookup, which never returns a hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
from jinja2 import ChainableUndefined, Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import i18n
from ..display import visible
from ..i18n import _, ngettext
from . import commands
from .commands import Refused

MAX_BODY = 16 * 1024
POLL_SECONDS = 0.2
COOKIE = "cristal_token"
STATIC = Path(__file__).parent / "static"
#: each form of the pages -> the words of its command (fields the form names)
FORMS: dict[str, Any] = {
    "attack": lambda f: ["combat", "attack", f["combat"], f["fighter"], f["target"], *_opt(f, "weapon"), *_opt(f, "dice")],
    "cast": lambda f: ["combat", "cast", f["combat"], f["fighter"], f["spell"],
                       *[w for e in f.get("effects", "").split() for w in ("--effect", e)],
                       *_opt(f, "target"), *_opt(f, "time"), *_opt(f, "dice")],
    "next": lambda f: ["combat", "next", f["combat"]],
    "award": lambda f: ["xp", "award", f["character"], f["amount"], "--reason", f.get("reason", "")],
    "buy": lambda f: ["xp", "buy", f["character"], f["kind"], f["name"], *_opt(f, "stat")],
    "rest": lambda f: ["rest", f["character"], *_opt(f, "days")],
    "note": lambda f: ["note", f["text"], *_opt(f, "topic"), *(["--private"] if f.get("private") else [])],
    # the game master's answer to a player's request (cli/requests.py)
    "approve": lambda f: ["requests", "approve", f["request"]],
    "refuse": lambda f: ["requests", "refuse", f["request"], *_opt(f, "reason")],
    # Illergan's: a spell (in the fight when one is on), a skill check, the turn's initiative, a purchase
    "icast": lambda f: ["cast", f["fighter"], f["spell"], "--level", f["level"], *_opt(f, "fight"),
                        *_opt(f, "target"), *_opt(f, "damage"), *_opt(f, "dice")],
    "check": lambda f: ["check", "skill", f["character"], f["what"], *_opt(f, "malus"), *_opt(f, "dice"),
                        *(["--secret"] if f.get("secret") else [])],
    "reveal": lambda f: ["reveal", f["position"]],
    "initiative": lambda f: ["combat", "initiative", f["combat"], *_opt(f, "dice")],
    "ibuy": lambda f: _illergan_purchase(f),
    "correct": lambda f: ["correct", f["position"], "--reason", f.get("reason", ""),
                          *[w for c in f.get("set", "").split() for w in ("--set", c)]],
}
EXPORTS = {"md": ("text/markdown", "timeline.md"), "csv": ("text/csv", "timeline.csv"),
           "html": ("text/html", "timeline.html"), "jsonl": ("application/x-ndjson", "timeline.jsonl")}


#: Illergan's xp purchases: the form's kind -> the words before and after its value (``amount``)
ILLERGAN_PURCHASES = {"skill": "xp skill", "pp": "xp pp", "characteristic": "xp characteristic", "magic": "xp magic"}


def _illergan_purchase(form: dict[str, str]) -> list[str]:
    """``xp skill|pp|characteristic C NAME VALUE`` or ``xp magic C NAME --teacher-level L``."""
    kind = form["kind"]
    if kind not in ILLERGAN_PURCHASES:
        raise Refused(400, _("Unknown purchase '{visible}'; choose one of {items}.").format(visible=visible(kind), items=', '.join(ILLERGAN_PURCHASES)))
    words = [*ILLERGAN_PURCHASES[kind].split(), form["character"], form["name"]]
    value = form.get("amount", "").strip()
    if kind == "magic":
        return [*words, "--teacher-level", form["teacher"]]
    if kind == "characteristic":
        return [*words, *([value] if value else [])]
    return [*words, form["amount"]]


def _opt(form: dict[str, str], name: str) -> list[str]:
    value = form.get(name, "").strip()
    return [f"--{name}", value] if value else []


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Table:
    """One campaign served: who holds which token, the commands, the log's last position."""

    def __init__(self, db: str | os.PathLike[str]):
        self.db = str(db)
        self.csrf_key = os.urandom(32)
        self._ruleset: str | None = None

    def holder(self, token: str | None) -> dict[str, Any] | None:
        """The live holder of ``token`` (name, characters, gm), or None (no, unknown or revoked token)."""
        if not token or len(token) > 200:
            return None
        from ..store import Store

        return Store.peek_access(self.db, _hash(token))

    def last_position(self) -> int:
        from ..store import Store

        return Store.peek_last_position(self.db)

    def current_combat(self, ruleset: str = "cristal") -> str | None:
        """The fight of the last combat event in the log (streams ``combat:NAME``, Illergan's
        ``fight:NAME``); whether it is still going is the reader's to say."""
        from ..store import Store

        prefix = "fight:" if ruleset == "illergan" else "combat:"
        stream = Store.peek_last_stream(self.db, prefix)
        return stream.removeprefix(prefix) if stream else None

    async def ruleset(self, holder: dict[str, Any]) -> str:
        """The campaign's ruleset, from its first event (read once: it never changes)."""
        if self._ruleset is None:
            created = await self.read(holder, ["log", "--type", "campaign.created"])
            self._ruleset = created[0]["payload"].get("ruleset", "cristal") if created else "cristal"
        return self._ruleset

    def csrf(self, token: str) -> str:
        return hmac.new(self.csrf_key, _hash(token).encode(), "sha256").hexdigest()

    async def run(self, holder: dict[str, Any], argv: list[str], *, text: bool = False) -> commands.Result:
        return await anyio.to_thread.run_sync(lambda: commands.run(self.db, holder, argv, text=text))

    async def run_token(self, token: str, argv: list[str] | Refused) -> commands.Result:
        """The API's path: find the token's holder on the campaign kept open and run ``argv`` as them,
        in one hop to a worker thread (``argv`` a :class:`Refused`: the request's own fault, raised
        once the token is known good, so a bad token is always 401 first)."""
        def work() -> commands.Result:
            holder = commands.holder_of(self.db, _hash(token)) if len(token) <= 200 else None
            if holder is None:
                raise Refused(401, _("This token is unknown or was revoked; ask the game master for a new one."))
            if isinstance(argv, Refused):
                raise argv
            return commands.run(self.db, holder, argv)

        return await anyio.to_thread.run_sync(work)

    async def read(self, holder: dict[str, Any], argv: list[str]) -> Any:
        return msgspec.json.decode((await self.run(holder, argv)).body)


def _error(status: int, sentence: str) -> JSONResponse:
    return JSONResponse({"error": sentence}, status_code=status)


async def _body(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise Refused(413, _("A request body holds at most {MAX_BODY} bytes.").format(MAX_BODY=MAX_BODY))
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise Refused(413, _("A request body holds at most {MAX_BODY} bytes.").format(MAX_BODY=MAX_BODY))
    return bytes(data)


def _bearer(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    return auth[7:].strip() if auth[:7].lower() == "bearer " else None


def create_app(db: str | os.PathLike[str]) -> Starlette:
    table = Table(db)
    env = Environment(loader=PackageLoader("cristal_events.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      undefined=ChainableUndefined)  # a field another ruleset's sheet lacks shows empty
    env.filters["visible"] = lambda v: visible("" if v is None else str(v))
    # the pages' texts: English msgids of the core's catalog, in the language of the request (i18n.current)
    env.globals.update({"_": _, "ngettext": ngettext, "lang": i18n.current})

    def api_token(request: Request) -> str:
        token = _bearer(request)
        if token is None:
            raise Refused(401, _("This needs a token: send 'Authorization: Bearer TOKEN' (cristal access "
                                 "grant)."))
        return token

    def api(handler: Any) -> Any:
        """An API endpoint: ``handler(request)`` returns the words of its command (or raises
        :class:`Refused`); the token's holder is found and the command run in one worker hop."""
        async def endpoint(request: Request) -> Response:
            try:
                token = api_token(request)
                try:
                    argv: list[str] | Refused = await handler(request)
                except Refused as exc:
                    argv = exc
                return answer(await table.run_token(token, argv))
            except Refused as exc:
                return _error(exc.status, exc.sentence)
        return endpoint

    def answer(result: commands.Result) -> Response:
        headers = {"X-Cristal-Exit": str(result.exit_code)}
        if result.warnings:  # a JSON list, its non-ASCII characters \u-escaped (a header is Latin-1)
            headers["X-Cristal-Warnings"] = json.dumps(result.warnings, ensure_ascii=True)
        return Response(result.body, media_type="application/json", headers=headers, status_code=result.status)

    @api
    async def api_command(request: Request) -> list[str]:
        body = await _body(request)
        try:
            argv = msgspec.json.decode(body).get("argv")
        except (msgspec.DecodeError, AttributeError):
            raise Refused(400, _('The body must be {"argv": ["word", ...]}: the words of a cristal command.')) from None
        return argv  # checked by commands.check_words (a list of words or a 400)

    @api
    async def api_sheet(request: Request) -> list[str]:
        return ["sheet", request.path_params["cid"]]

    @api
    async def api_characters(request: Request) -> list[str]:
        return ["characters"]

    @api
    async def api_combat(request: Request) -> list[str]:
        return ["combat", "show", request.path_params["name"]]

    @api
    async def api_requests(request: Request) -> list[str]:
        return ["requests", "list"]

    @api
    async def api_decide(request: Request) -> list[str]:
        """``POST /api/requests/N/approve|refuse`` (a refusal's body may be ``{"reason": "..."}``)."""
        decision, number = request.path_params["decision"], str(request.path_params["number"])
        if decision not in ("approve", "refuse"):
            raise Refused(404, _("A request is approved or refused: /api/requests/N/approve or /refuse."))
        body = await _body(request)
        reason: Any = ""
        if decision == "refuse" and body.strip():
            try:
                reason = msgspec.json.decode(body).get("reason", "")
            except (msgspec.DecodeError, AttributeError):
                reason = None
            if not isinstance(reason, str):
                raise Refused(400, _('The body of a refusal is {"reason": "..."} or empty.'))
        return ["requests", decision, number, *(["--reason", reason] if reason else [])]

    @api
    async def api_log(request: Request) -> list[str]:
        return ["log", "--after", request.query_params.get("after", "0")]

    # ------------------------------------------------------------------ pages
    def page_holder(request: Request) -> tuple[str, dict[str, Any]] | None:
        token = request.cookies.get(COOKIE)
        holder = table.holder(token)
        return (token, holder) if holder is not None and token else None

    def refused_page(status: int, sentence: str) -> HTMLResponse:
        return HTMLResponse(env.get_template("refused.html").render(sentence=sentence), status_code=status)

    #: what each part of a page reads
    NEEDS = {"party": {"party"}, "fight": {"party", "fight"}, "fightforms": {"party", "fight"},
             "log": {"log"}, "sheets": {"sheets"}, "requests": {"requests"}}

    async def view(holder: dict[str, Any], needs: set[str] | None = None) -> dict[str, Any]:
        """What a page (or one part of it, ``needs``) shows, read through the same calls as the API."""
        want = needs if needs is not None else {"party", "fight", "log", "sheets", "requests"}
        data: dict[str, Any] = {"holder": holder, "party": [], "sheets": [], "fight": None, "log": [], "session": None,
                                "last": table.last_position(), "exports": sorted(EXPORTS), "requests": []}
        if "requests" in want and holder["gm"]:
            data["requests"] = await table.read(holder, ["requests", "list"])
        if "party" in want:
            data["party"] = await table.read(holder, ["characters"])
        if "sheets" in want and not holder["gm"]:
            data["sheets"] = [await table.read(holder, ["sheet", cid]) for cid in holder["characters"]]
        ruleset = await table.ruleset(holder)
        data["ruleset"] = ruleset
        name = table.current_combat(ruleset) if "fight" in want else None
        if name is not None:  # both rulesets: ``combat show NAME --json`` (Illergan's is cli/fight_panel.py's panel)
            fight = await table.read(holder, ["combat", "show", name])
            data["fight"] = {**fight, "name": name} if fight.get("active") else None
        if "log" in want and holder["gm"]:
            log = await table.read(holder, ["log", "--after", str(max(0, data["last"] - 25))])
            data["log"] = log[::-1]
        elif "log" in want:
            data["session"], data["log"] = await session_log(holder)
        return data

    async def session_log(holder: dict[str, Any]) -> tuple[int | None, list[dict[str, Any]]]:
        """The open session's events (between sessions, the last one's), the newest first; no session
        yet: none."""
        started = await table.read(holder, ["log", "--type", "session.started"])
        if not started:
            return None, []
        number = started[-1]["session"]
        return number, (await table.read(holder, ["log", "--session", str(number)]))[::-1]

    def fight_sig(fight: dict[str, Any] | None) -> str:
        """What the fight's forms depend on: the fight and its fighters."""
        if fight is None:
            return "-"
        return hashlib.sha256(msgspec.json.encode([fight["name"], [p["id"] for p in fight["participants"]]])).hexdigest()[:16]

    env.globals["fight_sig"] = fight_sig

    async def home(request: Request) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            if table.holder(token) is None:
                return refused_page(401, _("This link's token is unknown or was revoked; ask the game master "
                                           "for a new one."))
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
            return response
        found = page_holder(request)
        if found is None:
            return refused_page(401, _("Open the link 'cristal access grant' printed for you."))
        token, holder = found
        try:
            data = await view(holder)
        except Refused as exc:
            return refused_page(exc.status, exc.sentence)
        template = "gm.html" if holder["gm"] else "player.html"
        return HTMLResponse(env.get_template(template).render(csrf=table.csrf(token), **data))

    async def part(request: Request) -> Response:
        found = page_holder(request)
        if found is None:
            return refused_page(401, _("Open the link 'cristal access grant' printed for you."))
        token, holder = found
        name = request.path_params["name"]
        if name not in NEEDS:
            return refused_page(404, _("No such part of the page."))
        try:
            data = await view(holder, NEEDS[name])
        except Refused as exc:
            return refused_page(exc.status, exc.sentence)
        if name == "fightforms" and request.query_params.get("sig") == fight_sig(data["fight"]):
            return Response(status_code=204)  # the same fighters: leave what is being typed alone
        return HTMLResponse(env.get_template(f"_{name}.html").render(csrf=table.csrf(token), **data))

    async def ui_command(request: Request) -> Response:
        found = page_holder(request)
        if found is None:
            return refused_page(401, _("Open the link 'cristal access grant' printed for you."))
        token, holder = found
        try:
            body = await _body(request)
            origin = request.headers.get("origin")
            if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host", ""):
                raise Refused(403, _("This form was sent from another site; nothing was recorded."))
            from urllib.parse import parse_qsl

            fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
            if not hmac.compare_digest(fields.get("csrf", ""), table.csrf(token)):
                raise Refused(403, _("This form is stale or came from another site (CSRF check); reload the "
                                     "page. Nothing was recorded."))
            build = FORMS.get(fields.get("form", ""))
            if build is None:
                raise Refused(400, "Unknown form.")
            try:
                argv = build(fields)
            except KeyError as exc:
                raise Refused(400, _("The form needs its field '{args}'.").format(args=exc.args[0])) from None
            result = await table.run(holder, argv)
        except Refused as exc:
            return HTMLResponse(env.get_template("_result.html").render(error=exc.sentence), status_code=exc.status)
        return HTMLResponse(env.get_template("_result.html").render(
            ok=msgspec.json.decode(result.body), words=argv, warnings=result.warnings))

    async def export(request: Request) -> Response:
        found = page_holder(request)
        if found is None or not found[1]["gm"]:
            return refused_page(403, _("The exports are the game master's."))
        fmt = request.path_params["fmt"]
        if fmt not in EXPORTS:
            return refused_page(404, _("No such export."))
        try:
            result = await table.run(found[1], ["export", "timeline", "--format", fmt], text=True)
        except Refused as exc:
            return refused_page(exc.status, exc.sentence)
        media, filename = EXPORTS[fmt]
        return Response(msgspec.json.decode(result.body)["output"], media_type=media,
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    async def events(request: Request) -> Response:
        token = request.cookies.get(COOKIE) if page_holder(request) is not None else _bearer(request)
        if table.holder(token) is None:
            return _error(401, _("This needs a token."))

        async def stream() -> Any:
            last = -1
            quiet = 0.0
            ticks = 0
            while not await request.is_disconnected():
                ticks += 1
                if ticks % 25 == 0 and await anyio.to_thread.run_sync(table.holder, token) is None:
                    return  # revoked: the stream ends (and the page's reconnection is refused)
                now = await anyio.to_thread.run_sync(table.last_position)
                if now != last:
                    last = now
                    quiet = 0.0
                    yield f"event: append\ndata: {now}\n\n"
                elif quiet > 15:
                    quiet = 0.0
                    yield ": still here\n\n"
                await asyncio.sleep(POLL_SECONDS)
                quiet += POLL_SECONDS

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    routes = [
        Route("/", home),
        Route("/ui/part/{name}", part),
        Route("/ui/command", ui_command, methods=["POST"]),
        Route("/ui/export/{fmt}", export),
        Route("/events", events),
        Route("/api/command", api_command, methods=["POST"]),
        Route("/api/sheet/{cid}", api_sheet),
        Route("/api/characters", api_characters),
        Route("/api/combat/{name}", api_combat),
        Route("/api/log", api_log),
        Route("/api/requests", api_requests),
        Route("/api/requests/{number:int}/{decision}", api_decide, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        yield
        commands.close_shared(table.db)

    inner = Starlette(routes=routes, lifespan=lifespan)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                            (b"referrer-policy", b"no-referrer"),
                            (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'")]
                message = {**message, "headers": headers}
            await send(message)

        await inner(scope, receive, send_with_headers)

    app.table = table  # type: ignore[attr-defined]
    return app  # type: ignore[return-value]
