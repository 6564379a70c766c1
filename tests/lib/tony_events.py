"""TonY's own reader of a .jhist events file: tony-core 0.4.7's generated event classes with
Avro's SpecificDatumReader (tests/local/tony_events/ReadJhist.java), as TonY's portal reads them."""
import json
import os
import shutil
import subprocess

import pytest

READER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "local", "tony_events")
CLASSPATH = os.path.join(READER_DIR, "target", "classpath.txt")


def reader_classpath():
    """tony-core 0.4.7 and Avro 1.8.2 from ~/.m2 (offline first; scripts/setup.sh fetched them)."""
    if shutil.which("mvn") is None or shutil.which("java") is None:
        pytest.fail("this test needs Maven and a JDK (scripts/setup.sh installs them)")
    pom = os.path.join(READER_DIR, "pom.xml")
    if not os.path.exists(CLASSPATH) or os.path.getmtime(pom) > os.path.getmtime(CLASSPATH):
        goals = ["-B", "-q", "-f", pom, "dependency:build-classpath",
                 f"-Dmdep.outputFile={CLASSPATH}"]
        offline = subprocess.run(["mvn", "-o", *goals], capture_output=True, text=True)
        if offline.returncode != 0:
            online = subprocess.run(["mvn", *goals], capture_output=True, text=True)
            assert online.returncode == 0, online.stdout + online.stderr
    return open(CLASSPATH).read().strip()


def read_events(path):
    """The events of a .jhist[.inprogress] as TonY's classes read them: [(class, record)]."""
    r = subprocess.run(["java", "-cp", reader_classpath(),
                        os.path.join(READER_DIR, "ReadJhist.java"), path],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = []
    for line in r.stdout.splitlines():
        e = json.loads(line)
        out.append((e["class"].rsplit(".", 1)[1], e["record"]))
    return out
