"""What the tests of effect cards added through an exported ontology file share (test_effect_cards_from_ontology,
test_moves_from_ontology): the CLI in a subprocess, a disk cache of their own, and small state builders."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NONE5 = [None] * 5


def run(*args, check=True):
    """`ygo-onto ARGS` in a subprocess from the checkout; with `check`, it must exit 0."""
    done = subprocess.run([sys.executable, "-m", "ygo_onto", *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    if check:
        assert done.returncode == 0, f"ygo-onto {' '.join(map(str, args))}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A disk cache folder of the module's own (the files it loads are not the sources)."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME")
    else:
        os.environ["XDG_CACHE_HOME"] = old


def copy_graph(g):
    """A new rdflib graph with g's triples and prefixes, to edit: a quarter of the CPU of parsing the file again
    (several tests edit the same file, each its own way)."""
    from rdflib import Graph

    out = Graph()
    out += g
    for prefix, namespace in g.namespaces():
        out.bind(prefix, namespace, override=True)
    return out


def state(a: dict, b: dict, phase="main1", turn=3, turn_player="A", **extra) -> dict:
    return {"format": "ygo-onto.state/1", "ruleset": "official", "turn": turn, "turn_player": turn_player,
            "phase": phase, **extra,
            "players": {"A": {"life_points": 8000, "deck": ["Dark Magician"] * 3, **a},
                        "B": {"life_points": 8000, "deck": ["Pot of Greed"] * 3, **b}}}


def zones(*cards) -> list:
    return [*cards, *NONE5[len(cards):]]
