"""The repository reads on its own: the contract is in docs/, docs/cards.md follows the catalogs,
and nothing points outside the repository."""
import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = ("state-format.md", "actions-and-cli.md", "rulesets.md", "cards.md", "decisions.md", "env.md", "performance.md",
        "editing-in-protege.md", "development.md")


def _cards_doc():
    spec = importlib.util.spec_from_file_location("cards_doc", REPO / "tools" / "cards_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cards_md_follows_the_catalogs():
    text = (REPO / "docs" / "cards.md").read_text(encoding="utf-8")
    assert text == _cards_doc().render(), "docs/cards.md is out of step: run python tools/cards_doc.py"


def test_cards_md_has_every_card_with_its_text():
    from ygo_onto.cards import catalog

    text = (REPO / "docs" / "cards.md").read_text(encoding="utf-8")
    for ruleset in ("official", "simplified", "goat"):
        for card in catalog(ruleset):
            assert f"| {card.name} |" in text and card.description.replace("|", "\\|") in text, card.name


def _text_files():
    for path in REPO.rglob("*"):
        rel = path.relative_to(REPO)
        if rel.parts[0] in (".git", ".venv", "build", "dist") or "egg-info" in str(rel) or not path.is_file():
            continue
        if path.suffix in (".md", ".py", ".swrl", ".json", ".ipynb", ".toml", ".sh", ".owl", ".xml", ".csv") \
                or rel.parts[0] == ".ci":
            yield rel, path


def test_nothing_points_outside_the_repository():
    # (the pattern is spelt in pieces so that this file does not match it)
    outside = re.compile("|".join(("shared" + "/spec", r"\.\./" + "shared", "/work" + "/shared",
                                   "collection-yugioh-game" + r"\.md")))
    hits = [f"{rel}:{n}" for rel, path in _text_files()
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if outside.search(line)]
    assert hits == []


def test_doc_links_resolve():
    for name in DOCS:
        text = (REPO / "docs" / name).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (REPO / "docs" / target).exists(), f"docs/{name} links to a missing {target}"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"`(docs/[\w.-]+\.md)`", readme):
        assert (REPO / target).is_file(), target
