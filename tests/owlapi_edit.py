"""Edit an ontology file with the OWL API 5 as a Protégé user would, and save it as RDF/XML.

A file next to a catalog-v001.xml (ontology/) has its imports resolved through it, as in Protégé.
Run in a process of its own (one JVM with the OWL API on its class path; see tests/test_export.py):

    python tests/owlapi_edit.py IN.owl OUT.owl EDIT...

EDITs, applied in order:
    noop                               load and save, nothing else
    remove-rules:CLASS                 remove every SWRL rule that has an atom on the class (e.g. TrapHole)
    change-number:LABEL:OLD:NEW        in the rule labelled LABEL, replace the integer OLD by NEW
    add-rule:LABEL:NEWLABEL:OLD:NEW[:FILE]  add a copy of rule LABEL labelled NEWLABEL with OLD replaced
                                       by NEW (annotated with ygo:ruleFile FILE when given)
    add-card:CLASS:NAME:LEVEL:ATK:DEF  add a Normal Monster class of the file's ruleset, with its catalog facts
                                       (a LIGHT Dragon)
    set-atk:CLASS:ATK                  change a card class's ygo:cardAtk annotation
    owlxml                             save as OWL/XML instead of RDF/XML
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

YGO = "http://ygo-onto.org/ontology#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"


def main(argv: list[str]) -> int:
    import jpype

    from test_export import _jvm, owlapi_classpath

    libjvm, options = _jvm()
    jpype.startJVM(libjvm, *options, classpath=owlapi_classpath(), convertStrings=True)
    J = jpype.JClass
    OWLManager = J("org.semanticweb.owlapi.apibinding.OWLManager")
    IRI = J("org.semanticweb.owlapi.model.IRI")
    File = J("java.io.File")
    ArrayList, HashSet = J("java.util.ArrayList"), J("java.util.HashSet")
    AxiomType = J("org.semanticweb.owlapi.model.AxiomType")

    src, dst, edits = argv[0], argv[1], argv[2:]
    manager = OWLManager.createOWLOntologyManager()
    # imports resolved offline through the catalog next to the file, as Protégé does (ontology/catalog-v001.xml)
    catalog = Path(src).resolve().parent / "catalog-v001.xml"
    if catalog.is_file():
        import xml.etree.ElementTree as ET

        SimpleIRIMapper = J("org.semanticweb.owlapi.util.SimpleIRIMapper")
        for u in ET.parse(catalog).getroot().iter():
            if u.tag.endswith("uri") and u.get("name") and u.get("uri"):
                target = File(str(catalog.parent / u.get("uri"))).toURI()
                manager.getIRIMappers().add(SimpleIRIMapper(IRI.create(u.get("name")), IRI.create(target)))
    onto = manager.loadOntologyFromOntologyDocument(File(src))
    df = manager.getOWLDataFactory()
    fmt = manager.getOntologyFormat(onto)
    ruleset = None
    for a in onto.getAnnotations():
        if str(a.getProperty().getIRI()) == YGO + "ruleset":
            ruleset = str(a.getValue().asLiteral().get().getLiteral())
    onto_iri = str(onto.getOntologyID().getOntologyIRI().get())
    if onto_iri.startswith("http://ygo-onto.org/cards/"):  # a catalog file of ontology/
        ruleset = onto_iri.rsplit("/", 1)[1]
    cards_ns = f"http://ygo-onto.org/cards/{ruleset}#"

    def label_of(rule):
        for a in rule.getAnnotations():
            if str(a.getProperty().getIRI()) == RDFS + "label":
                return str(a.getValue().asLiteral().get().getLiteral())
        return None

    def rule_by_label(label):
        for r in onto.getAxioms(AxiomType.SWRL_RULE):
            if label_of(r) == label:
                return r
        raise SystemExit(f"no rule labelled {label!r}")

    def replaced(atoms, old, new):
        out, hit = ArrayList(), False
        for atom in atoms:
            if isinstance(atom, J("org.semanticweb.owlapi.model.SWRLBuiltInAtom")):
                args = ArrayList()
                for arg in atom.getArguments():
                    if isinstance(arg, J("org.semanticweb.owlapi.model.SWRLLiteralArgument")) \
                            and str(arg.getLiteral().getLiteral()) == old:
                        arg = df.getSWRLLiteralArgument(df.getOWLLiteral(J("java.lang.Integer")(int(new))))
                        hit = True
                    args.add(arg)
                atom = df.getSWRLBuiltInAtom(atom.getPredicate(), args)
            out.add(atom)
        return out, hit

    def copy_rule(rule, old, new, annotations):
        body, hit_b = replaced(rule.body().toArray(), old, new)
        head, hit_h = replaced(rule.head().toArray(), old, new)
        if not (hit_b or hit_h):
            raise SystemExit(f"no literal {old} in rule {label_of(rule)!r}")
        return df.getSWRLRule(body, head, annotations)

    def literal_annotation(prop, value, lang=None):
        lit = df.getOWLLiteral(value, lang) if lang else df.getOWLLiteral(value)
        return df.getOWLAnnotation(df.getOWLAnnotationProperty(IRI.create(prop)), lit)

    for edit in edits:
        kind, *args = edit.split(":")
        if kind == "noop":
            continue
        if kind == "owlxml":
            fmt = J("org.semanticweb.owlapi.formats.OWLXMLDocumentFormat")()
            continue
        if kind == "remove-rules":
            cls = IRI.create(cards_ns + args[0])
            for r in list(onto.getAxioms(AxiomType.SWRL_RULE)):
                if any(str(c.getIRI()) == str(cls) for c in r.getClassesInSignature()):
                    manager.removeAxiom(onto, r)
        elif kind == "change-number":
            label, old, new = args
            rule = rule_by_label(label)
            manager.removeAxiom(onto, rule)
            manager.addAxiom(onto, copy_rule(rule, old, new, rule.getAnnotations()))
        elif kind == "add-rule":
            label, new_label, old, new, *rule_file = args
            rule = rule_by_label(label)
            anns = HashSet()
            anns.add(literal_annotation(RDFS + "label", new_label, "en"))
            anns.add(literal_annotation(RDFS + "comment", f"Added in Protégé: {label} with {new} for {old}.", "en"))
            if rule_file:
                anns.add(literal_annotation(YGO + "ruleFile", rule_file[0]))
            manager.addAxiom(onto, copy_rule(rule, old, new, anns))
        elif kind == "add-card":
            cls_name, name, level, atk, def_ = args
            cls = df.getOWLClass(IRI.create(cards_ns + cls_name))
            manager.addAxiom(onto, df.getOWLDeclarationAxiom(cls))
            manager.addAxiom(onto, df.getOWLSubClassOfAxiom(cls, df.getOWLClass(IRI.create(YGO + "NormalMonster"))))
            for prop, value in ((RDFS + "label", name), (RDFS + "comment", f"Normal Monster. {name}, made in Protégé.")):
                manager.addAxiom(onto, df.getOWLAnnotationAssertionAxiom(cls.getIRI(), literal_annotation(prop, value, "en")))
            for prop, value in (("cardAttribute", "LIGHT"), ("cardMonsterType", "Dragon")):
                manager.addAxiom(onto, df.getOWLAnnotationAssertionAxiom(cls.getIRI(), literal_annotation(YGO + prop, value)))
            for prop, value in (("cardLevel", level), ("cardAtk", atk), ("cardDef", def_)):
                ann = df.getOWLAnnotation(df.getOWLAnnotationProperty(IRI.create(YGO + prop)),
                                          df.getOWLLiteral(J("java.lang.Integer")(int(value))))
                manager.addAxiom(onto, df.getOWLAnnotationAssertionAxiom(cls.getIRI(), ann))
        elif kind == "set-atk":
            cls_name, atk = args
            cls_iri = IRI.create(cards_ns + cls_name)
            for ax in list(onto.getAnnotationAssertionAxioms(cls_iri)):
                if str(ax.getProperty().getIRI()) == YGO + "cardAtk":
                    manager.removeAxiom(onto, ax)
            ann = df.getOWLAnnotation(df.getOWLAnnotationProperty(IRI.create(YGO + "cardAtk")),
                                      df.getOWLLiteral(J("java.lang.Integer")(int(atk))))
            manager.addAxiom(onto, df.getOWLAnnotationAssertionAxiom(cls_iri, ann))
        else:
            raise SystemExit(f"unknown edit {edit!r}")
    manager.saveOntology(onto, fmt, IRI.create(File(dst).toURI()))
    return 0


def edit_in_a_process(src: Path, dst: Path, *edits) -> Path:
    """For the tests: this script on src -> dst in a process of its own; the test is skipped when the OWL API is
    not installed (it fails instead under YGO_REQUIRE_OWLAPI, as CI sets it once the API is there)."""
    import os
    import subprocess

    import pytest

    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(src), str(dst), *edits],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")})
    if done.returncode != 0 and ("is not installed" in done.stderr or "no dpkg-query" in done.stderr
                                 or "No module named 'jpype'" in done.stderr):
        if os.environ.get("YGO_REQUIRE_OWLAPI"):
            pytest.fail(f"YGO_REQUIRE_OWLAPI is set but the OWL API cannot run: {done.stderr[-500:]}")
        pytest.skip("the OWL API is not available: " + done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr[-3000:]
    return dst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
