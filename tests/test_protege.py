"""Editing in Protégé, both ways: the export's rules have identity, `--ontology` runs a
saved file, `import-owl` carries its edits back into the sources, and a file with no edit
changes nothing.

The edits are made with the OWL API 5 (Protégé's library) in a process of its own
(tests/owlapi_edit.py); without the OWL API those tests skip (fail under YGO_REQUIRE_OWLAPI=1),
like tests/test_export.py.  import-owl writes into a copy of the repository (its own git
repository), so the checkout is never touched.

The states: Celtic Guardian (1400 ATK) Normal Summoned into a set Trap Hole (cards.md: "1000 or
more ATK"; its threshold is the number the edit changes), Dark Magician (2500) attacking Summoned
Skull (2500: both destroyed, rulebook p. 27; with 2600 ATK the attacker wins), and a new Normal
Monster made in Protégé in the hand (rulebook p. 12: a Level 4 or lower monster is Normal Summoned
without a tribute).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS

from ontofile_cards import copy_graph
from owlapi_edit import edit_in_a_process
from ygo_onto.knowledge import YGO, knowledge
from ygo_onto.ontofile import SWRL_IMP, rule_iri

REPO = Path(__file__).resolve().parent.parent
EDIT = Path(__file__).resolve().parent / "owlapi_edit.py"
TRAP_HOLE_RULE = "official/cards/traps.swrl#5"  # Trap Hole on a Normal Summon: ATK >= 1000

STATES = {
    "traphole": {"format": "ygo-onto.state/1", "ruleset": "official", "turn": 3, "turn_player": "A", "phase": "main1",
                 "players": {"A": {"life_points": 8000, "deck": ["Dark Magician"], "hand": ["Celtic Guardian"]},
                             "B": {"life_points": 8000, "deck": ["Pot of Greed"], "spell_trap_zones": [
                                 {"card": "Trap Hole", "position": "face_down"}, None, None, None, None]}}},
    "battle": {"format": "ygo-onto.state/1", "ruleset": "official", "turn": 3, "turn_player": "A", "phase": "battle",
               "players": {"A": {"life_points": 8000, "deck": ["Pot of Greed"], "monster_zones": [
                   {"card": "Dark Magician", "position": "attack"}, None, None, None, None]},
                           "B": {"life_points": 8000, "deck": ["Pot of Greed"], "monster_zones": [
                               {"card": "Summoned Skull", "position": "attack"}, None, None, None, None]}}},
    "newcard": {"format": "ygo-onto.state/1", "ruleset": "official", "turn": 3, "turn_player": "A", "phase": "main1",
                "players": {"A": {"life_points": 8000, "deck": ["Dark Magician"], "hand": ["Protégé Dragon"]},
                            "B": {"life_points": 8000, "deck": ["Pot of Greed"]}}},
}
EDITS = ["remove-rules:MagicJammer", f"change-number:{TRAP_HOLE_RULE}:1000:1500",
         "add-rule:official/cards/traps.swrl#6:official/cards/traps.swrl#protege1:1000:2500:rules/official/cards/traps.swrl",
         "add-card:ProtegeDragon:Protégé Dragon:4:1900:1200", "set-atk:DarkMagician:2600"]


def run(*args, cwd=REPO, src=None, check=True):
    env = {**os.environ, "PYTHONPATH": str(src or REPO / "src")}
    done = subprocess.run([sys.executable, "-m", "ygo_onto", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    if check:
        assert done.returncode == 0, f"ygo-onto {' '.join(map(str, args))}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    d = tmp_path_factory.mktemp("states")
    out = {}
    for name, data in STATES.items():
        (d / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
        out[name] = d / f"{name}.json"
    return out


@pytest.fixture(scope="module")
def exported(official_export):
    """`ygo-onto export-owl ygo.owl` (conftest: written once per test run)."""
    return official_export


# ---------------------------------------------------------------- rules have identity

@pytest.fixture(scope="module")
def exported_graph(exported):
    """The export's triples, parsed once: the tests that edit them edit a copy."""
    return Graph().parse(exported, format="xml")


def test_every_exported_rule_has_its_iri_label_citation_and_file(exported_graph):
    g = exported_graph
    rules = knowledge("official").rules
    assert (URIRef("http://ygo-onto.org/ontology"), YGO.ruleset, Literal("official")) in g
    imps = set(g.subjects(RDF.type, SWRL_IMP))
    assert imps == {rule_iri(r) for r in rules}
    for r in rules:
        node = rule_iri(r)
        assert str(g.value(node, RDFS.label)) == r.name
        assert str(g.value(node, RDFS.comment)) == r.comment and r.comment
        assert str(g.value(node, YGO.ruleFile)) == r.file and (REPO / r.file).is_file()
    red_eyes = URIRef("http://ygo-onto.org/cards/official#RedEyesBlackDragon")
    assert int(g.value(red_eyes, YGO.cardAtk)) == 2400 and int(g.value(red_eyes, YGO.cardLevel)) == 7
    assert int(g.value(red_eyes, YGO.cardPasscode)) == 74677422
    assert str(g.value(URIRef("http://ygo-onto.org/cards/official#BrainControl"), YGO.cardActivation)) == \
        "chooseOneTarget payLifePoints800"


