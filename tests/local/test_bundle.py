"""The bundle `tony submit` ships to YARN (client/bundle.h): tony plus every shared library it
loads except glibc's and the loader. Unpacked anywhere, bin/tony must load its libraries from the
bundle's lib/ and run on a machine that has nothing but glibc."""
import os
import re
import shutil
import subprocess
import tarfile

import pytest

from tonytest import TONY_BIN

GLIBC = re.compile(r"^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl)\.so\.\d+$"
                   r"|^ld-linux.*|^ld64\.so.*|^libnss_.*")


def loader_listing(binary, env=None):
    """(soname, resolved path or None) for each library the dynamic loader loads for `binary`."""
    out = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, check=True).stdout
    libs = []
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"^(\S+) => (not found|(\S+) \(0x[0-9a-f]+\))$", line)
        if m:
            libs.append((m.group(1), m.group(3)))
        elif line.startswith("/"):
            path = line.split(" (0x")[0]
            libs.append((os.path.basename(path), path))
    return libs


@pytest.fixture
def bundle(tony, tmp_path):
    r = tony.run("bundle")
    assert r.returncode == 0, r.stdout + r.stderr
    path = r.stdout.strip()
    assert path.startswith(os.path.join(tony.home, "cache", "bundle-")) and path.endswith(".tar.gz")
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    with tarfile.open(path) as tar:
        tar.extractall(unpacked)
    return path, str(unpacked)


def test_bundle_holds_tony_and_its_libraries_but_not_glibc(tony, bundle):
    path, root = bundle
    libs = sorted(os.listdir(os.path.join(root, "lib")))
    assert os.access(os.path.join(root, "bin", "tony"), os.X_OK)
    needed = {name for name, _ in loader_listing(TONY_BIN) if not GLIBC.match(name)}
    assert {"libstdc++.so.6", "libgcc_s.so.1"} <= needed  # a node's may be older than ours
    assert needed <= set(libs), needed - set(libs)
    assert not [l for l in libs if GLIBC.match(l)], libs
    # The executor's port-hold library, preloaded into user processes: it needs nothing but glibc.
    assert "libtony-reuseport.so" in libs, libs
    shim_needs = loader_listing(os.path.join(root, "lib", "libtony-reuseport.so"))
    assert all(GLIBC.match(name) for name, _ in shim_needs), shim_needs
    # Not rebuilt on the next call: the same file comes back, and no scratch dir is left.
    again = tony.run("bundle")
    assert again.returncode == 0 and again.stdout.strip() == path, again.stdout + again.stderr
    cache = os.path.dirname(path)
    name = os.path.basename(path)
    assert sorted(os.listdir(cache)) == [name, name + ".sha256"], os.listdir(cache)


