"""The packaging settings pyproject.toml cannot say.

* The wheel carries the top-level ontology/, rules/ and examples/ folders as ygo_onto/ontology,
  ygo_onto/rules and ygo_onto/examples (read through ygo_onto/resources.py), without moving them in
  the repo (Protégé opens ontology/, the rules are edited in rules/).
* The fast backend's C parts are compiled here, at install: native.c (the Datalog engine, a plain
  shared library that native.py opens with cffi: it has no Python module init) and reader.c (the
  CPython extension module that reads the engine's change back).  Both are optional: without a C
  compiler `pip install` still succeeds, a warning says so, and the fast backend runs its Python
  evaluator (native.describe() says why).  An editable install builds them in place, next to their
  sources.  Each is built with the SHA-256 of its source (YGO_SOURCE), so native.py refuses a module
  built from another version of a source it can see (an editable install not rebuilt after an edit
  to the C: `pip install -e .` again).

Everything else is in pyproject.toml."""
import hashlib
from pathlib import Path

from setuptools import Extension, find_packages, setup

MAPPED = {"ygo_onto.ontology": "ontology", "ygo_onto.rules": "rules", "ygo_onto.examples": "examples"}
FAST = Path("src/ygo_onto/reasoning/fast")


def c_module(name: str, source: str) -> Extension:
    digest = hashlib.sha256((FAST / source).read_bytes()).hexdigest()
    return Extension(f"ygo_onto.reasoning.fast.{name}", [(FAST / source).as_posix()], optional=True,
                     define_macros=[("YGO_SOURCE", f'"{digest}"')])


setup(
    package_dir={"": "src", **MAPPED},
    packages=find_packages("src") + list(MAPPED),
    package_data={
        "ygo_onto": ["data/*", "data/goat/*", "data/goat/effects/*", "data/goat/tokens/*"],
        "ygo_onto.ontology": ["*.owl", "*.xml"],
        "ygo_onto.rules": ["**/*.swrl"],
        "ygo_onto.examples": ["*.json", "puzzles/*.json", "decks/*/*.ydk"],
    },
    ext_modules=[c_module("_native", "native.c"), c_module("_reader", "reader.c")],
)
