"""Quality checks of ontology/ygo-onto.owl, ODK style: tests/quality/*-violation.sparql are
SELECT queries whose every row is a violation.  Plus: the catalog Protégé uses to resolve the
ontology offline, and that tools/build_tbox.py still writes the committed TBox.
"""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
from rdflib.namespace import OWL, RDF

REPO = Path(__file__).resolve().parent.parent
ONTOLOGY = REPO / "ontology" / "ygo-onto.owl"
CATALOG = REPO / "ontology" / "catalog-v001.xml"
BUILD_TBOX = REPO / "tools" / "build_tbox.py"
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


def test_build_tbox_writes_the_committed_ontology(tmp_path, ontology):
    before = ONTOLOGY.read_bytes()
    out = tmp_path / "ygo-onto.owl"
    done = subprocess.run([sys.executable, str(BUILD_TBOX), "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ONTOLOGY.read_bytes() == before, "build_tbox.py --out touched the committed ontology"
    built = Graph().parse(out, format="xml")
    assert (URIRef(BASE), RDF.type, OWL.Ontology) in built
    if not isomorphic(built, ontology):
        _, only_built, only_committed = graph_diff(to_isomorphic(built), to_isomorphic(ontology))
        pytest.fail("tools/build_tbox.py and ontology/ygo-onto.owl disagree "
                    "(an edit made in one was not carried to the other)\n"
                    f"only in the build ({len(only_built)}):\n{_show(sorted(only_built)[:20])}\n"
                    f"only in the committed file ({len(only_committed)}):\n{_show(sorted(only_committed)[:20])}")
