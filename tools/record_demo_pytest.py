"""Record what the demo's `run_tests` returns for the shipped demo repository:
`python tools/record_demo_pytest.py` writes src/looplab/lessons/demo_pytest.json.

In the browser edition (Pyodide) no process can start, so pytest cannot run; there
`run_tests` answers from this recording while the repository is byte for byte the one
recorded (its digest), so the lessons read the same tool results as locally. Run this after
changing anything in src/looplab/lessons/demo_repo/; a test fails while the recording is
stale.
"""

from __future__ import annotations

import json
from pathlib import Path

from looplab.lessons.demo import RECORDING, demo_root, demo_tools, repo_digest


def recording() -> dict[str, object]:
    root = demo_root()
    run_tests, _ = demo_tools(root)
    modules = sorted(p.name[len("test_"):-len(".py")] for p in (root / "tests").glob("test_*.py"))
    return {"digest": repo_digest(root), "modules": {m: run_tests.fn(module=m) for m in modules}}


def main() -> None:
    target = Path(__file__).resolve().parents[1] / "src" / "looplab" / "lessons" / RECORDING
    text = json.dumps(recording(), indent=1, ensure_ascii=False) + "\n"
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.name}")


if __name__ == "__main__":
    main()
