"""The one packaging setting pyproject.toml cannot say: the wheel carries the top-level
ontology/, rules/ and examples/ folders as ygo_onto/ontology, ygo_onto/rules and
ygo_onto/examples (read through ygo_onto/resources.py), without moving them in the repo
(Protégé opens ontology/, the rules are edited in rules/).  Everything else is in
pyproject.toml."""
from setuptools import find_packages, setup

MAPPED = {"ygo_onto.ontology": "ontology", "ygo_onto.rules": "rules", "ygo_onto.examples": "examples"}

setup(
    package_dir={"": "src", **MAPPED},
    packages=find_packages("src") + list(MAPPED),
    package_data={
        "ygo_onto": ["data/*", "data/goat/*"],
        "ygo_onto.reasoning.fast": ["native.c", "reader.c"],
        "ygo_onto.ontology": ["*.owl", "*.xml"],
        "ygo_onto.rules": ["**/*.swrl"],
        "ygo_onto.examples": ["*.json", "puzzles/*.json", "decks/*/*.ydk"],
    },
)
