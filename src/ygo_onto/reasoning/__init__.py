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


class Facts(set):
    """A backend's facts with an index by name (class or property): `groups`, name -> the facts of
    that name.  The fast backend gives it, kept up to date as it reads a model; a plain set from
    another backend is indexed by one pass when first asked (`named`)."""

    groups: dict


def named(facts: set, names) -> list:
    """The facts whose name is one of `names`: a lookup per name where `facts` is indexed (Facts),
    else one pass over them (the apply loop asks this of every reasoner run: operations, allowed
    actions)."""
    groups = getattr(facts, "groups", None)
    if groups is None:
        wanted = set(names)
        return [f for f in facts if f[0] in wanted]
    return [f for name in names for f in groups.get(name, ())]


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


# backend name -> the module that registers it: `get` imports only that one (owlready2, which the
# Pellet backends import, costs a CLI call on the fast backend a few tenths of a second)
_MODULES = {"fast": "fast", "pellet": "pellet", "pellet-jvm": "pellet_jvm", "hermit": "hermit"}


def names() -> list[str]:
    _load_all()
    return sorted(_REGISTRY)


def get(name: str) -> Backend:
    """The backend of that name.

    :raises ReasonerError: no such backend.
    """
    if name not in _REGISTRY and name in _MODULES:
        import importlib

        importlib.import_module(f"{__name__}.{_MODULES[name]}")
    if name not in _REGISTRY:
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