def test_an_edit_to_a_rules_file_appears_in_the_export(tmp_path):
    copy = _repo_copy(tmp_path)
    traps = copy / "rules" / "official" / "cards" / "traps.swrl"
    traps.write_text(traps.read_text(encoding="utf-8").replace("greaterThanOrEqual(?x, 1000)", "greaterThanOrEqual(?x, 1234)", 1),
                     encoding="utf-8")
    run("export-owl", tmp_path / "out.owl", cwd=copy, src=copy / "src")
    from ygo_onto.ontofile import rules_from_graph

    rules = {r.name: r for r, _ in rules_from_graph(Graph().parse(tmp_path / "out.owl", format="xml"), "out.owl")}
    assert "greaterThanOrEqual(?x, 1234)" in rules[TRAP_HOLE_RULE].text


# ---------------------------------------------------------------- --ontology and bad input

def _allowed(state, *extra, **kw):
    return [a["id"] for a in json.loads(run("allowed", state, "--json", *extra, **kw).stdout)["actions"]]


def _after(state, action, *extra, **kw):
    return json.loads(run("apply", state, action, *extra, **kw).stdout)


def test_ontology_runs_the_export_as_the_sources(exported, states, tmp_path):
    env_cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    os.environ.update(env_cache)
    try:
        assert _allowed(states["traphole"], "--ontology", exported) == _allowed(states["traphole"])
        assert _allowed(states["traphole"], "--ontology", exported) == _allowed(states["traphole"])  # cached
        assert list((tmp_path / "cache" / "ygo-onto").glob("*.pickle"))
    finally:
        os.environ.pop("XDG_CACHE_HOME")


def _with(exported_graph, tmp_path, edit) -> Path:
    g = copy_graph(exported_graph)
    edit(g)
    out = tmp_path / "bad.owl"
    g.serialize(out, format="xml")
    return out


def _rule_node(g, name):
    return next(n for n in g.subjects(RDF.type, SWRL_IMP) if str(g.value(n, RDFS.label)) == name)


def _builtin_of(g, rule):
    from rdflib.collection import Collection

    body = Collection(g, g.value(rule, URIRef("http://www.w3.org/2003/11/swrl#body")))
    return next(a for a in body if g.value(a, URIRef("http://www.w3.org/2003/11/swrl#builtin")) is not None)


def test_bad_ontology_files_exit_2_naming_what_is_wrong(exported_graph, states, tmp_path):
    swrl = "http://www.w3.org/2003/11/swrl#"
    not_owl = tmp_path / "state.owl"
    not_owl.write_text(json.dumps(STATES["battle"]), encoding="utf-8")
    done = run("allowed", states["battle"], "--ontology", not_owl, check=False)
    assert done.returncode == 2 and "expected an OWL file" in done.stderr and "Traceback" not in done.stderr

    def untranslatable(g):  # a string builtin: fast has no exact meaning for it
        atom = _builtin_of(g, _rule_node(g, TRAP_HOLE_RULE))
        g.remove((atom, URIRef(swrl + "builtin"), None))
        g.add((atom, URIRef(swrl + "builtin"), URIRef("http://www.w3.org/2003/11/swrlb#stringConcat")))

    done = run("allowed", states["battle"], "--ontology", _with(exported_graph, tmp_path, untranslatable), check=False)
    assert done.returncode == 2 and TRAP_HOLE_RULE in done.stderr and "stringConcat" in done.stderr, done.stderr

    def unknown_class(g):  # a typo in Protégé: every Monster(?x) atom names an undeclared class
        for atom in list(g.subjects(URIRef(swrl + "classPredicate"), URIRef(str(YGO) + "Monster"))):
            g.set((atom, URIRef(swrl + "classPredicate"), URIRef(str(YGO) + "Monstr")))

    done = run("allowed", states["battle"], "--ontology", _with(exported_graph, tmp_path, unknown_class), check=False)
    assert done.returncode == 2 and "Monstr" in done.stderr and "Traceback" not in done.stderr, done.stderr

    def inconsistent(g):
        g.add((YGO.flipSummon, RDF.type, YGO.Monster))
        g.add((YGO.flipSummon, RDF.type, YGO.Spell))

    done = run("allowed", states["battle"], "--ontology", _with(exported_graph, tmp_path, inconsistent), check=False)
    assert done.returncode == 2 and "inconsistent" in done.stderr and "flipSummon" in done.stderr, done.stderr
    done = run("import-owl", _with(exported_graph, tmp_path, untranslatable), check=False)
    assert done.returncode == 2 and TRAP_HOLE_RULE in done.stderr


