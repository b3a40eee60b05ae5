"""``python -m evals.benchmark DIR [DIR ...]``: the benchmark runner with the roster's halves."""

from evals.benchmark import roster_halves
from toolret.bench.runner import main

if __name__ == "__main__":
    raise SystemExit(main(extra_sets=roster_halves()))
