"""OWL files given to `--ontology` and `import-owl` that are not what they should be: each is exit 2 with one
line naming the file and what is wrong, at once (no entity expansion, no parse of an oversized file) and
without a traceback of rdflib or owlready2 on stderr."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ygo_onto.errors import StateError
from ygo_onto.ontofile import Rules, import_owl

RDF_HEAD = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:owl="http://www.w3.org/2002/07/owl#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">')


def _with_doctype(entities: str, body: str) -> str:
    return (f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n{entities}\n]>\n{RDF_HEAD}\n'
            f'<owl:Ontology rdf:about="http://ygo-onto.org/ontology"><rdfs:comment>{body}</rdfs:comment></owl:Ontology>\n'
            '</rdf:RDF>\n')


def billion_laughs(levels: int = 9) -> str:
    lines = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels + 1)]
    return _with_doctype("\n".join(lines), f"&lol{levels};")


def run(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ygo_onto", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def expect_refused(done: subprocess.CompletedProcess, path: Path, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"error: {path}: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]


def test_billion_laughs_is_refused_at_once(tmp_path):
    path = tmp_path / "laughs.owl"
    path.write_text(billion_laughs(), encoding="utf-8")
    assert path.stat().st_size < 1200  # a few hundred bytes that would expand to gigabytes
    started = time.monotonic()
    for args in (("cards", "--ontology", path), ("import-owl", "--dry-run", path), ("check", "--ontology", path)):
        expect_refused(run(*args), path, "entity 'lol1'", "uses another")
    assert time.monotonic() - started < 90


@pytest.mark.parametrize("entities, body, words", [
    ('<!ENTITY ext SYSTEM "file:///etc/passwd">', "&ext;", ("entity 'ext'", "external")),
    ('<!ENTITY % par "x">', "x", ("entity 'par'", "parameter")),
    (f'<!ENTITY big "{"x" * 2000}">', "&big;", ("entity 'big'", "at most 1024 characters")),
    (f'<!ENTITY wide "{"x" * 1000}">', "&wide;" * 5000, ("expand to at most 4 times", "entity expansion")),
])
def test_entities_that_could_expand_or_read_files_are_refused(tmp_path, entities, body, words):
    path = tmp_path / "entities.owl"
    path.write_text(_with_doctype(entities, body), encoding="utf-8")
    with pytest.raises(StateError) as info:
        Rules.load(path, cache=False)
    assert str(info.value).startswith(f"{path}: ") and all(w in str(info.value) for w in words), info.value
    with pytest.raises(StateError, match="entit"):
        import_owl(path, dry_run=True)


def test_plain_entities_as_protege_may_write_them_are_read(tmp_path):
    """Namespaces written as entities (OWLAPI's RDF/XML may do so) are plain text: the file is read past them
    (to the ruleset it lacks: the next check)."""
    path = tmp_path / "plain.owl"
    path.write_text(_with_doctype('<!ENTITY owl "http://www.w3.org/2002/07/owl#">', "&owl;"), encoding="utf-8")
    with pytest.raises(StateError, match="ygo:ruleset"):
        Rules.load(path, cache=False)


def test_a_file_past_the_size_bound_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "big.owl"
    path.write_text(_with_doctype("", "x" * 5000), encoding="utf-8")
    for args in (("cards", "--ontology", path), ("import-owl", path), ("allowed", "STATE", "--ontology", path)):
        args = [str(Path(__file__).parent.parent / "examples" / "main1-tribute.json") if a == "STATE" else a for a in args]
        expect_refused(run(*args, env={"YGO_MAX_OWL_BYTES": "4000"}), path, "at most 4,000 bytes",
                       "YGO_MAX_OWL_BYTES", f"got {path.stat().st_size:,} bytes")
    done = run("cards", "--ontology", path, env={"YGO_MAX_OWL_BYTES": "four"})
    assert done.returncode == 2 and "YGO_MAX_OWL_BYTES: expected a number of bytes" in done.stderr, done.stderr


def test_a_literal_that_is_not_an_integer_gives_only_the_message(tmp_path, official_export):
    text = official_export.read_text(encoding="utf-8")
    marker = '<ygo:cardAtk rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">'
    at = text.index(marker) + len(marker)
    bad = tmp_path / "bad-literal.owl"
    bad.write_text(text[:at] + "abc" + text[text.index("<", at):], encoding="utf-8")
    for args in (("cards", "--ontology", bad), ("import-owl", "--dry-run", bad)):
        expect_refused(run(*args), bad, "ygo:cardAtk: expected an integer, got 'abc'")


@pytest.mark.parametrize("text, words", [
    ('<?xml version="1.0"?>\n<catalog><item name="x">y</item></catalog>\n', ("root element is <catalog>",)),
    ("<html><body><p>hello</p></body></html>\n", ("root element is <html>", "not <rdf:RDF>")),
    ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
     'rdf:about="http://x/a"><rdf:value>1</rdf:value></rdf:Description></rdf:RDF>\n', ("RDF with no owl:Ontology",)),
    ("this is not xml\n", ("XML that does not parse", "line 1, column 0")),
    ("", ("XML that does not parse", "no element found")),
    ('<?xml version="1.0"?>\n<Ontology xmlns="http://www.w3.org/2002/07/owl#" ontologyIRI="http://ygo-onto.org/o">\n'
     '  <Declaration><Class/></Declaration>\n</Ontology>\n', ("OWL/XML", "line 3")),
])
def test_xml_that_is_not_owl_names_the_file_and_what_it_is(tmp_path, text, words):
    path = tmp_path / "not-owl.owl"
    path.write_text(text, encoding="utf-8")
    for args in (("cards", "--ontology", path), ("import-owl", "--dry-run", path)):
        expect_refused(run(*args), path, *words)
