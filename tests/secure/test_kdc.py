"""The KDC fixture (tests/lib/kdc.py) on its own: a realm in a temp dir, keytabs, kinit, and the
KDC's refusals, checked with MIT's own tools (the secure minicluster's tests build on this)."""
import os
import subprocess

import pytest

from kdc import KdcError, running_kdc


@pytest.fixture(scope="module")
def kdc():
    with running_kdc() as k:
        yield k


def test_kinit_from_keytab_puts_a_ticket_in_the_realms_cache(kdc, tmp_path):
    keytab = str(tmp_path / "bob.keytab")
    kdc.add_principal("bob", keytab)
    ccache = str(tmp_path / "cc")
    kdc.kinit("bob", keytab, ccache)
    out = subprocess.run(["klist"], env=kdc.env(ccache), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert f"Default principal: bob@{kdc.realm}" in out.stdout
    assert f"krbtgt/{kdc.realm}@{kdc.realm}" in out.stdout


def test_a_service_ticket_is_issued_for_a_host_principal(kdc, tmp_path):
    keytab = str(tmp_path / "svc.keytab")
    kdc.add_principal("svc/localhost", keytab)
    user_keytab = str(tmp_path / "carol.keytab")
    kdc.add_principal("carol", user_keytab)
    ccache = str(tmp_path / "cc")
    kdc.kinit("carol", user_keytab, ccache)
    out = subprocess.run(["kvno", "svc/localhost"], env=kdc.env(ccache), capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert f"svc/localhost@{kdc.realm}: kvno = 1" in out.stdout


def test_a_keytab_of_another_principal_is_refused(kdc, tmp_path):
    keytab = str(tmp_path / "dave.keytab")
    kdc.add_principal("dave", keytab)
    kdc.add_principal("erin")
    with pytest.raises(KdcError, match="erin"):
        kdc.kinit("erin", keytab, str(tmp_path / "cc"))
