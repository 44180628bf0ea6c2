"""The compiled (clingo) backend: unit tests of the compiler on tiny rule sets, and a
differential test against Pellet on real states (marked `pellet`: seconds per state).

Facts are compared *with their Python types*: in Python True == 1 and hash(True) == hash(1),
so a plain set comparison cannot tell ("free", z, True) from ("free", z, 1).
"""
from __future__ import annotations

import random
import warnings

import pytest

from ygo_onto.errors import ReasonerError
from ygo_onto.knowledge import Rule, Vocabulary, knowledge, reasoned_rules
from ygo_onto.reasoning import fast, get
from ygo_onto.reasoning.fast import compile_program, native, parse_rule_text


# ---------------------------------------------------------------------------------------------
# helpers

class FakeKnowledge:
    """What the compiler reads from a Knowledge: a ruleset name, the vocabulary and the rules."""

    def __init__(self, rules: list[str], **vocabulary):
        self.ruleset = "test"
        self.vocabulary = Vocabulary(**vocabulary)
        self.rules = [Rule(f"test.swrl#{i}", text, "", "test.swrl", 10 * i) for i, text in enumerate(rules, 1)]


def typed(facts) -> set[tuple]:
    return {tuple((type(x).__name__, x) for x in f) for f in facts}


def infer(k, facts) -> set[tuple]:
    return fast.infer_facts(k, facts)


def assert_same(got, expected):
    extra, missing = typed(got) - typed(expected), typed(expected) - typed(got)
    assert not extra and not missing, f"unexpected: {sorted(extra, key=repr)}\nmissing: {sorted(missing, key=repr)}"


def data(*names, rng="integer"):
    return {n: rng for n in names}


# ---------------------------------------------------------------------------------------------
# the rule parser

def test_parser_reads_protege_syntax():
    body, head = parse_rule_text('A(?x) ^ p(?x, -5), q(?x, "a, b"), r(?x, true), s(?x, someone) -> B(?x)')
    assert [a.pred for a in body] == ["A", "p", "q", "r", "s"]
    assert [(t.kind, t.value) for t in body[1].args] == [("var", "x"), ("int", -5)]
    assert body[2].args[1].value == "a, b"
    assert body[3].args[1].value is True
    assert body[4].args[1].kind == "name"
    assert [a.pred for a in head] == ["B"]


def test_parser_errors_name_the_rule():
    k = FakeKnowledge(["A(?x) -> B(?x"], classes={"A", "B"})
    with pytest.raises(ReasonerError, match=r"test\.swrl#1 \(test\.swrl:10\)"):
        compile_program(k)


# ---------------------------------------------------------------------------------------------
# SWRL rules: atoms, constants, builtins

ARITH_RULES = [
    "Thing2(?x), a(?x, ?a), b(?x, ?b), add(?r, ?a, ?b) -> sum(?x, ?r)",
    "a(?x, ?a), b(?x, ?b), subtract(?r, ?a, ?b) -> diff(?x, ?r)",
    "a(?x, ?a), b(?x, ?b), multiply(?r, ?a, ?b) -> prod(?x, ?r)",
    "a(?x, ?a), b(?x, ?b), integerDivide(?r, ?a, ?b) -> quot(?x, ?r)",
    "a(?x, ?a), b(?x, ?b), mod(?r, ?a, ?b) -> rem(?x, ?r)",
    "a(?x, ?a), abs(?r, ?a) -> absolute(?x, ?r)",
    "a(?x, ?a), unaryMinus(?r, ?a) -> neg(?x, ?r)",
    "a(?x, ?a), b(?x, ?b), add(?r, ?a, ?b, 100) -> sum3(?x, ?r)",
    "flag(?x, ?f), booleanNot(?r, ?f) -> notFlag(?x, ?r)",
    "a(?x, ?a), greaterThan(?a, 0) -> Positive(?x)",
    "a(?x, ?a), lessThanOrEqual(?a, 0) -> NonPositive(?x)",
    "a(?x, ?a), b(?x, ?b), equal(?a, ?b) -> Same(?x)",
    "a(?x, ?a), b(?x, ?b), notEqual(?a, ?b) -> Different(?x)",
    'name(?x, ?n), equal(?n, "seven") -> Seven(?x)',
    'name(?x, ?n), greaterThanOrEqual(?n, "s") -> LateName(?x)',
    "flag(?x, true) -> Flagged(?x), mark(?x, red), label(?x, \"on\"), level(?x, 3), done(?x, false)",
    "flag(?x, ?f), flag(?y, ?g), lessThan(?f, ?g) -> flagOrdered(?x, ?y)",
]
ARITH_VOCAB = dict(
    classes={"Thing2", "Positive", "NonPositive", "Same", "Different", "Seven", "LateName", "Flagged", "Color"},
    object_properties={"mark", "flagOrdered"},
    data_properties={**data("a", "b", "sum", "diff", "prod", "quot", "rem", "absolute", "neg", "sum3", "level"),
                     **data("flag", "notFlag", "done", rng="boolean"), **data("name", "label", rng="string")},
    individuals={"red": {"Color"}},
)


@pytest.mark.filterwarnings("ignore:fast.*never fires")
def test_builtins_and_constants():
    k = FakeKnowledge(ARITH_RULES, **ARITH_VOCAB)
    facts = [("Thing2", "x"), ("a", "x", 7), ("b", "x", -2), ("flag", "x", True), ("name", "x", "seven"),
             ("a", "y", -7), ("b", "y", 2), ("flag", "y", False), ("name", "y", "abc"),
             ("a", "z", 4), ("b", "z", 4), ("a", "w", 1), ("b", "w", 0)]
    out = infer(k, facts)
    expected = set(facts) | {
        ("Color", "red"),
        ("sum", "x", 5), ("sum3", "x", 105), ("sum3", "y", 95), ("sum3", "z", 108), ("sum3", "w", 101),
        ("diff", "x", 9), ("diff", "y", -9), ("diff", "z", 0), ("diff", "w", 1),
        ("prod", "x", -14), ("prod", "y", -14), ("prod", "z", 16), ("prod", "w", 0),
        # truncating division, remainder with the dividend's sign (XPath idiv/mod); 1 div 0: nothing
        ("quot", "x", -3), ("quot", "y", -3), ("quot", "z", 1),
        ("rem", "x", 1), ("rem", "y", -1), ("rem", "z", 0),
        ("absolute", "x", 7), ("absolute", "y", 7), ("absolute", "z", 4), ("absolute", "w", 1),
        ("neg", "x", -7), ("neg", "y", 7), ("neg", "z", -4), ("neg", "w", -1),
        ("notFlag", "x", False), ("notFlag", "y", True),
        ("Positive", "x"), ("Positive", "z"), ("Positive", "w"), ("NonPositive", "y"),
        ("Same", "z"), ("Different", "x"), ("Different", "y"), ("Different", "w"),
        ("Seven", "x"), ("LateName", "x"),
        ("Flagged", "x"), ("mark", "x", "red"), ("label", "x", "on"), ("level", "x", 3), ("done", "x", False),
        # Pellet does not order booleans: no flagOrdered
    }
    assert_same(out, expected)


