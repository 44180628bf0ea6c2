"""Names and values of the ontology as ASP terms."""
from __future__ import annotations

from ...errors import ReasonerError

# ---------------------------------------------------------------------------------------------
# Names and values in ASP

def _esc(name: str) -> str:
    """An injective ASP-safe spelling: letters and digits stay, anything else is _<hex>_."""
    return "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in name)


def cpred(cls: str) -> str:
    return "c_" + _esc(cls)


def ppred(prop: str) -> str:
    return "p_" + _esc(prop)


def _qstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1


def _literal(value) -> str:
    """A Python data value as an ASP term."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise ReasonerError(f"fast: the integer {value} is outside clingo's 32-bit range")
        return str(value)
    if isinstance(value, str):
        return "s(" + _qstr(value) + ")"
    raise ReasonerError(f"fast: expected an integer, a boolean or a string as a data value, got {value!r}")


_INT_TYPES = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
              "nonPositiveInteger", "negativeInteger", "unsignedInt", "unsignedLong", "unsignedShort",
              "unsignedByte"}
_STR_TYPES = {"string", "normalizedString", "token"}


def _range_type(xsd: str) -> str:
    if xsd in _INT_TYPES:
        return "int"
    if xsd == "boolean":
        return "bool"
    if xsd in _STR_TYPES:
        return "str"
    return "any"
