"""Two languages, French and English: every user-facing text through gettext catalogs.

The msgids are the English sentences; each package's texts form one gettext *domain* with its own
catalogs (``<locale_dir>/{fr,en}/LC_MESSAGES/<domain>.mo``), compiled with Babel and shipped in the
wheel. The core's domain is :data:`CORE` (``cristal_events``, catalogs in ``cristal_events/locale/``);
a ruleset (built-in or registered by a third party) makes its own :class:`Domain` beside its code and
declares it as its ``text_domain``, so that its catalog ships with it (docs/architecture.md, "Languages").

The language is one context variable, read when a text is looked up: the CLI sets it once per
invocation (``--lang``, then ``CRISTAL_LANG``, then the locale: :func:`resolve`), the web server may set
it per request (:func:`use`), and a Python caller who sets nothing gets the environment's choice. The
stdlib's ``gettext`` reads the compiled catalogs (a well-kept library: no parser of our own); Babel is
needed only to extract and compile them (``python -m cristal_events.i18n_catalogs``, a dev tool).
"""

from __future__ import annotations

import gettext as _gettext
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pathlib (with urllib.parse, ipaddress, fnmatch) is imported by the tools that use it
    from pathlib import Path

#: the languages of the product; the first one is the fallback
LANGUAGES = ("en", "fr")

_current: ContextVar[str | None] = ContextVar("cristal_language", default=None)


def normalize(value: str | None) -> str | None:
    """A language or locale name (``fr``, ``fr_FR.UTF-8``, ``en-GB``, ``C``) -> ``"fr"`` or ``"en"``;
    None for an empty value (look further). A French locale gets French, anything else English."""
    if not value:
        return None
    return "fr" if value.strip().lower()[:2] == "fr" else "en"


def resolve(option: str | None = None, environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """The language: ``--lang`` (``option``), then ``CRISTAL_LANG``, then the locale (the first of
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set, as POSIX reads them); English otherwise."""
    env = os.environ if environ is None else environ
    for value in (option, env.get("CRISTAL_LANG"), env.get("LC_ALL"), env.get("LC_MESSAGES"), env.get("LANG")):
        lang = normalize(value)
        if lang is not None:
            return lang
    return "en"


def current() -> str:
    """The language texts are looked up in now: the one set in this context, else the environment's."""
    lang = _current.get()
    return lang if lang is not None else resolve()


def chosen() -> str | None:
    """The language set in this context (by the CLI, :func:`use`, a web request), or None."""
    return _current.get()


def set_language(lang: str | None) -> object:
    """Set the language of this context (None: back to the environment's); returns the token that
    :func:`reset_language` takes."""
    return _current.set(normalize(lang))


def reset_language(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]  # the token set_language returned


@contextmanager
def use(lang: str | None) -> Iterator[str]:
    """``with use("fr"): ...``: the texts of the block in that language (a web request, a test)."""
    token = _current.set(normalize(lang))
    try:
        yield current()
    finally:
        _current.reset(token)


#: every domain made in this process, in the order made (the core's first): the CLI's help is looked up
#: in each, so that a ruleset's commands are translated by its own catalog
DOMAINS: list[Domain] = []


class Domain:
    """One package's texts: ``gettext`` / ``ngettext`` in the current language, from the compiled
    catalogs under ``locale_dir``; a text its catalog lacks is shown as its msgid (English)."""

    def __init__(self, name: str, locale_dir: str | os.PathLike[str]) -> None:
        self.name = name
        self._locale_dir = os.fspath(locale_dir)
        self._catalogs: dict[str, _gettext.NullTranslations] = {}
        if not any(d.name == name for d in DOMAINS):
            DOMAINS.append(self)

    @property
    def locale_dir(self) -> Path:
        """The folder of the catalogs (``<lang>/LC_MESSAGES/<name>.mo``)."""
        from pathlib import Path

        return Path(self._locale_dir)

    def catalog(self, lang: str) -> _gettext.NullTranslations:
        found = self._catalogs.get(lang)
        if found is None:
            if lang == LANGUAGES[0]:
                # the msgids are the English texts and every English catalog gives each msgid as its msgstr,
                # its plurals by English's rule (tests/kernel/test_english_catalogs.py checks both): reading
                # and parsing it (about 120 kB per domain) would only add to every command's start-up
                found = _gettext.NullTranslations()
            else:
                found = _gettext.translation(self.name, self._locale_dir, languages=[lang], fallback=True)
            self._catalogs[lang] = found
        return found

    def gettext(self, message: str) -> str:
        return self.catalog(current()).gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.catalog(current()).ngettext(singular, plural, n)

    def has(self, message: str, lang: str) -> bool:
        """Whether this domain translates ``message`` into ``lang`` (English msgids translate to themselves)."""
        return lang == "en" or self.catalog(lang).gettext(message) != message


#: the core's texts: the kernel, the service, the store, the CLI's core commands, the jobs, the web pages
CORE = Domain("cristal_events", os.path.join(os.path.dirname(__file__), "locale"))

#: click's own texts ("Usage:", "Error: {message}", "No such command {name!r}." ...), extracted from click 8
#: with Babel into ``locale/{fr,en}/LC_MESSAGES/click.po`` (the English catalog gives each msgid as it is)
CLICK = Domain("click", os.path.join(os.path.dirname(__file__), "locale"))


def translate_click() -> None:
    """Make click's own texts follow the current language. click ships no catalog, and its modules call
    the standard library's process-wide ``gettext.gettext`` (the language from environment variables, one
    for the whole process), which cannot follow this module's per-context language (a web request, a
    console line); the one seam click has is the module-level ``_`` / ``ngettext`` each of its modules
    imports, so those names are pointed at :data:`CLICK` (written here because no library offers it)."""
    import sys

    for name, module in list(sys.modules.items()):
        if module is None or not (name == "click" or name.startswith("click.")):
            continue
        if getattr(module, "_", None) is _gettext.gettext:
            module._ = CLICK.gettext  # type: ignore[attr-defined]
        if getattr(module, "ngettext", None) is _gettext.ngettext:
            module.ngettext = CLICK.ngettext  # type: ignore[attr-defined]


def _(message: str) -> str:
    """The core's ``message`` (an English sentence, its msgid) in the current language."""
    return CORE.catalog(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The core's singular or plural sentence for ``n``, in the current language."""
    return CORE.catalog(current()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for extraction without translating it (a table of labels built at import,
    translated with :func:`_` where it is shown)."""
    return message


def load_domain(dotted: str | None) -> Domain | None:
    """The :class:`Domain` a ruleset's ``text_domain`` names (``"package.module:NAME"``), imported (and so
    registered for the CLI's help) the first time; None for None."""
    if not dotted:
        return None
    import importlib

    module, _sep, name = dotted.partition(":")
    found = getattr(importlib.import_module(module), name or "TEXTS")
    if not isinstance(found, Domain):
        raise TypeError(f"{dotted} is not a cristal_events.i18n.Domain")
    return found


def translate_any(message: str) -> str:
    """``message`` from the first domain that translates it (the CLI's help texts, which are looked up
    when they are shown, from the core's catalog or the ruleset's whose command it is)."""
    lang = current()
    for domain in DOMAINS:
        if domain.has(message, lang):
            return domain.catalog(lang).gettext(message)
    return message
