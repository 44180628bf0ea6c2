"""Game logic lives in the ontology and the rules: no card of the catalogs is named in src/**/*.py."""
import re
from pathlib import Path

from ygo_onto.cards import RULESETS, catalog_file, read_catalog_file

SRC = Path(__file__).resolve().parent.parent / "src" / "ygo_onto"


def catalog_names() -> set[str]:
    names = set()
    for ruleset in RULESETS:  # the catalog files of ontology/ (the sources, not a file in use)
        for card in read_catalog_file(catalog_file(ruleset), ruleset)[0]:
            names.add(card.name)
            names.update(card.aliases)
    return names


def test_no_card_name_in_python_sources():
    names = catalog_names()
    assert len(names) > 90
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(n)}(?![\w-])" for n in sorted(names, key=len, reverse=True)))
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(SRC)}:{number}: {m.group(0)}" for m in pattern.finditer(line)]
    assert not found, "card names in Python: " + "; ".join(found)