def test_booleans_are_not_integers():
    k = FakeKnowledge(["n(?x, 1) -> One(?x)", "f(?x, true) -> Yes(?x)"],
                      classes={"One", "Yes"}, data_properties={"n": "integer", "f": "boolean"})
    out = infer(k, [("n", "i", 1), ("f", "i", True), ("n", "j", 0), ("f", "j", False)])
    assert ("One", "i") in out and ("Yes", "i") in out
    assert ("One", "j") not in out and ("Yes", "j") not in out
    values = {f[0]: f[2] for f in out if len(f) == 3 and f[1] == "i"}
    assert type(values["f"]) is bool and type(values["n"]) is int


def test_untyped_values_compare_only_within_a_kind():
    # a data property with no declared range carries an int, a string and a boolean
    k = FakeKnowledge(["v(?x, ?a), v(?y, ?b), lessThan(?a, ?b) -> before(?x, ?y)",
                       "v(?x, ?a), greaterThan(?a, 5) -> Big(?x)"],
                      classes={"Big"}, object_properties={"before"}, data_properties={"v": "any"})
    out = infer(k, [("v", "i", 7), ("v", "j", 3), ("v", "s", "z"), ("v", "t", "a"), ("v", "b", True)])
    assert {f for f in out if f[0] in ("before", "Big")} == {("before", "j", "i"), ("before", "t", "s"),
                                                              ("Big", "i")}


