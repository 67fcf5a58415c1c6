"""The catalogs' upkeep (a developer's tool; needs Babel, the ``dev`` extra): extract the core's texts,
merge them into ``cristal_events/locale/{fr,en}/LC_MESSAGES/cristal_events.po`` and compile the ``.mo``
files that ship in the wheel.

    python -m cristal_events.i18n_catalogs update    # extract, merge into both .po, compile
    python -m cristal_events.i18n_catalogs compile   # only compile the .po into .mo
    python -m cristal_events.i18n_catalogs check     # exit 1 naming every text a catalog lacks

What is extracted (:func:`extract_python`, a Babel extraction method; the web pages' templates with Jinja's
own ``babel_extract``, which finds their ``_("...")`` calls): the arguments of ``_``, ``N_`` and
``ngettext``; every ``help="..."`` keyword (click's options and commands) and the first argument of
``dice_option_with``; the docstring of every function decorated as a click command or group (its
``--help``). Help texts and docstrings are cleaned as click shows them (``inspect.cleandoc``), and the
CLI translates them when it shows them (``cli.localized``). A ruleset keeps its own catalogs the same way
with its own domain and folders (:func:`sync` takes them; see docs/architecture.md, "Languages").
"""

from __future__ import annotations

import ast
import copy
import inspect
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
DOMAIN = "cristal_events"
LOCALE = PACKAGE / "locale"
LANGS = ("en", "fr")

#: the core's sources (relative to the checkout): the rules packages and their click files are the second
#: wave's, each with its own domain
CORE_SOURCES: tuple[tuple[str, Sequence[tuple[str, str]]], ...] = (
    ("cristal_events", (("rulesets/**", "ignore"), ("cli/cristal/**", "ignore"), ("cli/illergan/**", "ignore"),
                        ("i18n_catalogs.py", "ignore"), ("**.py", "python"), ("web/templates/**.html", "jinja2"))),
    ("projections", (("**.py", "python"),)),
)

_CALLS = {"_": 1, "N_": 1, "gettext": 1, "dice_option_with": 1}


def _decorated_as_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("command", "group"):
            return True
    return False


def _const(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract_python(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
                   ) -> Iterator[tuple[int, str | None, str | tuple[str, str], list[str]]]:
    """Babel's extraction method for the core's Python files (see the module's docstring). Written on
    ``ast`` because Babel's own Python extractor finds neither help keywords nor click docstrings."""
    tree = ast.parse(fileobj.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _CALLS and node.args and (text := _const(node.args[0])) is not None:
                yield node.lineno, None, inspect.cleandoc(text) if name == "dice_option_with" else text, []
            elif name == "ngettext" and len(node.args) >= 2:
                one, many = _const(node.args[0]), _const(node.args[1])
                if one is not None and many is not None:
                    yield node.lineno, "ngettext", (one, many), []
            for kw in node.keywords:
                if kw.arg == "help" and (text := _const(kw.value)) is not None:
                    yield kw.value.lineno, None, inspect.cleandoc(text), []
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _decorated_as_command(node):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield node.lineno, None, doc, []


def extract(root: Path = ROOT, sources: Sequence[tuple[str, Sequence[tuple[str, str]]]] = CORE_SOURCES) -> Any:
    """A Babel ``Catalog`` (the template) of every text of ``sources`` (folders of ``root``)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="cristal-events", domain=DOMAIN)
    methods: dict[str, Any] = {"python": extract_python, "ignore": "ignore", "jinja2": "jinja2.ext:babel_extract"}
    for folder, patterns in sources:
        mapping: Any = [(pattern, methods[method]) for pattern, method in patterns]
        for filename, lineno, message, comments, context in extract_from_dir(root / folder, mapping):
            template.add(message, None, [(f"{folder}/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def sync(template: Any, locale_dir: Path = LOCALE, domain: str = DOMAIN) -> None:
    """Merge ``template`` into each language's ``.po`` (new texts empty, never guessed: fuzzy matching is
    off; the English catalog's texts are their msgids) and compile the ``.mo``."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    for lang in LANGS:
        po = locale_dir / lang / "LC_MESSAGES" / f"{domain}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        if po.exists():
            with po.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=domain)
        else:
            catalog = Catalog(locale=lang, domain=domain, project="cristal-events")
        if lang == "fr":
            # French as its grammars write it, one form for 0 and 1, another from 2 (Babel's CLDR data adds a
            # third form for round millions, which no message here needs); Babel has no public setter
            catalog._num_plurals, catalog._plural_expr = 2, "(n > 1)"  # type: ignore[assignment]
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=True)  # update shares the template's messages
        catalog.obsolete.clear()
        if lang == "en":
            for message in catalog:
                if isinstance(message.id, tuple) and not all(message.string or ()):
                    message.string = message.id  # singular and plural
                elif message.id and not message.string:
                    message.string = message.id
        with po.open("wb") as f:
            write_po(f, catalog, width=120, sort_output=True, omit_header=False, include_previous=False)
    compile_catalogs(locale_dir, domain)


def compile_catalogs(locale_dir: Path = LOCALE, domain: str = DOMAIN) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for lang in LANGS:
        po = locale_dir / lang / "LC_MESSAGES" / f"{domain}.po"
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=domain)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog, use_fuzzy=False)


def missing(template: Any, locale_dir: Path = LOCALE, domain: str = DOMAIN) -> dict[str, list[str]]:
    """The msgids of ``template`` that each language's ``.po`` lacks, leaves empty or marks fuzzy."""
    from babel.messages.pofile import read_po

    out: dict[str, list[str]] = {}
    for lang in LANGS:
        with (locale_dir / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
            catalog = read_po(f, locale=lang, domain=domain)
        lacking = []
        for message in template:
            if not message.id:
                continue
            found = catalog.get(message.id)
            strings = found.string if found is not None else None
            if isinstance(strings, (tuple, list)):
                empty = not all(strings)
            else:
                empty = not strings
            if found is None or found.fuzzy or empty:
                lacking.append(message.id if isinstance(message.id, str) else message.id[0])
        out[lang] = lacking
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    what = args[0] if args else "update"
    # a package's own catalogs (a ruleset's): ``update|compile|check SOURCE_DIR LOCALE_DIR DOMAIN``
    sources: Sequence[tuple[str, Sequence[tuple[str, str]]]]
    if len(args) == 4:
        source, locale_dir, domain = Path(args[1]).resolve(), Path(args[2]), args[3]
        root, sources = source.parent, ((source.name, (("**.py", "python"),)),)
    else:
        locale_dir, domain, root, sources = LOCALE, DOMAIN, ROOT, CORE_SOURCES
    if what == "update":
        sync(extract(root, sources), locale_dir, domain)
    elif what == "compile":
        compile_catalogs(locale_dir, domain)
    elif what == "check":
        lacking = missing(extract(root, sources), locale_dir, domain)
        for lang, ids in lacking.items():
            for msgid in ids:
                print(f"{lang}: {msgid!r}")
        return 1 if any(lacking.values()) else 0
    else:
        print("usage: python -m cristal_events.i18n_catalogs [update|compile|check] [SOURCE_DIR LOCALE_DIR DOMAIN]",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
