"""Reasoner backends behind one interface.

A backend takes the knowledge of a ruleset and the ABox facts of a state and returns every
fact that holds about the named individuals (asserted and inferred).  `pellet` is the
reference; any other backend must return exactly the same facts (tests/test_differential.py).
"""
from __future__ import annotations

import time
from collections.abc import Set as AbstractSet
from typing import Callable, Protocol

from ..errors import ReasonerError
from ..knowledge import Knowledge

Fact = tuple


class Facts(AbstractSet):
    """A backend's facts, held by name (class or property): `groups`, name -> the set of that
    name's facts, which are never changed in place (they are shared with the reading of the next
    run).  An immutable set: `in`, iteration, len, ==, |, - and the other set operations (their
    result is a plain set).  The fast backend gives it: a next state's reading shares the groups
    that did not change, so no run copies the whole set.  A plain set from another backend is
    indexed by one pass when first asked (`named`)."""

    __slots__ = ("groups", "_len")

    def __init__(self, groups: dict | None = None):
        self.groups = groups if groups is not None else {}
        self._len = None

    def __contains__(self, fact) -> bool:
        try:
            group = self.groups.get(fact[0])
        except (TypeError, IndexError, KeyError):  # (not a fact)
            return False
        return group is not None and fact in group

    def __iter__(self):
        for group in self.groups.values():
            yield from group

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(map(len, self.groups.values()))
        return self._len

    def __repr__(self) -> str:
        return f"Facts({set(self)!r})"

    @classmethod
    def _from_iterable(cls, facts) -> set:
        return set(facts)


def named(facts: set, names) -> list:
    """The facts whose name is one of `names` (in no particular order): a lookup per name where `facts`
    is indexed (Facts), else one pass over them (the apply loop asks this of every reasoner run:
    operations, allowed actions)."""
    groups = getattr(facts, "groups", None)
    if groups is None:
        wanted = set(names)
        return [f for f in facts if f[0] in wanted]
    return [f for name in groups.keys() & names for f in groups[name]]  # (the lookups in one C loop)


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
