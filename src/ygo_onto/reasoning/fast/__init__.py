"""The compiled backend: the ruleset's TBox and SWRL rules as one Datalog program.

Nothing here is written per rule.  `compile_program` reads the knowledge of a ruleset (the
`Vocabulary` tables, a few axioms of the TBox graph, the rule texts) and writes an ASP
program; it is positive, so it has exactly one model, the least fixpoint of the rules.
Each `infer` computes that model with the ABox facts added and reads it back.  The model is
computed by the native evaluator (`native.py`: a generic semi-naive Datalog engine in C,
`native.c`, to which the program is data: join plans made from the parsed rules; compiled at
install by setup.py, opened with cffi), or where it is not compiled (no compiler at install) or with
YGO_FAST_EVALUATOR=python by `_Evaluator` (semi-naive evaluation of the same program in
generated Python, ~2-5 ms a mid-game state), or by clingo (grounding: ~50-150 ms) for a
program or a term neither reproduces exactly; `infer_facts(..., evaluator=False)` always asks
clingo, and the tests check that all give the same facts.  When a call's facts only add to the
previous call's (an action declared in the state just reasoned about), the evaluator goes on
from the previous model; when they also remove some (the next state of a duel), it deletes and
rederives; either way only the atoms that changed are read back.

* one predicate per class (`c_<name>/1`) and per property (`p_<name>/2`, object and data
  properties alike); individuals are strings, integers are integers, booleans the constants
  `true`/`false`, data strings `s("...")`: four disjoint kinds of terms, so a string never
  equals an individual and True never equals 1;
* the TBox axioms that yield named facts: subclass, subproperty, inverse, symmetric,
  domain, range, the TBox individuals' classes and property values, and the equivalent-class
  definitions (C == A and B and some p.D) in both directions, including what the existential
  entails when its witness is anonymous (domain of p, subsumed definitions) or is forced to be
  a named individual by a functional super-property of p;
* owl:sameAs as Pellet infers it from functional and inverse-functional object properties
  (two values of one subject): the individuals are merged, every fact of one holds of the
  other.  That part of the program only runs when such a pair exists;
* every SWRL rule, as ygo_onto.swrl parses Protégé's text syntax (the tokens of owlready2's rule
  parser): class atoms, object and data property atoms, TBox individuals and literal constants
  (integers, true/false, strings), and the swrlb builtins with an exact integer meaning:
  equal, notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual, add,
  subtract, multiply, integerDivide, mod, abs, unaryMinus, unaryPlus, booleanNot.  As in
  Pellet, an ordering holds only between two integers or two strings, and a function builtin
  only binds its first argument.  A rule Pellet accepts but never fires (a variable no atom
  binds, an empty body or head) is compiled as such, with a warning naming it.  Anything
  else (divide and pow, whose results are decimals; string, date and list builtins;
  sameAs/differentFrom atoms; data range atoms; decimal literals; unknown names) is a
  ReasonerError naming the rule.

TBox axioms outside that fragment (transitive or reflexive properties, property chains,
equivalent properties, hasValue, allValuesFrom, unions, cardinalities, subclass of a class
expression...) are a ReasonerError at compile time: the backend refuses rather than answer
differently from Pellet.

Consistency is checked after solving, so an inconsistent state raises ReasonerError as
Pellet does: disjoint classes sharing an individual, a functional data property with two
values, a data value outside its property's declared range (xsd integer, boolean, string).
Disjoint and irreflexive/asymmetric properties and differentFrom are not checked.

The result is what PelletBackend reads back (pellet.read_facts): every class membership and
property value of the named individuals, i.e. the TBox individuals and every ABox individual
that is the subject of a fact (asserted or inferred).
"""
from __future__ import annotations

from .. import register
from .clingo_backend import _any_value, _clingo_model, facts_program, solve  # noqa: F401
from .compiler import Compiled, _Compiler, check_tbox, compile_program, compiled, declared_ranges  # noqa: F401
from .evaluator import _Evaluator, _NotSupported, parse_program  # noqa: F401
from .facts import _abox, _read_facts, _read_model  # noqa: F401
from .infer import infer_facts
from .names import INT_MAX, INT_MIN, cpred, ppred  # noqa: F401
from ...swrl import Atom, RuleSyntaxError, Term, parse_rule_text, tokenize  # noqa: F401  (the one SWRL parser)


@register("fast")
class FastBackend:
    name = "fast"

    def infer(self, knowledge, facts: list[tuple]) -> set[tuple]:
        return infer_facts(knowledge, facts)
