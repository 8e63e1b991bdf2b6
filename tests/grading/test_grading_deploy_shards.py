"""The engines a school already runs, as far as this machine can check them: the Kubernetes
Indexed Job and the GitHub Actions matrix in tools/classroom/ are parsed and checked for
what each needs to run the shards (the shards themselves run as processes in
test_grading_shards.py, through the same tools/classroom/grade-shard.sh)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
CLASSROOM = REPO / "tools/classroom"


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", [])}


def test_the_indexed_job_gives_each_pod_its_shard_and_the_merge_follows() -> None:
    (job,) = yaml.safe_load_all((CLASSROOM / "looplab-grade-job.yaml").read_text())
    # what an Indexed Job needs (kubernetes.io/docs/concepts/workloads/controllers/job/
    # #completion-mode): batch/v1 Job, completionMode Indexed, a number of completions,
    # a pod template whose restartPolicy is Never or OnFailure, named containers with images
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert isinstance(spec["completions"], int) and spec["completions"] >= 1
    assert 1 <= spec["parallelism"] <= spec["completions"]
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")
    if "backoffLimitPerIndex" in spec:  # Kubernetes allows it with restartPolicy Never only
        assert pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    assert container["name"] and container["image"]
    env = _env(container)
    assert int(env["SHARDS"]) == spec["completions"]  # one shard per index, none left out
    assert "JOB_COMPLETION_INDEX" not in env  # Kubernetes sets it; the pod must not
    assert "tools/classroom/grade-shard.sh" in " ".join(container["command"])
    mounts = {m["name"] for m in container["volumeMounts"]}
    assert mounts <= {v["name"] for v in pod["volumes"]}
    assert env["PARTS"].startswith(container["volumeMounts"][0]["mountPath"])
    (merge,) = yaml.safe_load_all((CLASSROOM / "looplab-merge-job.yaml").read_text())
    command = " ".join(merge["spec"]["template"]["spec"]["containers"][0]["command"])
    assert f"looplab-grade merge {env['PARTS']}/*.json" in command


def test_the_actions_matrix_runs_a_job_per_shard_and_merges_their_parts() -> None:
    flow = yaml.safe_load((CLASSROOM / "looplab-grade-class.yml").read_text())
    grade, merge = flow["jobs"]["grade"], flow["jobs"]["merge"]
    shards = grade["strategy"]["matrix"]["shard"]
    assert shards == list(range(int(flow["env"]["SHARDS"])))  # 0 to SHARDS-1, each once
    assert grade["strategy"]["fail-fast"] is False  # one failed shard stops no other
    step = next(s for s in grade["steps"] if "grade-shard.sh" in s.get("run", ""))
    assert step["env"]["JOB_COMPLETION_INDEX"] == "${{ matrix.shard }}"
    upload = next(s for s in grade["steps"] if s.get("uses", "").startswith("actions/upload"))
    assert upload["with"]["name"] == "part-${{ matrix.shard }}"
    assert merge["needs"] == "grade"
    download = next(s for s in merge["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"]["pattern"] == "part-*" and download["with"]["merge-multiple"]
    assert any("looplab-grade merge parts/*.json" in s.get("run", "") for s in merge["steps"])


def test_the_shard_script_is_posix_sh_and_says_what_is_missing(tmp_path: Path) -> None:
    script = CLASSROOM / "grade-shard.sh"
    subprocess.run(["sh", "-n", str(script)], check=True)
    done = subprocess.run(["sh", str(script)], env={"PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0
    assert "set JOB_COMPLETION_INDEX to this shard" in done.stderr


def test_no_workflow_or_readme_sends_teachers_to_github_classroom() -> None:
    """GitHub Classroom is retired: named only to say so."""
    for path in [*CLASSROOM.iterdir(), REPO / "README.md", REPO / "README.zh-CN.md"]:
        text = path.read_text(encoding="utf-8")
        for found in re.finditer("GitHub Classroom", text):
            said = text[found.start() : found.end() + 60]
            assert "retired" in said or "停用" in said, (path, said)
