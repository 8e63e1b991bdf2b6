"""What `import looplab` costs on top of `import anthropic`: `python benchmarks/bench_import.py`.

Each import runs in a fresh interpreter (best of nine, interleaved, measured inside the child so
interpreter start-up is left out). looplab needs the SDK anyway, so the ratio shows what
looplab adds; widgets and plots load on first use, so matplotlib and ipywidgets must not
be imported. The goal is at most 1.05x.
"""

from __future__ import annotations

import subprocess
import sys

from goals import judged

GOAL = 1.05
CHILD = """
import sys, time
start = time.perf_counter()
import {module}
print(time.perf_counter() - start)
print(",".join(m for m in ("matplotlib", "ipywidgets", "jsonschema") if m in sys.modules))
"""


def child(module: str) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD.format(module=module)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return float(out[0]), out[1] if len(out) > 1 else ""


def main(repeats: int = 9) -> None:
    base, ours, heavy = [], [], ""
    for _ in range(repeats):  # interleaved, so a busy moment hits both sides alike
        base.append(child("anthropic")[0])
        seconds, heavy = child("looplab")
        ours.append(seconds)
    ratio = min(ours) / min(base)
    extra = heavy or "none of matplotlib, ipywidgets, jsonschema"
    print(f"import anthropic: {min(base) * 1000:7.1f} ms (best of {repeats})")
    print(f"import looplab:   {min(ours) * 1000:7.1f} ms (best of {repeats}; also imported: "
          f"{extra})")
    print(judged("looplab/anthropic", ratio, GOAL))
    if heavy:
        print(f"OVER GOAL: import looplab also imported {heavy}")


if __name__ == "__main__":
    main()
