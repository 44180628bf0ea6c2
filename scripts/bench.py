#!/usr/bin/env python
"""Benchmark the reasoner backends: `python scripts/bench.py [--json] [--reasoners fast,pellet] ...`.

The work is in ygo_onto.bench (run_bench, render); see `--help`.
"""
import sys

from ygo_onto.bench import main

if __name__ == "__main__":
    sys.exit(main())
