"""Each student alone: no kernel reaches another's, sees the grader, or outgrows its limits.

Each notebook below is an honest stub plus one trick. Where the trick would reach
something it must not (a neighbour's notebook, the grader's command line), it answers the
exercise with what it found, so it passes only if the trick worked: each must score what
the stub scores. The tricks that only take (memory, a file, processes, open files, CPU)
end in that student's `error`, with the limit named. An honest neighbour is graded with
them, `--jobs 3`, and still passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_notebooks import LESSON, LESSONS, SOLVED, STUB, Cell, check, write_notebook

from looplab.grading import Grade, Options, grade_folder
from looplab.grading.jail import jail_for
from looplab.grading.limits import Limits

pytestmark = pytest.mark.slow  # seconds each: `make quick` leaves them out

# a neighbour's solution, wherever this kernel can find one: it is what it answers with
STEAL = (
    "def steal(roots):\n"
    "    for root in roots:\n"
    "        if root.startswith(('/usr', '/lib', '/bin', '/sbin', '/etc', '/proc')):\n"
    "            continue  # the system: no notebooks there\n"
    "        for path in glob.glob(root + '/**/*.ipynb', recursive=True):\n"
    "            if path.startswith(os.path.dirname(os.environ['HOME'])):\n"
    "                continue  # its own copy\n"
    "            try:\n"
    "                cells = json.load(open(path))['cells']\n"
    "            except Exception:\n"
    "                continue\n"
    "            for cell in cells:\n"
    "                if 'return n_turns' + ' * S' in ''.join(cell['source']):\n"
    "                    exec(''.join(cell['source']), globals())\n"
    "                    return path\n"
)
SCRATCH = "os.path.dirname(os.path.dirname(os.environ['HOME']))"  # where scratch folders are

TRICKS: dict[str, list[Cell | str]] = {
    # undo whatever mount hides the others (in a user namespace of its own, where it can)
    "unmounts": [STUB, "import ctypes, glob, json, os, time\n" + STEAL +
                 f"roots = [{SCRATCH}, '/tmp', '/'.join(os.getcwd().split('/')[:3])]\n"
                 "libc = ctypes.CDLL(None, use_errno=True)\n\n"
                 "def unmount_all():\n"
                 "    done = 0\n"
                 "    for _ in range(3):\n"
                 "        for line in reversed(open('/proc/self/mountinfo').read().splitlines()):\n"
                 "            done += libc.umount2(line.split()[4].encode(), 2) == 0  # DETACH\n"
                 "    return done\n\n"
                 "if not unmount_all() and libc.unshare(0x10000000 | 0x00020000) == 0:\n"
                 "    unmount_all()  # in a user and mount namespace of its own\n"
                 "for _ in range(50):  # while the neighbour's kernel runs\n"
                 "    if steal(roots):\n"
                 "        break\n"
                 "    time.sleep(0.2)",
                 check()],
    # the grader's command line names the class folder and the lessons
    "reads_proc": [STUB, "import glob, json, looplab, os, sys\n" + STEAL +
                   "lines = []\n"
                   "for pid in filter(str.isdigit, os.listdir('/proc')):\n"
                   "    try:\n"
                   "        lines.append(open(f'/proc/{pid}/cmdline', 'rb').read())\n"
                   "    except OSError:\n"
                   "        pass\n"
                   "roots = {part.decode() for line in lines for part in line.split(b'\\0')\n"
                   "         if part.startswith(b'/') and os.path.isdir(part)}\n"
                   "grader = [line for line in lines if b'test_grading' in line]\n"
                   "if grader or len(lines) > 10:  # more than the sandbox's own processes\n"
                   "    exec(" + repr(SOLVED) + ")\n"
                   "python = (sys.prefix, sys.base_prefix, os.path.dirname(looplab.__file__))\n"
                   "found = steal(sorted(r for r in roots\n"
                   "                     if not any(p.startswith(r) or r.startswith(p)\n"
                   "                                for p in python)))", check()],
    # the other kernels' sockets and connection files, from the process list or the disk
    "finds_sockets": [STUB, "import glob, os\n"
                      f"mine = os.path.dirname(os.environ['HOME'])\n"
                      f"others = [p for p in glob.glob({SCRATCH} + '/*/kernel.json')\n"
                      "          if not p.startswith(mine)]\n"
                      "others += glob.glob('/proc/*/root' + os.path.dirname(mine)\n"
                      "                    + '/*/kernel.json')\n"
                      "if [p for p in others if not p.endswith(mine + '/kernel.json')]:\n"
                      "    exec(" + repr(SOLVED) + ")", check()],
    "network": [STUB, "import socket\n"
                "try:\n"
                "    socket.create_connection(('1.1.1.1', 53), timeout=3).close()\n"
                "    exec(" + repr(SOLVED) + ")\n"
                "except OSError:\n"
                "    pass", check()],
    "fork_bomb": [STUB, "import os, time\n"
                  "while True:\n"
                  "    if os.fork() == 0:\n"
                  "        time.sleep(120)\n"
                  "        os._exit(0)", check()],
    "memory_hog": [STUB, "hog = b'x' * (3 << 30)  # 3 GiB, every byte written", check()],
    "big_file": [STUB, "with open('big.bin', 'wb') as f:\n"
                 "    f.seek(2 << 30)  # 2 GiB\n"
                 "    f.write(b'x')", check()],
    "open_files": [STUB, "files = [open('many.txt', 'w') for _ in range(100_000)]", check()],
    # a scratch folder the grader could not remove, were it not for its owner's rights
    "locks_its_folder": [STUB, "import os\n"
                         "os.makedirs('locked/inner')\n"
                         "open('locked/inner/f.txt', 'w').write('x')\n"
                         "for path in ('locked/inner', 'locked', os.environ['HOME']):\n"
                         "    os.chmod(path, 0)", check()],
    "honest": [SOLVED, "import time\ntime.sleep(10)  # a neighbour the tricks can find", check()],
}  # fmt: skip
LIMITED = {
    "fork_bomb": "its process limit (",
    "memory_hog": "its memory limit (",
    "big_file": "its file size limit (",
    "open_files": "its open files limit (",
}


def need_sandbox() -> None:
    why = jail_for(None, []).why_not()
    if why is not None:
        pytest.skip(f"no sandbox here: {why}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Grade], Path]:
    need_sandbox()
    root = tmp_path_factory.mktemp("alone")
    for student, cells in TRICKS.items():
        write_notebook(root / "class" / student / LESSON, cells)
    (root / "scratch").mkdir()
    options = Options(scratch=root / "scratch", cell_timeout_s=60.0)
    grades = grade_folder(root / "class", lessons=LESSONS, jobs=3, options=options)
    return {g.student: g for g in grades}, root


@pytest.mark.parametrize(
    "student", ["unmounts", "reads_proc", "finds_sockets", "network", "locks_its_folder"]
)
def test_a_trick_to_reach_beyond_the_sandbox_scores_what_the_stub_scores(
    graded: tuple[dict[str, Grade], Path], student: str
) -> None:
    grade = graded[0][student]
    assert (grade.status, grade.passed, grade.total) == ("failed", 0, 6), grade
    assert grade.rows[0].hint.startswith("NotImplementedError"), grade


@pytest.mark.parametrize("student", sorted(LIMITED))
def test_a_kernel_that_outgrows_a_limit_is_its_students_error_with_the_limit_named(
    graded: tuple[dict[str, Grade], Path], student: str
) -> None:
    grade = graded[0][student]
    assert (grade.status, grade.passed, grade.total) == ("error", 0, 6), grade
    assert grade.reason.startswith("cell 2 ran into " + LIMITED[student]), grade


def test_the_honest_neighbour_of_every_trick_passes(
    graded: tuple[dict[str, Grade], Path],
) -> None:
    grades, root = graded
    assert (grades["honest"].status, grades["honest"].passed) == ("passed", 6)
    assert list((root / "scratch").iterdir()) == []  # every scratch folder removed


def test_a_kernel_over_its_cpu_time_is_killed_and_named(tmp_path: Path) -> None:
    need_sandbox()
    spin = [STUB, "while True:\n    pass", check()]
    write_notebook(tmp_path / "class" / "spinner" / LESSON, spin)
    options = Options(limits=Limits(cpu_s=8), cell_timeout_s=60.0)
    (grade,) = grade_folder(tmp_path / "class", lessons=LESSONS, jobs=1, options=options)
    assert (grade.status, grade.passed) == ("error", 0), grade
    assert grade.reason == "cell 2 ran into its CPU time limit (8 s, --cpu-time)"
