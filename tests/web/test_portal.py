"""`tony portal` in a real browser (README "The portal"): headless Chromium, driven by Debian's
chromium-driver through Debian's python3-selenium, loads the pages of jobs that just ran on the
local engine and checks what they show. Each page's screenshot is kept under the test's tmp dir
(screenshots/), the artifact to look at when an assertion fails."""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import urllib.error
import urllib.request

import pytest

from tonytest import SYSTEM_PYTHON, TONY_BIN, eventually, job_id_from, tony_xml, write

selenium = pytest.importorskip("selenium", reason="needs Debian's python3-selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

# Worker 1 fails with exit 3 when MODE=fail; with a SYNC_DIR each worker waits for its go file.
SCRIPT = """
import os, sys, time
index = int(os.environ["TASK_INDEX"])
print(f"worker {index} says <hello>", flush=True)
sync = os.environ.get("SYNC_DIR")
while sync and not os.path.exists(os.path.join(sync, "go")):
    time.sleep(0.05)
if os.environ.get("MODE") == "hold":  # worker 0 holds 200 MiB, resident, for a few samples
    block = bytearray((200 if index == 0 else 1) * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(1.5)
if os.environ.get("MODE") == "fail" and index == 1:
    print("worker 1 gives up", file=sys.stderr, flush=True)
    sys.exit(3)
"""


def submit_args(tmp_path, name, *env, **props):
    src = tmp_path / "src"
    write(str(src / "job.py"), SCRIPT)
    conf = tony_xml(str(tmp_path / f"{name}.xml"), {
        "tony.application.framework": "pytorch", "tony.application.name": name,
        "tony.worker.instances": "2", "tony.worker.memory": "512m", **props})
    shell_env = [a for e in env for a in ("--shell_env", e)]
    return ["submit", "--executes", "job.py", "--python_binary_path", SYSTEM_PYTHON,
            "--src_dir", str(src), "--conf_file", conf, *shell_env]


@pytest.fixture
def portal(tony):
    """`tony portal --port 0` on this test's TONY_HOME; yields the URL it printed."""
    proc = subprocess.Popen([TONY_BIN, "portal", "--port", "0"], env=tony.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    line = proc.stdout.readline() if ready else ""
    m = re.search(r"on (http://127\.0\.0\.1:\d+/)$", line.strip())
    assert m, f"no URL from tony portal: {line!r} {proc.poll()}"
    yield m.group(1).rstrip("/")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0, proc.stderr.read()


@pytest.fixture
def browser(tmp_path):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000", f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class Pages:
    """Loads pages and keeps a screenshot of each under tmp_path/screenshots."""

    def __init__(self, browser, url, tmp_path):
        self.browser, self.url = browser, url
        self.dir = tmp_path / "screenshots"
        self.dir.mkdir(exist_ok=True)

    def shot(self, name):
        path = self.dir / f"{name}.png"
        assert self.browser.save_screenshot(str(path)), path
        assert path.stat().st_size > 0

    def rows(self, table):
        """The table's rows as lists of cell texts, header row left out."""
        return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in self.browser.find_elements(By.CSS_SELECTOR, f"table#{table} tr")[1:]]

    def states_now(self, table):
        """The states (2nd column) in `table`, read in one script call so that they come from one
        document; None while the page is being reloaded (its elements or its script context are
        gone then, which the driver reports as one of several WebDriverExceptions)."""
        try:
            return set(self.browser.execute_script(
                f"return [...document.querySelectorAll('table#{table} tr')].slice(1)"
                ".map(tr => tr.cells[1].textContent)"))
        except WebDriverException:
            return None


def test_jobs_list_job_page_config_and_logs(tony, portal, browser, tmp_path):
    ok = tony.run(*submit_args(tmp_path, "portal-ok"))
    assert ok.returncode == 0, ok.stderr
    failed = tony.run(*submit_args(tmp_path, "portal-fail", "MODE=fail"))
    assert failed.returncode != 0, failed.stdout
    # The ids' order is not the submissions' within one second: each job's own output names it.
    ok_id, failed_id = (job_id_from(r.stdout + r.stderr) for r in (ok, failed))
    assert sorted([ok_id, failed_id]) == tony.jobs(), (ok.stderr, failed.stderr)
    pages = Pages(browser, portal, tmp_path)

    browser.get(portal + "/")
    pages.shot("jobs")
    jobs = {r[0]: r for r in pages.rows("jobs")}
    assert set(jobs) == {ok_id, failed_id}, jobs
    # job, name, user, framework, queue, state, started, duration, tasks, message
    assert jobs[ok_id][1] == "portal-ok" and jobs[ok_id][5] == "SUCCEEDED", jobs[ok_id]
    assert jobs[failed_id][5] == "FAILED" and jobs[failed_id][8] == "2", jobs[failed_id]
    assert jobs[ok_id][3] == "pytorch", jobs[ok_id]

    browser.get(portal + "/?q=portal-fail")
    pages.shot("jobs-filtered")
    assert [r[0] for r in pages.rows("jobs")] == [failed_id]

    browser.get(portal + "/")
    browser.find_element(By.LINK_TEXT, failed_id).click()
    pages.shot("job")
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Job {failed_id}"
    tasks = {r[0]: r for r in pages.rows("tasks")}
    # task, state, attempt, host, exit, why it ended, logs
    assert tasks["worker:1"][1] == "FAILED" and tasks["worker:1"][4] == "exit 3", tasks
    assert tasks["worker:0"][1] in ("SUCCEEDED", "STOPPED"), tasks
    assert tasks["worker:1"][3] == "127.0.0.1", tasks
    events = pages.rows("events")
    assert ["job", "", "FAILED"] == events[-1][1:4], events[-1]
    assert any(e[1] == "worker:1" and e[3] == "RUNNING" for e in events), events

    browser.find_element(By.LINK_TEXT, "configuration").click()
    pages.shot("config")
    config = dict(r for r in pages.rows("config"))
    assert config["tony.worker.instances"] == "2", config
    assert config["tony.application.name"] == "portal-fail", config

    browser.back()
    browser.find_element(By.CSS_SELECTOR, "tr#task-worker\\%3A1 a[href*='stream=stderr']").click()
    pages.shot("log-stderr")
    assert "worker 1 gives up" in browser.find_element(By.ID, "log").text

    browser.get(f"{portal}/logs/{ok_id}")
    pages.shot("logs")
    browser.find_element(By.CSS_SELECTOR, "a[href*='worker%3A0'][href*='stream=stdout']").click()
    assert browser.find_element(By.ID, "log").text == "worker 0 says <hello>"

    with urllib.request.urlopen(f"{portal}/api/jobs?q=portal") as r:
        listed = {j["job_id"]: j for j in json.load(r)["jobs"]}
    assert {i: j["state"] for i, j in listed.items()} == {ok_id: "SUCCEEDED", failed_id: "FAILED"}
    with urllib.request.urlopen(f"{portal}/api/jobs/{failed_id}") as r:
        assert json.load(r) == tony.status(failed_id)
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{portal}/api/jobs/no-such-job")
    assert missing.value.code == 404 and "no job no-such-job" in json.load(missing.value)["error"]

    browser.get(f"{portal}/jobs/no-such-job")
    pages.shot("not-found")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert sorted(os.listdir(pages.dir)) == sorted(
        f"{n}.png" for n in ("jobs", "jobs-filtered", "job", "config", "log-stderr", "logs",
                             "not-found"))


def test_the_memory_chart_and_the_start_up_bar(tony, portal, browser, tmp_path):
    ran = tony.run(*submit_args(tmp_path, "portal-memory", "MODE=hold",
                                **{"tony.task.metrics-interval-ms": "100"}))
    assert ran.returncode == 0, ran.stderr
    job = job_id_from(ran.stdout + ran.stderr)
    pages = Pages(browser, portal, tmp_path)
    browser.get(f"{portal}/jobs/{job}")
    svg = browser.find_element(By.CSS_SELECTOR, "svg#memory")
    browser.execute_script("arguments[0].scrollIntoView()", svg)
    pages.shot("job-memory")
    peaks = {r.get_attribute("data-task"): float(r.get_attribute("data-value"))
             for r in svg.find_elements(By.CSS_SELECTOR, "rect.max")}
    means = {r.get_attribute("data-task"): float(r.get_attribute("data-value"))
             for r in svg.find_elements(By.CSS_SELECTOR, "rect.avg")}
    limits = {r.get_attribute("data-task"): float(r.get_attribute("data-value"))
              for r in svg.find_elements(By.CSS_SELECTOR, "line.limit")}
    assert set(peaks) == set(means) == set(limits) == {"worker:0", "worker:1"}, peaks
    recorded = {f"{t['role']}:{t['index']}": {m["name"]: m["value"] for m in t["metrics"]}
                for t in tony.status(job)["tasks"]}
    for task, metrics in recorded.items():
        assert peaks[task] == pytest.approx(metrics["MAX_MEMORY_BYTES"], abs=0.1), task
        assert means[task] == pytest.approx(metrics["AVG_MEMORY_BYTES"], abs=0.1), task
        assert limits[task] == 512 * 1024 * 1024
    assert peaks["worker:0"] > 200 * 1024 * 1024 > peaks["worker:1"] > 0, peaks
    # The bars are drawn to scale: worker 0's peak bar is the longer.
    widths = {r.get_attribute("data-task"): r.size["width"]
              for r in svg.find_elements(By.CSS_SELECTOR, "rect.max")}
    assert widths["worker:0"] > widths["worker:1"] > 0, widths

    # The start-up bar: three stages, each as long as the events say, adding up to its label.
    startup = browser.find_element(By.CSS_SELECTOR, "svg#startup")
    stages = {r.get_attribute("data-stage"): int(r.get_attribute("data-ms"))
              for r in startup.find_elements(By.CSS_SELECTOR, "rect.stage")}
    assert list(stages) == ["containers allocated", "executors registered",
                            "user processes running"], stages
    events = [json.loads(line) for line in open(os.path.join(tony.job_dir(job), "events.jsonl"))]
    running = max(e["time_ms"] for e in events if e.get("state") == "RUNNING")
    started = int(tony.status(job)["start_wall_ms"])
    assert sum(stages.values()) == running - started, (stages, running - started)
    assert startup.find_element(By.TAG_NAME, "text").text == f"{running - started} ms"


def test_a_running_jobs_page_refreshes_until_it_ends(tony, portal, browser, tmp_path):
    sync = tmp_path / "sync"
    sync.mkdir()
    proc = tony.start(*submit_args(tmp_path, "portal-live", f"SYNC_DIR={sync}"))
    try:
        job = eventually(lambda: tony.running_job(tasks=2), timeout=60, what="both workers run")
        pages = Pages(browser, portal, tmp_path)
        browser.get(f"{portal}/jobs/{job}")
        pages.shot("job-running")
        assert {r[1] for r in pages.rows("tasks")} == {"RUNNING"}
        (sync / "go").touch()
        # No reload from the test: the page's own refresh shows the end.
        eventually(lambda: pages.states_now("tasks") == {"SUCCEEDED"}, timeout=30,
                   what="the page showing both workers SUCCEEDED")
        pages.shot("job-ended")
        assert browser.find_element(By.CSS_SELECTOR, "#summary .state").text == "SUCCEEDED"
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_bad_port_and_history_dir_are_errors_naming_them(tony, tmp_path):
    bad_port = subprocess.run([TONY_BIN, "portal", "--port", "70000"], env=tony.env,
                              capture_output=True, text=True, timeout=30)
    assert bad_port.returncode == 2 and "--port 70000" in bad_port.stderr, bad_port.stderr
    missing = str(tmp_path / "missing")
    bad_dir = subprocess.run([TONY_BIN, "portal", "--port", "0", "--history", missing],
                             env=tony.env, capture_output=True, text=True, timeout=30)
    assert bad_dir.returncode == 2 and f"--history {missing}: not a directory" in bad_dir.stderr
