"""Reading an OWL/XML file (Protégé's other save format) into the RDF graph ontofile.py reads.

owlready2 parses OWL/XML but drops its SWRL rules (DLSafeRule), so the rules are read here with
ElementTree and written as the swrl:Imp triples that an RDF/XML file carries; the other axioms
come from owlready2's parser.
"""
from __future__ import annotations

import contextlib
import io
import xml.etree.ElementTree as ET
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF

from .errors import StateError

OWLNS = "{http://www.w3.org/2002/07/owl#}"
SWRL = "http://www.w3.org/2003/11/swrl#"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
ATOM_TYPES = {"ClassAtom": "ClassAtom", "ObjectPropertyAtom": "IndividualPropertyAtom",
              "DataPropertyAtom": "DatavaluedPropertyAtom", "BuiltInAtom": "BuiltinAtom",
              "SameIndividualAtom": "SameIndividualAtom", "DifferentIndividualsAtom": "DifferentIndividualsAtom"}


def parse_owlxml(path: Path) -> Graph:
    """:raises StateError: not well-formed XML, or an element of a rule this reader does not know."""
    import owlready2

    from .ontofile import quiet_rdflib

    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise StateError(f"{path}: expected an OWL file (RDF/XML or OWL/XML), got XML that does not parse: {exc}") from None
    base = root.get(XML_BASE) or root.get("ontologyIRI") or ""
    prefixes = {p.get("name"): p.get("IRI") for p in root.findall(OWLNS + "Prefix")}

    def iri(el) -> URIRef:
        if el.get("abbreviatedIRI"):
            prefix, _, local = el.get("abbreviatedIRI").partition(":")
            return URIRef(prefixes.get(prefix, "") + local)
        value = el.get("IRI", "")
        if value.startswith("#") or not (":" in value):
            return URIRef(base + value)
        return URIRef(value)

    world = owlready2.World()
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # (owlready2 prints its parser's traceback before raising)
            onto = world.get_ontology(f"file://{Path(path).resolve()}").load()
    except Exception as exc:  # owlready2's parser errors
        reason = exc.args[-1] if exc.args else exc
        while isinstance(reason, tuple) and reason:
            reason = reason[-1]
        raise StateError(f"{path}: expected an OWL/XML ontology, got an element it cannot read: {str(reason)[:200]}") from None
    buf = io.BytesIO()
    onto.save(buf, format="ntriples")
    world.close()
    g = Graph()
    with quiet_rdflib():
        g.parse(data=buf.getvalue().decode("utf-8"), format="nt")

    def arg(el):
        tag = el.tag.replace(OWLNS, "")
        if tag == "Literal":
            dt = el.get("datatypeIRI")
            if el.get(XML_LANG):
                return Literal(el.text or "", lang=el.get(XML_LANG))
            return Literal(el.text or "", datatype=URIRef(dt) if dt else None)
        node = iri(el)
        if tag == "Variable":
            g.add((node, RDF.type, URIRef(SWRL + "Variable")))
        return node

    for number, rule in enumerate(root.iter(OWLNS + "DLSafeRule"), 1):
        imp = BNode()
        g.add((imp, RDF.type, URIRef(SWRL + "Imp")))
        for ann in rule.findall(OWLNS + "Annotation"):
            prop, value = ann[0], ann[1]
            g.add((imp, iri(prop), arg(value)))
        for part, key in (("Body", "body"), ("Head", "head")):
            atoms = []
            for atom in rule.find(OWLNS + part) if rule.find(OWLNS + part) is not None else []:
                tag = atom.tag.replace(OWLNS, "")
                if tag not in ATOM_TYPES:
                    raise StateError(f"{path}: rule {number} (DLSafeRule): expected a SWRL atom, got {tag}")
                a = BNode()
                g.add((a, RDF.type, URIRef(SWRL + ATOM_TYPES[tag])))
                children = list(atom)
                if tag == "BuiltInAtom":
                    g.add((a, URIRef(SWRL + "builtin"), iri(atom)))
                    lst = BNode()
                    Collection(g, lst, [arg(c) for c in children])
                    g.add((a, URIRef(SWRL + "arguments"), lst))
                else:
                    if tag == "ClassAtom":
                        g.add((a, URIRef(SWRL + "classPredicate"), iri(children[0])))
                        args = children[1:]
                    elif tag in ("ObjectPropertyAtom", "DataPropertyAtom"):
                        g.add((a, URIRef(SWRL + "propertyPredicate"), iri(children[0])))
                        args = children[1:]
                    else:
                        args = children
                    for i, c in enumerate(args, 1):
                        g.add((a, URIRef(SWRL + f"argument{i}"), arg(c)))
                atoms.append(a)
            lst = BNode() if atoms else RDF.nil
            if atoms:
                Collection(g, lst, atoms)
            g.add((imp, URIRef(SWRL + key), lst))
    return g
