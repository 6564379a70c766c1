import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))

from tonytest import Tony  # noqa: E402


@pytest.fixture
def tony(tmp_path):
    t = Tony(tmp_path / "home")
    yield t
