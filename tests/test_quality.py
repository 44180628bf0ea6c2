"""Quality checks of ontology/ (the sources, edited in Protégé), ODK style: tests/quality/*-violation.sparql
are SELECT queries whose every row is a violation.  Plus, on the files themselves: the catalog
Protégé uses to resolve the ontology offline, every term a rule or a file uses is declared, the
card files import the TBox and read back as the catalog, and HermiT finds the TBox consistent.
(The TBox was first written by tools/build_tbox.py, now history: the file is the source.)
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS

REPO = Path(__file__).resolve().parent.parent
ONTOLOGY = REPO / "ontology" / "ygo-onto.owl"
CATALOG = REPO / "ontology" / "catalog-v001.xml"
CARD_FILES = {r: REPO / "ontology" / f"cards-{r}.owl" for r in ("official", "simplified", "goat")}
QUALITY = Path(__file__).resolve().parent / "quality"
QUERIES = sorted(QUALITY.glob("*-violation.sparql"))
BASE = "http://ygo-onto.org/ontology"
YGO = BASE + "#"

# A small graph that breaks every check, and what each query must report on it.
BROKEN = f"""
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ygo: <{YGO}> .

<{BASE}> a owl:Ontology ; rdfs:label "broken"@en .
ygo:NoLabel a owl:Class ; rdfs:comment "A class with a comment and no label."@en .
ygo:ItalianOnly a owl:ObjectProperty ; rdfs:label "solo italiano"@it ; rdfs:comment "Labelled in Italian only."@en .
ygo:UntaggedLabel a owl:DatatypeProperty ; rdfs:label "untaggedLabel" ; rdfs:comment "A label with no language."@en .
ygo:BlankComment a owl:DatatypeProperty ; rdfs:label "blankComment"@en ; rdfs:comment ""@en .
ygo:Bare a owl:AnnotationProperty .
ygo:Fine a owl:Class ; rdfs:label "Fine"@en ; rdfs:comment "Labelled and commented."@en .
ygo:someIndividual a owl:NamedIndividual .
<http://example.org/other#Elsewhere> a owl:Class .
[] a owl:Class ; owl:unionOf ( ygo:Fine ygo:NoLabel ) .
"""
EXPECTED_ON_BROKEN = {
    "missing-label-violation": {YGO + "NoLabel", YGO + "ItalianOnly", YGO + "UntaggedLabel", YGO + "Bare"},
    "missing-comment-violation": {YGO + "BlankComment", YGO + "Bare"},
    "missing-version-violation": {BASE},
}


def _rows(graph: Graph, query: Path) -> list[tuple]:
    return [tuple(row) for row in graph.query(query.read_text(encoding="utf-8"))]


def _show(rows: list[tuple]) -> str:
    return "\n".join("  " + "  ".join(t.n3() if t is not None else "-" for t in row)
                     for row in rows)


@pytest.fixture(scope="module")
def ontology() -> Graph:
    return Graph().parse(ONTOLOGY, format="xml")


def test_the_quality_queries_are_there():
    assert {q.stem for q in QUERIES} >= set(EXPECTED_ON_BROKEN)


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.stem)
def test_ontology_passes_quality_check(ontology, query):
    rows = _rows(ontology, query)
    assert not rows, f"{query.name}: {len(rows)} violations in {ONTOLOGY.name}:\n{_show(rows)}"


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.stem)
def test_quality_check_finds_violations_in_a_broken_graph(query):
    broken = Graph().parse(data=BROKEN, format="turtle")
    rows = _rows(broken, query)
    assert rows, f"{query.name} finds nothing in a graph made to break it"
    if query.stem in EXPECTED_ON_BROKEN:
        assert {str(row[0]) for row in rows} == EXPECTED_ON_BROKEN[query.stem]


def test_catalog_maps_the_ontology_iris_to_the_file(ontology):
    ns = {"c": "urn:oasis:names:tc:entity:xmlns:xml:catalog"}
    uris = {u.get("name"): u.get("uri") for u in ET.parse(CATALOG).getroot().findall("c:uri", ns)}
    assert uris.get(BASE) == "ygo-onto.owl"
    assert (CATALOG.parent / uris[BASE]).resolve() == ONTOLOGY.resolve()
    version = ontology.value(URIRef(BASE), OWL.versionIRI)
    assert version is not None
    assert uris.get(str(version)) == "ygo-onto.owl", f"the catalog does not map the version IRI {version}"


def test_catalog_maps_the_card_files_and_they_import_the_tbox():
    ns = {"c": "urn:oasis:names:tc:entity:xmlns:xml:catalog"}
    uris = {u.get("name"): u.get("uri") for u in ET.parse(CATALOG).getroot().findall("c:uri", ns)}
    for ruleset, path in CARD_FILES.items():
        iri = f"http://ygo-onto.org/cards/{ruleset}"
        assert uris.get(iri) == path.name, f"the catalog does not map {iri}"
        g = Graph().parse(path, format="xml")
        assert (URIRef(iri), RDF.type, OWL.Ontology) in g
        assert (URIRef(iri), OWL.imports, URIRef(BASE)) in g, f"{path.name} does not import the TBox"


_BUILTIN = {str(RDF), str(RDFS), str(OWL), "http://www.w3.org/2001/XMLSchema#"}


def _declared(g: Graph) -> set[str]:
    return {str(s) for s in g.subjects(RDF.type, None) if isinstance(s, URIRef)}


@pytest.mark.parametrize("ruleset", sorted(CARD_FILES))
def test_every_term_the_files_use_is_declared(ontology, ruleset):
    """A term of the ygo: namespace used in the TBox or the card file (a parent, a domain, an
    annotation) is declared in the TBox: a name mistyped in Protégé is found here."""
    cards = Graph().parse(CARD_FILES[ruleset], format="xml")
    declared = _declared(ontology) | _declared(cards)
    used = set()
    for g in (ontology, cards):
        for t in g:
            used.update(str(x) for x in t if isinstance(x, URIRef) and str(x).startswith(YGO))
    assert not sorted(used - declared), f"used, never declared: {sorted(used - declared)[:20]}"


@pytest.mark.parametrize("ruleset", sorted(CARD_FILES))
def test_every_term_a_rule_uses_is_declared(ruleset):
    from ygo_onto.knowledge import Knowledge

    k = Knowledge(ruleset)
    assert k.rules and len(k.catalog) >= 40
    k.check_rules()  # raises VocabularyError naming the rule and the term


@pytest.mark.parametrize("ruleset", sorted(CARD_FILES))
def test_every_card_class_reads_back_with_its_facts(ruleset):
    """Each card class of the file is under a kind class of the TBox and carries the facts the
    engine needs (a monster: Level, ATK, DEF; official: Attribute and Type)."""
    from ygo_onto.cards import read_catalog_file

    cards, _ = read_catalog_file(CARD_FILES[ruleset], ruleset, cache=False)
    assert len(cards) >= 40
    assert len({c.class_name for c in cards}) == len(cards)


@pytest.mark.parametrize("ruleset", sorted(CARD_FILES))
def test_hermit_finds_the_tbox_with_the_cards_consistent(ruleset):
    from ygo_onto.export import hermit_check

    assert "is consistent" in hermit_check(ruleset)
