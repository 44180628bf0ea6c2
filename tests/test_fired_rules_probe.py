"""Which rules fire on a reasoner input (ygo_onto.testing.differential.fired_rules): the Pellet comparisons choose
their sample by it (differential.covering: every rule that fires on some input fires on a compared one), so it must
name exactly the rules whose body holds in the input's model.  Checked here against the rules' bodies matched in
Python (swrl.match_body, the matcher of `explain`) on fast's answer, on inputs of each ruleset."""
from __future__ import annotations

from pathlib import Path

from ygo_onto.knowledge import knowledge, reasoned_rules
from ygo_onto.swrl import ARITHMETIC, BUILTINS, FactIndex, Var, match_body, parse_rule
from ygo_onto.testing import differential as D

SCENARIOS = Path(__file__).parent / "scenarios"
# an apply step with its action's transient facts and the state after the last step, per ruleset
PROBED = {"official": "chain-rulebook-example", "simplified": "audit10-examples-example2-battle-spell-then-attack",
          "goat": "heavy-storm-destroys-every-spell-and-trap"}


def _joined(atoms) -> list:
    """The body in an order that binds as it goes (the matcher joins left to right, a builtin once its arguments
    are bound), so that a body is matched in milliseconds."""
    bound: set = set()
    out, todo = [], list(atoms)

    def ready(a) -> bool:
        args = a.args[1:] if a.predicate in ARITHMETIC else a.args if a.predicate in BUILTINS else ()
        return all(not isinstance(x, Var) or x.name in bound for x in args)

    while todo:
        a = max([a for a in todo if ready(a)] or todo,
                key=lambda a: -sum(1 for x in a.args if isinstance(x, Var) and x.name not in bound))
        todo.remove(a)
        out.append(a)
        bound |= {x.name for x in a.args if isinstance(x, Var)}
    return out


def _bodies_that_hold(case: D.Case) -> tuple[set, set]:
    """(the rules whose body matches fast's answer, the rules the Python matcher cannot evaluate)."""
    facts, err = D.fast_facts(case)
    assert err is None, err
    index = FactIndex(facts)
    holds, unread = set(), set()
    for rule in reasoned_rules(knowledge(case.ruleset)):
        body, _ = parse_rule(rule.text)
        try:
            if next(match_body(index, _joined(body), {}), None) is not None:
                holds.add(rule.name)
        except ValueError:  # an arithmetic builtin of another arity than the matcher's
            unread.add(rule.name)
    return holds, unread


def test_the_fired_rules_are_those_whose_body_holds():
    for ruleset, name in PROBED.items():
        cases = D.scenario_step_cases([SCENARIOS / ruleset / f"{name}.json"])
        chosen = [next(c for c in cases if c.transient), cases[-1]]
        for case in chosen:
            holds, unread = _bodies_that_hold(case)
            fired = D.fired_rules(case)
            assert len(unread) < len(reasoned_rules(knowledge(ruleset))) // 20
            assert fired - unread == holds, f"{case.name}: probe only {sorted(fired - unread - holds)}, " \
                                             f"bodies only {sorted(holds - fired)}"
            assert any(r.startswith(("common/", ruleset)) for r in fired)


def test_a_cover_fires_every_rule_its_cases_fire_with_fewer_cases(monkeypatch):
    monkeypatch.delenv("YGO_FULL_PELLET", raising=False)
    cases = D.scenario_step_cases([SCENARIOS / r / f"{n}.json" for r, n in PROBED.items()])
    chosen = D.covering(cases)
    assert not D.uncovered(cases, chosen)
    assert {c.ruleset for c in chosen} == set(PROBED) and len(chosen) < len(cases)
    assert set(D.uncovered(cases, [])) == set(PROBED)
    # a chosen case that is left out leaves rules uncovered, and they are named by ruleset
    dropped = chosen[0]
    left = D.uncovered(cases, [c for c in chosen if c is not dropped])
    assert set(left) <= {dropped.ruleset}
    # cases compared elsewhere count: covering them leaves nothing to add
    assert D.covering(cases, covered=cases) == []
    monkeypatch.setenv("YGO_FULL_PELLET", "1")
    assert D.covering(cases) == cases
