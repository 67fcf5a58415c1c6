"""The state change one event made: a structural diff of two folded states.

``evolve`` returns new objects only for what changed and shares the rest (``msgspec.structs.replace``),
so the diff skips every pair that is the same object and stays cheap on a large state.
"""

from typing import Any

import msgspec

from ..i18n import _

Change = dict[str, Any]  # {"path": [...], "before": ..., "after": ...}
MISSING = None  # the value shown for a key that did not exist (before) or no longer exists (after)


def _fields(obj: Any) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in obj.__struct_fields__}


def diff(before: Any, after: Any, path: tuple[Any, ...] = ()) -> list[Change]:
    """Every leaf that differs between ``before`` and ``after``, as ``{path, before, after}``."""
    if before is after:
        return []
    if isinstance(before, msgspec.Struct) and type(before) is type(after):
        return _diff_maps(_fields(before), _fields(after), path)
    if isinstance(before, dict) and isinstance(after, dict):
        return _diff_maps(before, after, path)
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)) and len(before) == len(after):
        out: list[Change] = []
        for i, (a, b) in enumerate(zip(before, after)):
            out.extend(diff(a, b, path + (_label(b, i),)))
        return out
    if before == after:
        return []
    return [{"path": list(path), "before": _plain(before), "after": _plain(after)}]


def _diff_maps(a: dict[Any, Any], b: dict[Any, Any], path: tuple[Any, ...]) -> list[Change]:
    out: list[Change] = []
    for key, va in a.items():
        if key in b:
            out.extend(diff(va, b[key], path + (key,)))
        else:
            out.append({"path": list(path + (key,)), "before": _plain(va), "after": MISSING})
    for key, vb in b.items():
        if key not in a:
            out.append({"path": list(path + (key,)), "before": MISSING, "after": _plain(vb)})
    return out


def _label(item: Any, index: int) -> Any:
    """A list element's name when it has one (``items.Épée longue.equipped``), else its index."""
    name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
    return name if isinstance(name, str) and name else index


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value, str_keys=True, enc_hook=str)


def render_value(value: Any, limit: int = 60) -> str:
    """A short readable form of a value for the text replay."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str):
        text = value
    elif isinstance(value, (int, float)):
        return str(value)
    elif isinstance(value, dict) and "name" in value and isinstance(value["name"], str):
        text = f"« {value['name']} »"
    elif isinstance(value, list) and value and all(isinstance(v, dict) and isinstance(v.get("name"), str) for v in value):
        text = ", ".join(f"« {v['name']} »" for v in value)
    else:
        text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_change(change: Change) -> str:
    """``characters.york.pv : 12 → 4``."""
    path = ".".join(str(p) for p in change["path"])
    before, after = change["before"], change["after"]
    if isinstance(before, list) and isinstance(after, list):
        if after[: len(before)] == before:
            return _("{path}: + {value}").format(path=path, value=render_value(after[len(before):]))
        if before[: len(after)] == after:
            return _("{path}: − {value}").format(path=path, value=render_value(before[len(after):]))
    if before is None and after is not None and isinstance(after, (dict, list)):
        return _("{path}: added {value}").format(path=path, value=render_value(after))
    if after is None and before is not None and isinstance(before, (dict, list)):
        return _("{path}: removed").format(path=path)
    return _("{path}: {before} → {after}").format(path=path, before=render_value(before), after=render_value(after))