def test_every_library_but_glibc_resolves_inside_the_bundle(bundle):
    _, root = bundle
    binary = os.path.join(root, "bin", "tony")
    lib_dir = os.path.realpath(os.path.join(root, "lib"))
    # LD_LIBRARY_PATH pointing at the system's copies must not win over the bundle's rpath.
    env = dict(os.environ, LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu")
    listing = loader_listing(binary, env)
    assert listing
    for name, path in listing:
        if GLIBC.match(name):
            continue
        assert path is not None, f"{name} not found"
        assert os.path.dirname(os.path.realpath(path)) == lib_dir, (name, path)
    r = subprocess.run([binary, "--version"], env=dict(env, LD_BIND_NOW="1"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.startswith("tony "), r.stdout + r.stderr


def run_in_root(root, argv):
    """Runs argv with `root` as / and a /proc of its own (the loader reads /proc/self/exe to
    expand $ORIGIN; every node has one): mount and PID namespaces, plus a user namespace when
    not root."""
    userns = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    cmd = [shutil.which("unshare") or "/usr/bin/unshare", *userns, "--mount", "--pid", "--fork",
           f"--root={root}", "--mount-proc=/proc", *argv]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60, env={"PATH": "/bin", "LD_BIND_NOW": "1"})


def test_bundled_tony_runs_where_only_glibc_is_installed(bundle, tmp_path):
    """A root file system with glibc and the loader only (what any Linux node has): the bundled
    tony runs, and the same tony without its bundle cannot even start there."""
    _, unpacked = bundle
    if any(l.startswith(("libasan", "libubsan", "libtsan")) for l in os.listdir(os.path.join(unpacked, "lib"))):
        pytest.skip("the sanitizer runtime reads /proc, which this minimal root has not")
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    for name, path in loader_listing(os.path.join(unpacked, "bin", "tony")):
        if GLIBC.match(name):
            dest = str(root) + path
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy(os.path.realpath(path), dest)
    shutil.copytree(unpacked, root / "opt" / "tony-bundle", symlinks=True)
    plain = root / "opt" / "plain"
    plain.mkdir(parents=True)
    shutil.copy(os.path.join(unpacked, "bin", "tony"), plain / "tony")

    probe = run_in_root(str(root), ["/opt/plain/tony", "--version"])
    if probe.returncode != 0 and "error while loading shared libraries" not in probe.stderr:
        pytest.skip(f"cannot run a program in a private root here (no user namespaces?):"
                    f" {probe.stderr.strip()[:200]}")
    # Control: outside the bundle the same binary misses its libraries in this root.
    assert probe.returncode != 0 and "error while loading shared libraries" in probe.stderr, (
        probe.stdout + probe.stderr)
    r = run_in_root(str(root), ["/opt/tony-bundle/bin/tony", "--version"])
    assert r.returncode == 0 and r.stdout.startswith("tony "), r.stdout + r.stderr
    r = run_in_root(str(root), ["/opt/tony-bundle/bin/tony", "--help"])
    assert r.returncode == 0 and "submit" in r.stdout, r.stdout + r.stderr


def test_a_tampered_cached_bundle_is_not_used(tony, bundle):
    """A bundle in the cache whose content is not what tony built (planted, or cut short) is
    built again instead of being shipped to every container."""
    path, _ = bundle
    with open(path, "wb") as f:
        f.write(b"#!/bin/sh\necho someone else's code\n")
    r = tony.run("bundle")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == path
    assert f"the cached bundle {path} does not match the SHA-256 recorded" in r.stderr, r.stderr
    with tarfile.open(path) as tar:  # a real bundle again
        assert "bin/tony" in tar.getnames()


def test_directories_another_user_could_have_planted_are_refused(tmp_path):
    """TONY_HOME, its cache and jobs dirs are tony's only when this user owns them and nobody
    else can write to them; a planted one is refused naming it, and nothing is written there."""
    from tonytest import Tony
    open_home = tmp_path / "open-home"
    open_home.mkdir()
    os.chmod(open_home, 0o777)
    tony = Tony(open_home)
    r = tony.run("submit", "--executes", "true", "--conf", "tony.worker.instances=1")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"TONY_HOME: {open_home} is writable by every user (mode 0777)" in r.stderr, r.stderr
    assert os.listdir(open_home) == []

    home = tmp_path / "home"
    (home / "cache").mkdir(parents=True)
    os.chmod(home / "cache", 0o775)
    tony = Tony(home)
    r = tony.run("bundle")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{home}/cache is writable by its group (mode 0775)" in r.stderr, r.stderr
    assert os.listdir(home / "cache") == []

    linked = tmp_path / "linked"
    (linked / "elsewhere").mkdir(parents=True)
    os.symlink(linked / "elsewhere", linked / "jobs")
    tony = Tony(linked)
    r = tony.run("submit", "--executes", "true", "--conf", "tony.worker.instances=1")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{linked}/jobs is a symbolic link" in r.stderr, r.stderr
    assert os.listdir(linked / "elsewhere") == []

    if os.geteuid() == 0:  # only root can give a directory to another user here
        foreign = tmp_path / "foreign"
        (foreign / "jobs").mkdir(parents=True)
        os.chown(foreign / "jobs", 65534, 65534)
        tony = Tony(foreign)
        r = tony.run("submit", "--executes", "true", "--conf", "tony.worker.instances=1")
        assert r.returncode == 2, r.stdout + r.stderr
        assert f"{foreign}/jobs is owned by uid 65534, not by you (uid 0)" in r.stderr, r.stderr
        assert os.listdir(foreign / "jobs") == []