def test_rules_that_pellet_never_fires_are_compiled_as_such():
    rules = ["a(?x, ?a), add(?a, ?y, 1) -> b(?x, ?y)",  # Pellet binds only the first argument
             "A(?x) -> B(?y)",                            # unbound head variable
             "A(?x) -> ",                                 # empty head
             "a(?x, ?a) -> B(?x)"]
    k = FakeKnowledge(rules, classes={"A", "B"}, data_properties=data("a", "b"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program = compile_program(k)
    assert len([w for w in caught if "never fires" in str(w.message)]) == 3
    assert "never fires" in program
    assert infer(k, [("A", "i"), ("a", "i", 1)]) == {("A", "i"), ("a", "i", 1), ("B", "i")}


@pytest.mark.parametrize("text, message", [
    ("A(?x), Unknown(?x) -> B(?x)", "Unknown"),
    ("a(?x, ?a), divide(?r, ?a, 2) -> a(?x, ?r)", "divide"),
    ("a(?x, ?a), pow(?r, ?a, 2) -> a(?x, ?r)", "pow"),
    ("a(?x, 1.5) -> B(?x)", "decimal"),
    ("A(?x), sameAs(?x, ?y) -> B(?x)", "sameAs"),
    ("A(?x) -> add(?x, 1, 2)", "head"),
    ("A(5) -> B(5)", "literal"),
    ("A(?x) -> p(?x, 5)", "literal"),
    ("A(?x) -> a(?x, ind)", "individual"),
    ("A(?x) -> p(?x, nobody)", "nobody"),
])
def test_untranslatable_rules_raise_naming_the_rule(text, message):
    k = FakeKnowledge(["A(?x) -> B(?x)", text], classes={"A", "B"}, object_properties={"p"},
                      data_properties=data("a"), individuals={"ind": set()})
    with pytest.raises(ReasonerError, match=r"test\.swrl#2 \(test\.swrl:20\).*" + message):
        compile_program(k)


# ---------------------------------------------------------------------------------------------
# TBox axioms

def test_hierarchy_properties_domain_range_and_tbox_individuals():
    k = FakeKnowledge(
        ["Low(?x), partOf(?x, ?y) -> linked(?y, ?x)"],
        classes={"Top", "Mid", "Low", "Dom", "Rng", "Player", "Phase"},
        object_properties={"hasPart", "partOf", "friend", "linked", "related", "next", "prev"},
        data_properties={"weight": "integer", "heavy": "integer"},
        subclass={"Mid": {"Top"}, "Low": {"Mid"}},
        subproperty={"linked": {"related"}, "heavy": {"weight"}},
        inverse={"partOf": "hasPart", "prev": "next"},
        symmetric={"friend"},
        domain={"hasPart": {"Dom"}, "weight": {"Mid"}, "friend": {"Player"}},
        range={"hasPart": {"Rng"}},
        individuals={"one": {"Phase"}, "two": {"Phase"}},
        tbox_facts=[("next", "one", "two")],
    )
    out = infer(k, [("Low", "a"), ("partOf", "a", "b"), ("friend", "c", "d"), ("heavy", "e", 5)])
    expected = {
        ("Low", "a"), ("Mid", "a"), ("Top", "a"), ("partOf", "a", "b"), ("hasPart", "b", "a"),
        ("Dom", "b"), ("Rng", "a"), ("linked", "b", "a"), ("related", "b", "a"),
        ("friend", "c", "d"), ("friend", "d", "c"), ("Player", "c"), ("Player", "d"),
        ("heavy", "e", 5), ("weight", "e", 5), ("Mid", "e"), ("Top", "e"),
        ("Phase", "one"), ("Phase", "two"), ("next", "one", "two"), ("prev", "two", "one"),
    }
    assert_same(out, expected)


DEF_VOCAB = dict(
    classes={"Zone", "Player", "TurnPlayer", "ActiveZone", "Monster", "ActiveMonsterZone", "Marked",
             "HasPlayerOwner", "Flag"},
    object_properties={"onSideOf"},
    subclass={"TurnPlayer": {"Player"}, "Marked": {"ActiveZone"}},
    functional={"onSideOf"},
    domain={"onSideOf": {"Zone"}},
    definitions={
        "ActiveZone": [("class", "Zone"), ("some", "onSideOf", "TurnPlayer")],
        "ActiveMonsterZone": [("class", "Monster"), ("class", "ActiveZone")],
        "HasPlayerOwner": [("some", "onSideOf", "Player")],
    },
)


def test_definitions_both_directions():
    k = FakeKnowledge(["Flag(?z) -> ActiveZone(?z)"], **DEF_VOCAB)
    out = infer(k, [("Zone", "z1"), ("Monster", "z1"), ("onSideOf", "z1", "pA"), ("TurnPlayer", "pA"),
                    ("Zone", "z2"), ("onSideOf", "z2", "pB"), ("Player", "pB"),
                    ("Marked", "z3"), ("Flag", "z4"), ("onSideOf", "z4", "pC")])
    classes = {(c, x) for c, x, *rest in out if not rest}
    # members of every conjunct are members of the defined class (and of those it implies)
    assert {("ActiveZone", "z1"), ("ActiveMonsterZone", "z1"), ("HasPlayerOwner", "z1")} <= classes
    assert ("ActiveZone", "z2") not in classes and ("HasPlayerOwner", "z2") in classes
    # a member of a defined class is in its named conjuncts, and its anonymous owner is a TurnPlayer,
    # hence a Player: z3 is HasPlayerOwner without any named owner
    assert {("ActiveZone", "z3"), ("Zone", "z3"), ("HasPlayerOwner", "z3")} <= classes
    # onSideOf is functional: the one named owner of an ActiveZone is the TurnPlayer
    assert {("ActiveZone", "z4"), ("TurnPlayer", "pC"), ("Player", "pC")} <= classes


def test_functional_property_merges_individuals_as_pellet_does():
    k = FakeKnowledge(["K1(?x) -> rel(?x, ?x)"], classes={"K1", "K2"}, object_properties={"fo", "rel"},
                      data_properties=data("v"), functional={"fo"})
    out = infer(k, [("fo", "i", "o1"), ("fo", "i", "o2"), ("K1", "o1"), ("K2", "o2"), ("v", "o1", 4)])
    assert {("K1", "o2"), ("K2", "o1"), ("v", "o2", 4), ("fo", "i", "o1"), ("fo", "i", "o2"),
            ("rel", "o1", "o2"), ("rel", "o2", "o1"), ("rel", "o2", "o2")} <= out


def test_inconsistent_states_raise():
    k = FakeKnowledge([], data_properties={"n": "integer", "f": "integer"}, functional={"f"})
    with pytest.raises(ReasonerError, match="inconsistent"):
        infer(k, [("f", "i", 1), ("f", "i", 2)])
    with pytest.raises(ReasonerError, match="inconsistent"):
        infer(k, [("n", "i", True)])


def test_unknown_terms_in_the_facts_raise():
    k = FakeKnowledge([], classes={"A"})
    with pytest.raises(ReasonerError, match="not a class"):
        infer(k, [("B", "i")])
    with pytest.raises(ReasonerError, match="not a property"):
        infer(k, [("p", "i", "j")])


# ---------------------------------------------------------------------------------------------
# the real rulesets

def _state(ruleset: str, seed: int, pending: bool = False) -> dict:
    """A random but valid state: on each side 3 monsters, 2 spells/traps, hand 5, graveyard 4, deck 10
    (and in the official ruleset banished 2, extra deck 3, a Field Spell): about 40 cards in the ABox."""
    from ygo_onto.cards import catalog
    from ygo_onto.state import FORMAT, normalize

    rnd = random.Random(seed)
    cat = catalog(ruleset)
    main = [c for c in cat if not c.extra_deck]
    monsters = [c for c in main if c.is_monster]
    field_spells = [c for c in main if c.card_type == "spell" and c.subtype == "field"]
    spells_traps = [c for c in main if not c.is_monster and c not in field_spells]
    extra = [c for c in cat if c.extra_deck]
    players = {}
    for p in "AB":
        zones = [None] * 5
        for i in rnd.sample(range(5), 3):
            zones[i] = {"card": rnd.choice(monsters).name, "summoned_this_turn": rnd.random() < .5,
                        "position": rnd.choice(["attack", "defense", "face_down_defense"]),
                        "attacks_declared": rnd.randint(0, 1), "atk_modifier": rnd.choice([0, 300, -200])}
        st = [None] * 5
        for i in rnd.sample(range(5), 2):
            st[i] = {"card": rnd.choice(spells_traps).name, "position": rnd.choice(["face_up", "face_down"]),
                     "set_this_turn": rnd.random() < .5}
        side = {"life_points": rnd.choice([8000, 4300, 100]), "deck": [rnd.choice(main).name for _ in range(10)],
                "hand": [rnd.choice(main).name for _ in range(5)], "graveyard": [rnd.choice(main).name for _ in range(4)],
                "monster_zones": zones, "spell_trap_zones": st, "normal_summon_used": rnd.random() < .5}
        if ruleset == "official":
            side["banished"] = [rnd.choice(main).name for _ in range(2)]
            side["extra_deck"] = [rnd.choice(extra).name for _ in range(3)] if extra else []
            if field_spells:
                # one face-up Field Spell on the field (rulebook pp. 3 and 18): B's is Set
                side["field_zone"] = {"card": rnd.choice(field_spells).name, "position": "face_up" if p == "A" else "face_down"}
        players[p] = side
    phases = ["draw", "main1", "battle", "end"] if ruleset == "official" else ["main1", "battle", "main2"]
    raw = {"format": FORMAT, "ruleset": ruleset, "players": players, "turn": 3, "phase": rnd.choice(phases)}
    if pending:  # a Tribute Summon the rules open: a Level 5+ monster that may be Normal Summoned, in a Main Phase
        raw["phase"] = "main1"
        players["A"]["hand"][0] = next(c.name for c in monsters if (c.level or 0) >= 5 and not c.special_summon_only
                                       and c.subtype in ("normal", "effect"))
        own = next(i for i, z in enumerate(players["A"]["monster_zones"]) if z)
        raw["pending"] = {"action": {"type": "tribute_summon", "player": "A",
                                     "from": {"player": "A", "area": "hand", "index": 0}},
                          "purpose": "tribute", "needed": 2,
                          "chosen": [{"player": "A", "area": "monster_zones", "index": own}]}
    return normalize(raw)


def _refs(state, player, area):
    zones = state["players"][player][area]
    return [{"player": player, "area": area, "index": i} for i, z in enumerate(zones) if z]


def _cases():
    out = []
    for ruleset in ("official", "simplified"):
        out.append((ruleset, 0, False, None))
        out.append((ruleset, 1, True, None))
        out.append((ruleset, 2, False, "battle"))
        out.append((ruleset, 3, False, "action"))
    return out


def _facts(ruleset, seed, pending, transient):
    from ygo_onto.abox import state_facts

    state = _state(ruleset, seed, pending)
    mine, theirs = _refs(state, "A", "monster_zones"), _refs(state, "B", "monster_zones")
    if transient == "battle":
        transient = {"battle": {"attacker": mine[0], "target": theirs[0]}, "turn_started": True}
    elif transient == "action":
        transient = {"action": {"type": "attack", "player": "A", "from": mine[0], "target_ref": theirs[1]}}
    return state_facts(state, transient=transient)


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_real_rulesets_compile(ruleset):
    k = knowledge(ruleset)
    program = compile_program(k)
    for rule in reasoned_rules(k):  # (the rules run for the catalog: knowledge.reasoned_rules)
        assert rule.name in program


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_real_state_closure_properties(ruleset):
    """Without Pellet: every asserted fact is returned, with every named superclass."""
    k = knowledge(ruleset)
    v = k.vocabulary
    facts = _facts(ruleset, 0, False, None)
    out = get("fast").infer(k, facts)
    assert typed(facts) <= typed(out)
    for f in facts:
        if len(f) == 2:
            assert {(c, f[1]) for c in v.ancestors(f[0])} <= out
    for ind, classes in v.individuals.items():
        assert {(c, ind) for c in classes} <= out


def _pellet_readback(value):
    """Two artefacts of reading Pellet's answers back through owlready2 and rdflib, which are not
    facts: a computed integer that Pellet holds as an xsd:decimal literal node comes back as a float
    (3.0), and a string literal of a rule head comes back as rdflib Literal(..., rdf:PlainLiteral)."""
    from rdflib import Literal

    if isinstance(value, Literal):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@pytest.mark.pellet
@pytest.mark.parametrize("ruleset, seed, pending, transient", _cases())
def test_fast_equals_pellet(ruleset, seed, pending, transient):
    k = knowledge(ruleset)
    facts = _facts(ruleset, seed, pending, transient)
    got = get("fast").infer(k, facts)
    expected = get("pellet").infer(k, facts)
    expected = {tuple(_pellet_readback(x) for x in f) for f in expected}
    only_fast, only_pellet = typed(got) - typed(expected), typed(expected) - typed(got)
    assert not only_fast and not only_pellet, (
        f"fast and pellet differ ({len(only_fast)} only in fast, {len(only_pellet)} only in pellet)\n"
        + "\n".join(f"  fast only:   {f}" for f in sorted(only_fast, key=repr))
        + "\n" + "\n".join(f"  pellet only: {f}" for f in sorted(only_pellet, key=repr)))
    assert got == expected


# ---------------------------------------------------------------------------------------------
# the evaluator: the program's model computed in Python, as clingo computes it

def _clingo_atoms(program: str) -> set[tuple]:
    """Every atom of the model clingo finds, as evaluator values ((name, arity), args)."""
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    with ctl.solve(yield_=True) as handle:
        symbols = next(iter(handle)).symbols(atoms=True)
    return {((s.name, len(s.arguments)), tuple(fast._any_value(a) for a in s.arguments)) for s in symbols}


def _evaluator_atoms(program: str, facts=None) -> set[tuple]:
    ev = fast._Evaluator(program)
    with ev.lock:
        ev.run(facts or {})
        return {(key, args) for key, rel in ev.model().items() for args in rel}


TERMS_PROGRAM = r"""
n(7). n(-7). n(2). n(-2). n(0). n(2147483647). m(-2147483648). m(2147483647). m(-1). m(2).
v(1). v("a"). v(b). v(s("x")). v(s("y")). v(s(1)). v(true). v(false). v(-5). v(f(1,2)). v("").
sum(X,Y,Z) :- n(X), n(Y), Z = X+Y.
dif(X,Y,Z) :- n(X), n(Y), Z = X-Y.
prod(X,Y,Z) :- n(X), n(Y), Z = X*Y.
quot(X,Y,Z) :- n(X), n(Y), Z = X/Y.
rem(X,Y,Z) :- n(X), n(Y), Z = X\Y.
wrap(X,Y,S,D,P) :- m(X), m(Y), S = X+Y, D = X-Y, P = X*Y.
neg(X,Z) :- n(X), Z = -X.
neg(X,Z) :- m(X), Z = -X.
abs(X,Z) :- m(X), Z = |X|.
abs(X,Z) :- v(X), Z = |X|.
plus1(X,Z) :- v(X), Z = X+1.
int(X) :- v(X), X+0=X.
notint(X) :- v(X), X+0!=X.
str(X,S) :- v(X), X=s(S).
isstr(X) :- v(X), X=s(_).
lt(X,Y) :- v(X), v(Y), X<Y.
le(X,Y) :- v(X), v(Y), X<=Y.
ge(X,Y) :- v(X), v(Y), X>=Y.
gt(X,Y) :- v(X), v(Y), X>Y.
eq(X,Y) :- v(X), v(Y), X=Y.
ne(X,Y) :- v(X), v(Y), X!=Y.
pair(X,Y) :- v(X), v(Y), X!=Y, lt(X,Y).
same(X) :- pair(X,X).
twice(X) :- v(X), v(X), X=X.
kind(X,K) :- v(X), X=s(K), K!=1.
first(A) :- v(f(A,_)).
r_1 :- n(7), n(0).
r_2 :- n(8).
hi(1) :- 1 < 2.
lo(1) :- 2 < 1.
x(X) :- X = 3+4.
y(Y) :- x(X), Y = (X*2)\5 + |-3|.
"""


def test_evaluator_terms_and_comparisons_are_clingos():
    """Arithmetic (32-bit, truncating, undefined on non-integers and on division by zero), the
    order of terms of different kinds, matching of function terms, anonymous variables, atoms
    without arguments, rules without atoms: the same atoms as clingo's model."""
    assert _evaluator_atoms(TERMS_PROGRAM) == _clingo_atoms(TERMS_PROGRAM)


def test_evaluator_reports_what_it_does_not_reproduce():
    with pytest.raises(fast._NotSupported):
        fast._Evaluator("p(1). q(X) :- p(X), not r(X).")
    with pytest.raises(fast._NotSupported):
        fast._Evaluator("p(1). #show X : p(X).")
    with pytest.raises(fast._NotSupported):
        fast._Evaluator("p(1;2).")
    ev = fast._Evaluator("p(a). q(Y) :- p(X), Y = -X.")  # clingo's -a: a negative function term
    with pytest.raises(fast._NotSupported), ev.lock:
        ev.run({})


@pytest.mark.filterwarnings("ignore:fast.*never fires")
@pytest.mark.parametrize("program", ["arith", "official", "simplified", "terms"])
def test_program_reader_agrees_with_clingos_parser(program):
    """The evaluators' reader of the compiled text gives the rules clingo's AST gives."""
    if program == "terms":
        texts = (TERMS_PROGRAM,)
    else:
        comp = fast.compiled(FakeKnowledge(ARITH_RULES, **ARITH_VOCAB) if program == "arith" else knowledge(program))
        texts = (comp.program, comp.program_without_eq)
    for text in texts:
        assert fast.parse_program(text) == _clingo_rules(text)


def _clingo_rules(program: str):
    """The rules of a program as parse_program gives them, read from clingo's AST (the oracle of
    parse_program); raises _NotSupported on anything but the positive normal rules, #show directives
    and comments the compiler writes."""
    import clingo
    from clingo import ast

    from ygo_onto.reasoning.fast.evaluator import _HELPERS, _NotSupported, _value

    T = ast.ASTType
    binary = {ast.BinaryOperator.Plus: "_b_add", ast.BinaryOperator.Minus: "_b_sub",
              ast.BinaryOperator.Multiplication: "_b_mul", ast.BinaryOperator.Division: "_b_div",
              ast.BinaryOperator.Modulo: "_b_mod"}
    unary = {ast.UnaryOperator.Minus: "_b_neg", ast.UnaryOperator.Absolute: "_b_abs"}
    compare = {ast.ComparisonOperator.Equal: "=", ast.ComparisonOperator.NotEqual: "!=",
               ast.ComparisonOperator.LessThan: "<", ast.ComparisonOperator.LessEqual: "<=",
               ast.ComparisonOperator.GreaterThan: ">", ast.ComparisonOperator.GreaterEqual: ">="}
    anonymous = 0

    def term(x):
        nonlocal anonymous
        t = x.ast_type
        if t == T.Variable:
            if x.name == "_":
                anonymous += 1
                return ("v", f"#{anonymous}")  # never a clingo variable's name
            return ("v", x.name)
        if t == T.SymbolicTerm:
            return ("c", _value(x.symbol))
        if t == T.Function and not x.external and x.name:
            args = [term(a) for a in x.arguments]
            if all(a[0] == "c" for a in args):
                return ("c", (x.name, *(a[1] for a in args)))
            return ("f", x.name, args)
        if t == T.BinaryOperation and x.operator_type in binary:
            return operation(binary[x.operator_type], [term(x.left), term(x.right)])
        if t == T.UnaryOperation and x.operator_type in unary:
            return operation(unary[x.operator_type], [term(x.argument)])
        raise _NotSupported(f"the term {x}")

    def operation(helper, args):
        if all(a[0] == "c" for a in args):  # a constant such as -1
            value = _HELPERS[helper](*(a[1] for a in args))
            if value is None:
                raise _NotSupported("an undefined constant term")
            return ("c", value)
        return ("op", helper, args)

    def atom(lit):
        if lit.ast_type != T.Literal or lit.sign != ast.Sign.NoSign:
            raise _NotSupported(f"the literal {lit}")
        a = lit.atom
        if a.ast_type == T.SymbolicAtom:
            s = a.symbol
            if s.ast_type == T.Function and not s.external and s.name:
                args = [term(x) for x in s.arguments]
                return ("atom", (s.name, len(args)), args)
            if s.ast_type == T.SymbolicTerm and s.symbol.type == clingo.SymbolType.Function and s.symbol.positive \
                    and s.symbol.name:
                args = [("c", _value(x)) for x in s.symbol.arguments]
                return ("atom", (s.symbol.name, len(args)), args)
        elif a.ast_type == T.Comparison and len(a.guards) == 1:
            return ("cmp", compare[a.guards[0].comparison], term(a.term), term(a.guards[0].term))
        raise _NotSupported(f"the literal {lit}")

    rules = []

    def statement(s):
        t = s.ast_type
        if t == T.Rule:
            head = atom(s.head)
            if head[0] != "atom":
                raise _NotSupported(f"the head {s.head}")
            rules.append((head, [atom(b) for b in s.body]))
        elif t == T.Program:
            if s.name != "base" or len(s.parameters):
                raise _NotSupported(f"the program part {s.name}")
        elif t not in (T.ShowSignature, T.Comment):
            raise _NotSupported(f"the statement {s}")

    ast.parse_string(program, statement)
    return rules


@pytest.mark.filterwarnings("ignore:fast.*never fires")
def test_evaluator_equals_clingo_on_the_unit_programs():
    k = FakeKnowledge(ARITH_RULES, **ARITH_VOCAB)
    facts = [("Thing2", "x"), ("a", "x", 7), ("b", "x", -2), ("flag", "x", True), ("name", "x", "seven"),
             ("a", "y", -2147483648), ("b", "y", 3), ("a", "z", 2147483647), ("b", "z", 2), ("flag", "z", False),
             ("name", "z", "abc"), ("a", "w", 1), ("b", "w", 0)]
    assert_same(infer(k, facts), fast.infer_facts(k, facts, evaluator=False))
    # the equality section (a functional property with two values)
    k = FakeKnowledge(["K1(?x) -> rel(?x, ?x)"], classes={"K1", "K2"}, object_properties={"fo", "rel"},
                      data_properties=data("v"), functional={"fo"})
    facts = [("fo", "i", "o1"), ("fo", "i", "o2"), ("K1", "o1"), ("K2", "o2"), ("v", "o1", 4)]
    assert_same(infer(k, facts), fast.infer_facts(k, facts, evaluator=False))


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_evaluator_equals_clingo_on_real_states(ruleset):
    """The same facts from the evaluator and from clingo, one state after the other in one
    evaluator (nothing of a state stays for the next), then the first state again."""
    k = knowledge(ruleset)
    cases = [_facts(ruleset, *case[1:]) for case in _cases() if case[0] == ruleset]
    first = infer(k, cases[0])
    for facts in cases:
        assert_same(infer(k, facts), fast.infer_facts(k, facts, evaluator=False))
    assert_same(infer(k, cases[0]), first)


def test_a_run_that_stopped_leaves_nothing_behind():
    k = FakeKnowledge(["a(?x, ?a), unaryMinus(?r, ?a) -> neg(?x, ?r)", "a(?x, ?a) -> A(?x)"],
                      classes={"A"}, data_properties={"a": "any", "neg": "any"})
    # -true is clingo's negative function term: the evaluator stops, clingo answers (reading it as true)
    out = infer(k, [("a", "i", True), ("a", "j", 3)])
    assert_same(out, fast.infer_facts(k, [("a", "i", True), ("a", "j", 3)], evaluator=False))
    assert ("neg", "i", True) in out and ("neg", "j", -3) in out
    assert_same(infer(k, [("a", "k", 5)]), {("a", "k", 5), ("A", "k"), ("neg", "k", -5)})


def test_a_boolean_is_never_read_as_the_integer_of_an_earlier_call():
    """The facts of a call are remembered for the next (True == 1 in Python, and they hash alike)."""
    k = FakeKnowledge(["f(?x, true) -> Yes(?x)", "n(?x, 1) -> One(?x)"], classes={"Yes", "One"},
                      data_properties={"f": "boolean", "n": "integer"})
    assert ("Yes", "i") in infer(k, [("f", "i", True)])
    with pytest.raises(ReasonerError, match="inconsistent"):
        infer(k, [("f", "i", 1)])
    assert ("One", "i") in infer(k, [("n", "i", 1)])
    with pytest.raises(ReasonerError, match="inconsistent"):
        infer(k, [("n", "i", True)])
    assert infer(k, [["f", "i", True]]) == {("f", "i", True), ("Yes", "i")}  # a list is a fact too


# ---------------------------------------------------------------------------------------------
# runs that go on from the previous model (their facts add to the previous run's)

def _message(k, facts, evaluator=True) -> str:
    with pytest.raises(ReasonerError) as info:
        fast.infer_facts(k, facts, evaluator=evaluator)
    return str(info.value)


def test_a_run_that_adds_facts_goes_on_from_the_previous_model():
    k = FakeKnowledge(["K1(?x), rel(?x, ?y) -> K2(?y)", "K2(?x), rel(?x, ?y) -> K1(?y)",
                       "K1(?x), v(?x, ?n), add(?m, ?n, 1) -> w(?x, ?m)"],
                      classes={"K1", "K2"}, object_properties={"rel", "fo"}, data_properties=data("v", "w"),
                      functional={"fo"})
    base = [("K1", "a"), ("rel", "a", "b"), ("v", "a", 1), ("fo", "i", "a")]
    steps = [base, base + [("rel", "b", "c"), ("v", "c", 5)], base + [("rel", "b", "c"), ("v", "c", 5), ("K2", "d")],
             base,  # fewer facts: from the program's facts
             base + [("fo", "i", "b")]]  # more facts that merge individuals
    extended = []
    for facts in steps:
        assert_same(infer(k, facts), fast.infer_facts(k, facts, evaluator=False))
        extended.append(fast.compiled(k).evaluators[0].added_model() is not None)
    assert extended == [False, True, True, False, True]


def test_a_run_that_adds_facts_finds_the_inconsistency_of_the_whole_model():
    k = FakeKnowledge(["K1(?x) -> f(?x, 3)"], classes={"K1"}, data_properties={"f": "integer", "n": "integer"},
                      functional={"f"})
    for first, more in (([("f", "i", 1)], [("f", "i", 2)]), ([("f", "i", 1)], [("K1", "i")]),
                        ([("K1", "j")], [("f", "j", 4), ("n", "i", True)])):
        infer(k, first)
        assert _message(k, first + more) == _message(k, first + more, evaluator=False)
        infer(k, first)  # the failed run is not a model to go on from
        assert_same(infer(k, first), fast.infer_facts(k, first, evaluator=False))


def test_a_run_that_adds_facts_finds_disjoint_classes():
    k = knowledge("official")
    group = sorted(min(fast.compiled(k).disjoint, key=sorted))
    infer(k, [(group[0], "x")])
    assert _message(k, [(group[0], "x"), (group[1], "x")]) == \
        _message(k, [(group[0], "x"), (group[1], "x")], evaluator=False)


def test_a_run_that_removes_and_adds_facts_finds_what_the_whole_model_would():
    # a next state (facts removed and added): the checks look at the relations the added atoms reach
    # (infer._checked); a functional value, a disjoint class or a merge among them is found as from scratch
    k = FakeKnowledge(["K1(?x) -> f(?x, 3)", "K3(?x) -> K2(?x)"], classes={"K1", "K2", "K3"},
                      object_properties={"fo"}, data_properties={"f": "integer", "n": "integer"},
                      functional={"f", "fo"})
    fast.compiled(k).disjoint = [frozenset({"K1", "K2"})]
    first = [("n", "j", 1), ("f", "i", 1), ("K2", "m"), ("fo", "a", "b")]  # (the next states drop the first)
    for more in ([("f", "i", 2)], [("K1", "i")], [("K3", "m2"), ("K1", "m2")], [("K1", "m")],
                 [("n", "k", True)]):
        infer(k, first)
        facts = first[1:] + more
        assert _message(k, facts) == _message(k, facts, evaluator=False)
        infer(k, first)  # the failed run is not a model to go on from
        assert_same(infer(k, first), fast.infer_facts(k, first, evaluator=False))
    infer(k, first)
    merged = first[1:] + [("fo", "a", "c"), ("K2", "c")]
    assert_same(infer(k, merged), fast.infer_facts(k, merged, evaluator=False))
    assert ("fo", "a", "c") in infer(k, merged) and ("K2", "b") in infer(k, merged)


def test_the_checks_of_a_next_state_read_only_its_added_atoms_when_no_check_can_fail():
    from ygo_onto.reasoning.fast.infer import _checked

    k = FakeKnowledge([], classes={"K1", "K2"}, object_properties={"fo"}, data_properties={"f": "integer"},
                      functional={"f", "fo"})
    comp = fast.compiled(k)
    comp.disjoint = [frozenset({"K1", "K2"})]
    f, k1, k2, fo = (fast.ppred("f"), 2), (fast.cpred("K1"), 1), (fast.cpred("K2"), 1), (fast.ppred("fo"), 2)

    class Model:  # (what _checked asks of an evaluator: the atoms of a relation)
        def __init__(self, atoms):
            self.atoms = atoms.get

    model = {f: {("i", 1), ("j", 1)}, k1: {("a",)}, k2: {("b",)}, fo: {("x", "y"), ("z", "y")}}
    for added in ({f: {("j", 1)}}, {k1: {("a",)}}, {fo: {("z", "y")}}):
        assert _checked(comp, k, Model(model), added, True) == added
    two_values = {**model, f: {("i", 1), ("i", 2)}}
    both = {**model, k2: {("b",), ("a",)}}
    merging = {**model, fo: {("x", "y"), ("x", "w")}}
    for got, added in ((two_values, {f: {("i", 2)}}), (both, {k2: {("a",)}}), (merging, {fo: {("x", "w")}})):
        assert _checked(comp, k, Model(got), added, True) == {**added, **{key: got[key] for key in added}} | (
            {k1: got[k1], k2: got[k2]} if k2 in added else {})
    assert _checked(comp, k, Model(merging), {fo: {("x", "w")}}, False) == {fo: {("x", "w")}}  # (no merge check)


def test_the_abox_of_more_facts_reads_only_the_new_ones_and_never_a_changed_list():
    k = FakeKnowledge([], classes={"A", "B"}, data_properties=data("n", rng="any"))
    comp = fast.compiled(k)
    facts = [("A", "i"), ("n", "i", 1)]
    for call in (facts, facts + [("B", "i")], facts + [("B", "i"), ("n", "j", 2)]):
        assert fast._abox(comp, k, call) == fast._read_facts(comp, k, call)[0]
    fast._abox(comp, k, facts)
    facts[1] = ("n", "i", True)  # the caller's list changed after the call: read again
    assert fast._abox(comp, k, facts) == fast._read_facts(comp, k, facts)[0]
    assert_same(infer(k, facts + [["B", "i"]]), {("A", "i"), ("n", "i", True), ("B", "i")})


# ---------------------------------------------------------------------------------------------
# going on from the previous model when facts were removed (evaluator._Evaluator._update: delete and
# rederive)

def _models(program: str, inputs: list[dict]) -> list[tuple[dict, ...]]:
    """The model of each input by an evaluator that goes on from its previous model between inputs
    (deleting and rederiving), and by one that starts every run from the program's facts (its previous
    input forgotten)."""
    from ygo_onto.reasoning.fast.evaluator import _Evaluator

    dred, scratch = _Evaluator(program), _Evaluator(program)
    out = []
    for facts in inputs:
        dred.run(facts)
        scratch._input = None
        scratch.run(facts)
        out.append(tuple({key: frozenset(v) for key, v in ev.model().items() if v} for ev in (dred, scratch)))
    return out


def test_going_on_from_a_model_keeps_what_another_derivation_supports_and_drops_a_cycle():
    program = ("k1(X) :- a(X). k2(Y) :- k1(X), rel(X,Y). k1(Y) :- k2(X), rel(X,Y). "
               "w(X,M) :- k1(X), v(X,N), M=N+1. both(X) :- k1(X), k2(X).")
    base = {("a", 1): {("x",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}}
    steps = [base,
             {**base, ("a", 1): {("z",)}},  # x loses its support; y and z keep theirs through z
             {**base, ("a", 1): set()},  # the cycle y <-> z loses all support: gone
             {**base, ("rel", 2): {("x", "y")}, ("b", 1): {("q",)}},  # a predicate the program does not use
             base]
    for dred, scratch in _models(program, [{k: v for k, v in s.items() if v} for s in steps]):
        assert dred == scratch


def test_deleting_a_derivation_of_an_input_fact_keeps_it_and_what_it_supports():
    # c(x) is an input fact and also derived from p(x, y): losing p(x, y) must not take c(x), or
    # d(x) that c(x) supports, out of the model (dred does not over-delete them at all)
    program = "c(X) :- p(X,Y). d(X) :- c(X), e(X). f(Y) :- p(X,Y). c(Y) :- f(Y), e(Y)."
    base = {("c", 1): {("x",)}, ("p", 2): {("x", "y")}, ("e", 1): {("x",), ("y",)}}
    steps = [base,
             {**base, ("p", 2): set()},  # c(x) stays (input), d(x) with it; c(y), f(y) go
             {**base, ("c", 1): set()},  # c(x) stays (derived from p(x, y))
             {("e", 1): {("x",)}},  # everything but e goes
             base]
    for dred, scratch in _models(program, [{k: v for k, v in s.items() if v} for s in steps]):
        assert dred == scratch
    assert _models(program, [base, {**base, ("p", 2): set()}])[1][0][("d", 1)] == {("x",)}


def test_going_on_from_a_model_gives_the_model_from_scratch_on_every_input_of_a_duel(monkeypatch):
    from ygo_onto.duel import new_duel, play_duel
    from ygo_onto.reasoning.fast import infer as fast_infer
    from ygo_onto.reasoning.fast.facts import _abox

    for ruleset, seed, cap in (("official", 1, 80), ("simplified", 2, 60)):
        inputs = []
        real = fast_infer.infer_facts

        def record(k, facts, evaluator=True):
            inputs.append(list(facts))
            return real(k, facts, evaluator)

        monkeypatch.setattr(fast, "infer_facts", record)
        for _ in play_duel(new_duel(ruleset, seed), ("random", "random"), seed=seed, max_actions=cap):
            pass
        monkeypatch.undo()
        k = knowledge(ruleset)
        comp = fast.compiled(k)
        models = _models(comp.program_without_eq, [_abox(comp, k, facts) for facts in inputs])
        assert len(models) > cap
        assert all(dred == scratch for dred, scratch in models)
        # and the facts read back from them: going on from the previous reading, and read whole after each
        # run from the program's facts (the evaluator's previous input and reading forgotten before it)
        ev, read = fast_infer._evaluator(comp, False), []

        def forget():  # (the next run from the program's facts, its model read whole)
            if isinstance(ev, native.NativeEvaluator):
                ev._forget()
            ev._input, ev.reading = None, None

        for scratch in (False, True):
            forget()
            read.append([])
            for facts in inputs:
                if scratch:
                    forget()
                got = fast.infer_facts(k, facts)
                read[-1].append(frozenset(got))
                # the index by name that the reading keeps up to date: the same facts, each under its name
                assert set().union(*got.groups.values()) == got
                assert all(f[0] == name for name, group in got.groups.items() for f in group)
        assert read[0] == read[1]


@pytest.mark.parametrize("c_reader", [True, False])
def test_a_change_read_in_one_pass_is_what_the_steps_read(monkeypatch, c_reader):
    """infer._read_change (a run's change read in one pass) gives, on every run of duels that goes on
    from a reading, the facts of the steps it stands for: _checked, _read_model, _groups_after of _facts_of."""
    from ygo_onto.duel import new_duel, play_duel
    from ygo_onto.reasoning import Facts
    from ygo_onto.reasoning.fast import infer as fast_infer
    from ygo_onto.reasoning.fast.facts import _read_model

    real, read = fast_infer._read_change, []

    def both(comp, k, ev, base, removed, added, check_merges):
        groups = real(comp, k, ev, base, removed, added, check_merges)
        merges, facts = _read_model(k, comp, check_merges, fast_infer._checked(comp, k, ev, added, check_merges))
        assert groups is None or not merges
        if groups is not None:
            steps = fast_infer._groups_after(base, facts.groups, fast_infer._facts_of(comp, k, removed or {}))
            assert typed(Facts(groups)) == typed(Facts(steps))
            read.append(bool(removed))
        return groups

    monkeypatch.setattr(fast_infer, "_read_change", both)
    if not c_reader:  # (the Python code's reading, as where reader.c is not built; else reader.c's)
        monkeypatch.setattr(native, "reader", lambda: None)
    for ruleset, seed in (("official", 3), ("simplified", 3)):
        for _ in play_duel(new_duel(ruleset, seed), ("random", "random"), seed=seed, max_actions=60):
            pass
    assert read.count(True) > 50 and read.count(False) > 50  # (deleted and rederived; only added)


@pytest.mark.parametrize("c_reader", [True, False])
def test_a_large_change_read_as_columns_is_what_the_steps_read(monkeypatch, c_reader):
    """infer._read_columns (the change of a state unlike the one before, read from its columns) gives
    what _read_change gives on the same change as rows, and, where it reads it, the facts of the steps
    it stands for: _checked, _read_model, _groups_after of _facts_of.  The bench's states, each reasoned
    about after each other one (as `ygo-onto bench` measures a fresh state)."""
    from itertools import permutations

    from ygo_onto.bench import bench_states
    from ygo_onto.game import GameState
    from ygo_onto.reasoning import Facts
    from ygo_onto.reasoning.fast import infer as fast_infer
    from ygo_onto.reasoning.fast.facts import _read_model

    real, read = fast_infer._read_columns, []

    def rows(columns: dict) -> dict:
        return {key: set(zip(*cols)) if key[1] else {()} for key, cols in columns.items()}

    def both(comp, k, ev, base, removed, added, check_merges):
        groups = real(comp, k, ev, base, removed, added, check_merges)
        as_rows = fast_infer._read_change(comp, k, ev, base, rows(removed), rows(added), check_merges)
        assert (groups is None) == (as_rows is None)
        merges, facts = _read_model(k, comp, check_merges, fast_infer._checked(comp, k, ev, rows(added), check_merges))
        assert groups is None or not merges
        if groups is not None:
            assert typed(Facts(groups)) == typed(Facts(as_rows))
            steps = fast_infer._groups_after(base, facts.groups, fast_infer._facts_of(comp, k, rows(removed)))
            assert typed(Facts(groups)) == typed(Facts(steps))
            read.append(bool(removed))
        return groups

    monkeypatch.setattr(fast_infer, "_read_columns", both)
    if not c_reader:
        monkeypatch.setattr(native, "reader", lambda: None)
    states, _ = bench_states()
    for first, then in permutations(states.values(), 2):
        GameState.from_dict(first).allowed_actions("fast")
        GameState.from_dict(then).allowed_actions("fast")
    assert read  # (some of them are read from columns)


def test_the_abox_of_a_changed_state_takes_out_and_reads_only_the_changed_facts():
    k = FakeKnowledge([], classes={"A", "B"}, data_properties=data("n", rng="any"))
    comp = fast.compiled(k)
    state = [("A", f"c{i}") for i in range(12)] + [("n", "i", 1), ("n", "j", True), ("B", "c0")]
    calls = [state,
             state[:3] + state[4:] + [("B", "c3")],  # one fact out, one in: read as a change
             state[:-3] + [("n", "i", True), ("n", "j", 1), ("B", "c0")],  # equal as tuples, not as facts
             state + [("n", "k", "x")],
             [("A", "z")] + state[1:5],  # most facts changed: read in full
             [("B", "c1"), ["A", "c2"]]]  # a fact that is a list
    for call in calls:
        got = fast._abox(comp, k, call)
        assert got == fast._read_facts(comp, k, call)[0]
        assert {key: {(type(v[-1]), v) for v in vals} for key, vals in got.items()} == \
            {key: {(type(v[-1]), v) for v in vals} for key, vals in fast._read_facts(comp, k, call)[0].items()}
    fast._abox(comp, k, state)
    fast._abox(comp, k, state[1:])  # (the first change after a full read: read in full, with the sets it needs)
    before = fast._abox(comp, k, state)
    after = fast._abox(comp, k, state[:3] + state[4:] + [("B", "c3")])
    assert after[("c_A", 1)] is not before[("c_A", 1)] and after[("p_n", 2)] is before[("p_n", 2)]
