"""The YuGiOh_Game collection kept as its two CSV files (seed 002 1.1.1; docs/rulesets.md, simplified
"Cards"), written from ontology/cards-simplified.owl by tools/collection_csv.py: in step with the
catalog, 30 monsters and 10 spells, and readable back by tools/import_cards_csv.py."""
import importlib.util
from pathlib import Path

from ygo_onto.cards import catalog

REPO = Path(__file__).resolve().parent.parent


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_csv_files_follow_the_catalog():
    tool = _tool("collection_csv")
    for path, text in tool.render().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is out of step: run python tools/collection_csv.py"


def test_the_csv_files_hold_the_collection_and_import_back():
    tool, importer = _tool("collection_csv"), _tool("import_cards_csv")
    monsters = importer.cards_of(tool.MONSTERS, "simplified")
    spells = importer.cards_of(tool.SPELLS, "simplified")
    assert (len(monsters), len(spells)) == (30, 10)
    assert all(c.is_monster for c in monsters) and not any(c.is_monster for c in spells)
    fields = ("name", "card_type", "level", "atk", "defense", "phases", "activation", "description")
    as_read = [tuple(getattr(c, f) for f in fields) for c in monsters + spells]
    assert sorted(as_read) == sorted(tuple(getattr(c, f) for f in fields) for c in catalog("simplified"))
