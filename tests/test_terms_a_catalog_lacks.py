"""Terms a ruleset's catalog never makes true are not told per state: a lock count no card of the catalog makes
(abox.idle_counts) and a keyword ability no card has (abox.idle_abilities) stay out of the ABox, and the rules both
reasoners run (knowledge.reasoned_rules) read them as 0 and as lacking, leaving out the rules that need them and
the rules of effect data no card of the catalog gives (an effect kind, a trigger).  The
official duel does not pay for the GOAT pack's locks; the goat ABox keeps them.  That behaviour is unchanged is
shown by the duel records (scripts/duel_records.py) and that fast = Pellet by the differential tests."""
from __future__ import annotations

from ygo_onto import abox
from ygo_onto.knowledge import Knowledge, _never_made, _never_said, knowledge, reasoned_rules
from ygo_onto.state import normalize
from ygo_onto.swrl import Atom, Rule, Term, parse_rule_text

LOCKS = {"attackLockCount", "positionLockCount", "attackLevelLockCount", "positionLevelLockCount",
         "faceUpTrapLockCount", "faceUpSpellLockCount", "faceUpSummonLockCount", "graveyardBanishLocksAgainst",
         "cannotBeTributedCount", "continuousStatChangeCount", "tributeLockedCount"}


def _facts(ruleset: str, monster: str, spell: str) -> list:
    state = {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "phase": "main1", "players": {
        "A": {"monster_zones": [{"card": monster, "position": "attack"}, None, None, None, None],
              "spell_trap_zones": [{"card": spell, "position": "face_down"}, None, None, None, None]},
        "B": {"monster_zones": [{"card": monster, "position": "face_down_defense"}, None, None, None, None]}}}
    return abox.state_facts(normalize(state))


def test_an_official_state_tells_no_goat_lock_and_no_keyword_ability():
    preds = {f[0] for f in _facts("official", "Celtic Guardian", "Mirror Force")}
    assert not preds & (LOCKS | {"hasAbility", "lacksAbility"})
    assert {"equippedAxeCount", "swordsAgainst", "faceUpYamiCount"} <= preds  # (official cards make these)


def test_a_goat_state_tells_its_locks_and_abilities():
    preds = {f[0] for f in _facts("goat", "Spirit Reaper", "Mirror Force")}
    assert LOCKS <= preds and "lacksAbility" in preds
    assert "faceUpYamiCount" not in preds and "equippedAxeCount" not in preds  # (no goat card is Yami or the Axe)


def _read_as_0(atom, kept) -> bool:
    """Whether `kept` is `atom` with 0 for some of its variables (an idle count's value, substituted)."""
    return atom.pred == kept.pred and len(atom.args) == len(kept.args) and all(
        a == b or (a.is_var and b.kind == "int" and b.value == 0) for a, b in zip(atom.args, kept.args))


def test_the_rules_run_read_an_idle_term_as_0_and_leave_out_what_needs_more():
    k = knowledge("official")
    zero, idle = abox.idle_counts(k)
    absent, idle_abilities = abox.idle_abilities(k)
    assert LOCKS <= idle and idle <= zero and "piercing" in idle_abilities <= absent
    run = reasoned_rules(k)
    by_name = {r.name: r for r in run}
    never = _never_said(k.vocabulary, {a.pred for r in k.rules for a in parse_rule_text(r.text)[1]})
    unmade = _never_made(k.vocabulary, [parse_rule_text(r.text) for r in k.rules if r.name in by_name])
    for rule in k.rules:
        body, _ = parse_rule_text(rule.text)
        got = by_name.get(rule.name)
        if got is None:  # left out: it needs a zero count above 0, an ability no monster has, effect data, or a
            # pending purpose or a counter that no rule run makes
            assert abox.zero_substitution(body, zero) is None or abox.abilities_never_hold(body, absent) \
                or any(map(never, body)) or unmade(body), rule.where
            continue
        kept, _ = parse_rule_text(got.text)
        assert not {a.pred for a in kept} & idle, rule.where
        assert not any(a.pred == "lacksAbility" and a.args[1].value in idle_abilities for a in kept), rule.where
        dropped = [a for a in body if a not in kept and not any(map(_read_as_0, [a] * len(kept), kept))]
        assert all(a.pred in idle or a.pred == "lacksAbility" for a in dropped), rule.where
    # the attack rule keeps its other atoms, without the locks; a lock that needs a count above 0 is left out
    attack = next(r for r in k.rules if "-> attackAllowedOn" in r.text and "attacksDeclared(?m, 0)" in r.text)
    assert "attackLockCount" not in by_name[attack.name].text and "swordsAgainst(?p, 0)" in by_name[attack.name].text
    assert not any("trapEffectLockCount(?c, ?n), greaterThan(?n, 0)" in r.text for r in run)
    assert any("trapEffectLockCount(?c, ?n), greaterThan(?n, 0)" in r.text for r in k.rules)
    assert reasoned_rules(k) is run  # (made once per Knowledge)


def test_a_goat_count_is_kept_where_the_goat_catalog_makes_it():
    k = knowledge("goat")
    assert abox.idle_counts(k)[1] == {"equippedAxeCount", "faceUpYamiCount"} and not abox.idle_abilities(k)[1]
    changed = [r for r in reasoned_rules(k) if r not in k.rules]
    assert changed and all("faceUpYamiCount" not in r.text for r in changed)
    assert any("attackLockCount(?m, 0)" in r.text for r in reasoned_rules(k))


def test_a_zero_count_read_without_a_guard_stays_in_the_abox():
    """A rule reading the count of a card that need not be on the field: leaving the atom out would make it match
    more, so the count stays asserted (and read as written)."""
    k = knowledge("official")
    loose = Rule("test#1", "Card(?c), attackLockCount(?c, 0) -> FaceUp(?c)", "", "", 0)
    k2 = Knowledge("official", catalog_=k.catalog, rules=[*k.rules, loose])
    k2.__dict__["vocabulary"] = k.vocabulary
    zero, idle = abox.idle_counts(k2)
    assert "attackLockCount" in zero and "attackLockCount" not in idle and "positionLockCount" in idle
    assert loose in reasoned_rules(k2)


def test_the_rules_of_effect_kinds_no_card_names_are_not_run():
    official, goat = (reasoned_rules(knowledge(r)) for r in ("official", "goat"))
    assert not any("BanishEffect(?e)" in r.text or "hasTrigger(?e, onStandbyPhase)" in r.text for r in official)
    assert any("BanishEffect(?e)" in r.text for r in goat) and any("hasTrigger(?e, onStandbyPhase)" in r.text
                                                                    for r in goat)
    assert any("DestroyEffect(?e)" in r.text for r in official)  # (official cards name DestroyEffects: Mirror Force)


def test_no_abox_fact_is_effect_data_the_rules_run_count_on_missing():
    """The ABox tells nothing about an Effect individual, so an atom the catalog's data never gives never holds."""
    for ruleset, monster in (("official", "Celtic Guardian"), ("goat", "Jinzo")):
        never = _never_said(knowledge(ruleset).vocabulary, set())
        for f in _facts(ruleset, monster, "Mirror Force"):
            args = tuple(Term("var", f"x{i}") for i in range(len(f) - 1))
            assert not never(Atom(f[0], args)), f
