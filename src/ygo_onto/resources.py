"""Where the engine's files live: the ontology, the SWRL rules, the card data and the examples.

In the repository they sit at the top (`ontology/`, `rules/`, `examples/`; people edit the
ontology, the card catalog among it, in Protégé and the rules as text there) and the official
decks in `src/ygo_onto/data/`.
A built wheel carries copies inside the package (`ygo_onto/ontology`, `ygo_onto/rules`,
`ygo_onto/examples`, `ygo_onto/data`: setup.py maps the top-level folders to those package
paths), read here through `importlib.resources`.

When the package is imported from a source checkout (`<repo>/src/ygo_onto`, an editable
install or `PYTHONPATH=src`), the checkout's own folders win: they are the files being
edited, and several checkouts may share one virtualenv.  The installed wheel is not zip-safe
(it installs unpacked), so every location is a real directory.

Every other module asks this one; none builds a path to these files itself.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

PACKAGE = "ygo_onto"
_HERE = Path(__file__).resolve().parent
_CHECKOUT = _HERE.parent.parent if _HERE.parent.name == "src" else None

# folder name in the package -> folder of the source checkout
_CHECKOUT_DIRS = {"ontology": "ontology", "rules": "rules", "examples": "examples", "data": "src/ygo_onto/data"}


def from_checkout() -> bool:
    """True when the package runs from a source checkout (its ontology/ and rules/ next to src/)."""
    return _CHECKOUT is not None and (_CHECKOUT / "ontology" / "ygo-onto.owl").is_file() \
        and (_CHECKOUT / "rules").is_dir()


def _dir(name: str) -> Path:
    if from_checkout():
        return _CHECKOUT / _CHECKOUT_DIRS[name]
    return Path(str(resources.files(PACKAGE).joinpath(name)))


def ontology_dir() -> Path:
    """The folder of ygo-onto.owl and catalog-v001.xml."""
    return _dir("ontology")


def tbox_file() -> Path:
    """The TBox, RDF/XML (edited in Protégé)."""
    return ontology_dir() / "ygo-onto.owl"


def rules_dir() -> Path:
    """The folder of the SWRL rules: common/, official/, simplified/ (*.swrl, any depth)."""
    return _dir("rules")


def data_dir() -> Path:
    """The official decks (JSON) and goat/ (the GOAT format pack and its Forbidden & Limited list); the cards
    themselves are ontology/cards-RULESET.owl."""
    return _dir("data")


def read_data(filename: str) -> str:
    """The text of one file of the card data."""
    return (data_dir() / filename).read_text(encoding="utf-8")


def examples_dir() -> Path:
    """The example states (examples/*.json), the benchmark's states among them."""
    return _dir("examples")


def example(name: str) -> Path:
    """One example state by file name (`puzzle-raigeki.json`)."""
    return examples_dir() / name
