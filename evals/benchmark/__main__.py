"""``python -m evals.benchmark DIR [DIR ...]``: the benchmark runner with the roster's halves.

``--no-held-back`` leaves the held-back half out (its rows are not even printed): for runs made
while choosing, so nothing chosen is seen against it.
"""

import sys

from evals.benchmark import roster_halves
from toolret.recall._runner import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    halves = roster_halves()
    if "--no-held-back" in argv:
        argv.remove("--no-held-back")
        halves = [half for half in halves if half.tuning]
    raise SystemExit(main(argv, extra_sets=halves))
