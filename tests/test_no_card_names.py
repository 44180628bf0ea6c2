"""Game logic lives in the ontology and the rules: no card of the catalogs is named in src/**/*.py (issue 11 item 5)."""
import csv
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "ygo_onto"


def catalog_names() -> set[str]:
    names = set()
    for path in (SRC / "data").glob("*.csv"):
        with path.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                names.add(row["name"])
                names.update(a.strip() for a in (row.get("aliases") or "").split(";") if a.strip())
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
