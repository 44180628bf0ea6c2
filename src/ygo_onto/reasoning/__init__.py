"""Reasoner backends behind one interface.

A backend takes the knowledge of a ruleset and the ABox facts of a state and returns every
fact that holds about the named individuals (asserted and inferred).  `pellet` is the
reference; any other backend must return exactly the same facts (tests/test_differential.py).
"""
from __future__ import annotations

import time
from typing import Callable, Protocol

from ..errors import ReasonerError
from ..knowledge import Knowledge

Fact = tuple


class Backend(Protocol):
    name: str

    def infer(self, knowledge: Knowledge, facts: list[Fact]) -> set[Fact]: ...


_REGISTRY: dict[str, Callable[[], Backend]] = {}
_INSTANCES: dict[str, Backend] = {}
DEFAULT = "fast"


def register(name: str):
    def deco(factory):
        _REGISTRY[name] = factory
        return factory
    return deco


def names() -> list[str]:
    _load_all()
    return sorted(_REGISTRY)


def get(name: str) -> Backend:
    """The backend of that name.

    :raises ReasonerError: no such backend.
    """
    _load_all()
    if name not in _REGISTRY:
        raise ReasonerError(f"reasoner: expected one of {', '.join(sorted(_REGISTRY))}, got {name!r}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _REGISTRY[name]()
    return _INSTANCES[name]


def _load_all():
    from . import fast, hermit, pellet, pellet_jvm  # noqa: F401  (registration side effect)


class Timer:
    def __init__(self):
        self.ms = 0.0

    def __enter__(self):
        self._t = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.ms = (time.perf_counter() - self._t) * 1000
