"""Numbers the environment sets: the budgets and bounds of a run (YGO_FAST_MAX_ATOMS, YGO_PELLET_TIMEOUT,
YGO_MAX_OWL_BYTES), read one way: unset or empty gives the default, anything but a number >= 0 is bad input
naming the variable."""
from __future__ import annotations

import math
import os

from .errors import StateError


def env_number(name: str, default, expected: str, integer: bool = True):
    """The value of environment variable `name`: a whole number (its digits alone) or, with integer=False, a finite
    float, >= 0; `default` when it is unset or empty.

    :raises StateError: "NAME: expected EXPECTED, got 'TEXT'"."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if integer:
        value = int(text) if text.isdigit() else -1
    else:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
    if not (value >= 0 and math.isfinite(value)):
        raise StateError(f"{name}: expected {expected}, got {text!r}")
    return value