# ---------------------------------------------------------------- edits made with the OWL API

_owlapi_edit = edit_in_a_process  # (tests/owlapi_edit.py: the edit script, and how the tests run it)


def _repo_copy(tmp_path: Path) -> Path:
    """The sources in a git repository of their own (ontology/, rules/, src/, examples/)."""
    copy = tmp_path / "repo"
    for part in ("ontology", "rules", "src", "examples"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "sources"]):
        subprocess.run(["git", *cmd], cwd=copy, check=True, capture_output=True)
    return copy


def _git_status(copy: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=copy, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def saved(exported, tmp_path_factory):
    """The export loaded and saved by the OWL API: with no edit, and with the edits of EDITS."""
    d = tmp_path_factory.mktemp("owlapi")
    return {"noop": _owlapi_edit(exported, d / "noop.owl", "noop"),
            "edited": _owlapi_edit(exported, d / "edited.owl", *EDITS),
            "owlxml": _owlapi_edit(exported, d / "noop.owx", "owlxml")}


@pytest.mark.parametrize("which", ["noop", "owlxml"])
def test_a_load_and_save_with_no_edit_leaves_the_sources_clean(saved, tmp_path, which, states):
    copy = _repo_copy(tmp_path)
    done = run("import-owl", saved[which], cwd=copy, src=copy / "src")
    assert "no change to the sources" in done.stdout, done.stdout
    assert _git_status(copy) == ""
    assert _allowed(states["traphole"], "--ontology", saved[which]) == _allowed(states["traphole"])


def test_the_edits_show_through_ontology(saved, states):
    edited = saved["edited"]
    # Trap Hole now needs 1500 ATK: Celtic Guardian's summon gives B no response, A keeps priority
    assert _after(states["traphole"], "normal_summon@A.hand0")["priority"] == "B"
    assert _after(states["traphole"], "normal_summon@A.hand0", "--ontology", edited)["priority"] == "A"
    # Dark Magician's ATK 2600 beats Summoned Skull's 2500 (it was a tie)
    before = _after(states["battle"], "attack@A.mz0>B.mz0")
    after = _after(states["battle"], "attack@A.mz0>B.mz0", "--ontology", edited)
    assert before["players"]["A"]["monster_zones"][0] is None and before["players"]["B"]["life_points"] == 8000
    assert after["players"]["A"]["monster_zones"][0]["card"] == "Dark Magician"
    assert after["players"]["B"]["life_points"] == 7900
    _new_card_plays(states["newcard"], "--ontology", edited)


def _new_card_plays(state, *extra, **kw):
    """Protégé Dragon (a Normal Monster with no rule): in `cards`, summoned, attacks directly."""
    listed = json.loads(run("cards", "Protégé", "--json", *extra, **kw).stdout)
    assert [(c["name"], c["level"], c["atk"], c["def"]) for c in listed] == [("Protégé Dragon", 4, 1900, 1200)]
    assert "normal_summon@A.hand0" in _allowed(state, *extra, **kw)
    tmp = Path(state).parent
    summoned = _after(state, "normal_summon@A.hand0", *extra, **kw)
    (tmp / "s1.json").write_text(json.dumps(summoned), encoding="utf-8")
    battle = _after(tmp / "s1.json", "next_phase:battle", *extra, **kw)
    (tmp / "s2.json").write_text(json.dumps(battle), encoding="utf-8")
    attack = next(a for a in _allowed(tmp / "s2.json", *extra, **kw) if a.startswith("direct_attack@A.mz0"))
    hit = _after(tmp / "s2.json", attack, *extra, **kw)
    assert hit["players"]["B"]["life_points"] == 8000 - 1900  # rulebook p. 27: a direct attack deals its ATK


def test_import_owl_writes_the_edits_into_the_sources(saved, states, tmp_path):
    copy = _repo_copy(tmp_path)
    dry = run("import-owl", saved["edited"], "--dry-run", cwd=copy, src=copy / "src")
    assert "rules changed: 1" in dry.stdout and "rules removed: 2" in dry.stdout and "rules added: 1" in dry.stdout
    assert "cards added: 1 (Protégé Dragon)" in dry.stdout and "cards changed: 1 (Dark Magician)" in dry.stdout
    assert _git_status(copy) == ""
    run("import-owl", saved["edited"], cwd=copy, src=copy / "src")
    diff = subprocess.run(["git", "diff", "-U0"], cwd=copy, capture_output=True, text=True).stdout
    assert set(_git_status(copy).split()) == {"M", "rules/official/cards/traps.swrl", "ontology/cards-official.owl"}
    assert "+TrapHole(?c), controlledBy(?c, ?p), opponentOf(?p, ?o), Monster(?m), controlledBy(?m, ?o), " \
           "justSummonedBy(?m, normalSummon), currentAtk(?m, ?x), greaterThanOrEqual(?x, 1500) -> " \
           "ActivationConditionMet(?c)" in diff
    assert "-MagicJammer(?c)" in diff and "greaterThanOrEqual(?x, 2500)" in diff
    # the catalog file: Dark Magician's ATK changed in place (one line), the new card's class at the end
    assert '-        <ygo:cardAtk rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">2500</ygo:cardAtk>' in diff
    assert '+        <ygo:cardAtk rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">2600</ygo:cardAtk>' in diff
    assert '+    <owl:Class rdf:about="http://ygo-onto.org/cards/official#ProtegeDragon">' in diff
    assert '+        <rdfs:label xml:lang="en">Protégé Dragon</rdfs:label>' in diff
    cards_diff = diff.split("cards-official.owl", 1)[1].split("\ndiff --git", 1)[0]
    removed = [ln for ln in cards_diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    assert len(removed) == 1, cards_diff  # nothing but the ATK line removed
    # the engine run from the new sources shows the same changes
    kw = {"cwd": copy, "src": copy / "src"}
    assert _after(states["traphole"], "normal_summon@A.hand0", **kw)["priority"] == "A"
    assert _after(states["battle"], "attack@A.mz0>B.mz0", **kw)["players"]["B"]["life_points"] == 7900
    _new_card_plays(states["newcard"], **kw)
    # and a second export + import of the new sources changes nothing
    run("export-owl", tmp_path / "again.owl", **kw)
    assert "no change to the sources" in run("import-owl", tmp_path / "again.owl", **kw).stdout
    assert set(_git_status(copy).split()) == {"M", "rules/official/cards/traps.swrl", "ontology/cards-official.owl"}


def test_the_source_files_saved_by_the_owl_api_are_what_the_engine_runs(states, tmp_path):
    """ontology/ is the source: the TBox and a card file loaded and saved in place by the OWL API
    (as Protégé saves them) run as before, and a card edited there plays with its new ATK."""
    copy = _repo_copy(tmp_path)
    kw = {"cwd": copy, "src": copy / "src"}
    for name in ("ygo-onto.owl", "cards-official.owl"):
        path = copy / "ontology" / name
        _owlapi_edit(path, path, "noop")
    assert "owl:" in (copy / "ontology" / "cards-official.owl").read_text(encoding="utf-8")
    assert _allowed(states["traphole"], **kw) == _allowed(states["traphole"])
    assert _after(states["traphole"], "normal_summon@A.hand0", **kw)["priority"] == "B"
    cards = json.loads(run("cards", "--json", **kw).stdout)
    assert sorted(c["name"] for c in cards) == sorted(c["name"] for c in json.loads(run("cards", "--json").stdout))
    tie = _after(states["battle"], "attack@A.mz0>B.mz0", **kw)
    assert tie["players"]["A"]["monster_zones"][0] is None  # 2500 against 2500: both destroyed (rulebook p. 27)
    path = copy / "ontology" / "cards-official.owl"
    _owlapi_edit(path, path, "set-atk:DarkMagician:2600")
    assert _after(states["battle"], "attack@A.mz0>B.mz0", **kw)["players"]["B"]["life_points"] == 7900


# ---------------------------------------------------------------- the Python API

def test_rules_load_runs_a_file_from_python_and_caches_it(exported, tmp_path, monkeypatch):
    import time

    from ygo_onto import GameState, Rules

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = Rules.load(exported)
    started = time.perf_counter()
    again = Rules.load(exported)
    cached_s = time.perf_counter() - started
    assert not first.cached and again.cached and cached_s < 3, f"a cached load took {cached_s:.1f} s"
    state = GameState.from_dict(STATES["traphole"], rules=again)
    assert [a.id for a in state.allowed_actions()] == [a.id for a in GameState.from_dict(STATES["traphole"]).allowed_actions()]
    after = state.apply("normal_summon@A.hand0")
    assert after.rules is again and after.data["priority"] == "B"  # Trap Hole may answer (cards.md: 1000 or more ATK)


def test_a_simplified_export_imports_with_no_change(tmp_path):
    from ygo_onto.ontofile import plan_import

    path = tmp_path / "simplified.owl"
    run("export-owl", path, "--ruleset", "simplified")
    plan = plan_import(path)
    assert plan["ruleset"] == "simplified"
    assert not plan["rules"] and not plan["cards"] and plan["tbox"] is None
    assert not any(plan["summary"].values()), plan["summary"]
