"""The fit check both engines share (engine/fit_check.h), on the local engine: every case of
tests/lib/fit_cases.txt that one machine can express is refused by a real `tony submit` with
exit code 2, naming the key, its value and the file or flag that set it, and nothing starts."""
import os

import pytest

import fit_cases
from tonytest import SYSTEM_PYTHON, processes_mentioning, tony_xml, write


def fake_nvidia_smi(tmp_path, count):
    """An `nvidia-smi` that lists `count` GPUs, first on PATH: the machine of the table."""
    lines = "".join(f"echo 'GPU {i}: Test GPU (UUID: GPU-{i:04d})'\n" for i in range(count))
    tool = write(str(tmp_path / "fake-bin" / "nvidia-smi"),
                 "#!/bin/sh\n[ \"$1\" = -L ] || exit 2\n" + lines, 0o755)
    return os.path.dirname(tool)


@pytest.mark.parametrize("case", fit_cases.load("local"), ids=lambda c: c["name"])
def test_a_job_that_cannot_fit_the_machine_is_refused_naming_key_and_source(tony, tmp_path,
                                                                             case):
    tony.env["PATH"] = fake_nvidia_smi(tmp_path, 2) + ":" + tony.env["PATH"]
    src = tmp_path / "src"
    write(str(src / "job.py"), "print('never runs')\n")
    # The table's machine: 8 GB whatever this one has.
    xml = tony_xml(str(tmp_path / "tony.xml"), {"tony.local.memory": "8g", **case["file"]})
    flags = [a for k, v in case["flag"].items() for a in ("--conf", f"{k}={v}")]
    r = tony.run("submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
                 "--src_dir", str(src), "--conf_file", xml, *flags, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tony: error: the job can never run on this machine: " in r.stderr, r.stderr
    for text in fit_cases.expected(case, xml):
        assert text in r.stderr, f"{text!r} not in: {r.stderr}"
    assert tony.jobs() == [], "a refused job must leave no job"
    assert not processes_mentioning(tony.home)
