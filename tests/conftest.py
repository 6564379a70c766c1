import glob
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))

from tonytest import Tony  # noqa: E402

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


@pytest.fixture
def tony(tmp_path):
    t = Tony(tmp_path / "home")
    yield t
    # Under the ASan+UBSan build the coordinator's and executors' reports land in their logs;
    # any report fails the test that produced it.
    for log in glob.glob(os.path.join(t.home, "jobs", "*", "am.log")) + glob.glob(
            os.path.join(t.home, "jobs", "*", "tasks", "*", "*", "executor.log")):
        text = open(log, errors="replace").read()
        for mark in SANITIZER_MARKS:
            if mark in text:
                pytest.fail(f"sanitizer report in {log}:\n{text[text.index(mark) - 200:][:3000]}")
