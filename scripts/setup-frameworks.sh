#!/usr/bin/env bash
# Installs the real ML frameworks the `frameworks` test tier and examples/ use, each from PyPI into
# its own virtualenv under /opt (override with TONY_FRAMEWORKS_ROOT): their numpy pins conflict
# with each other and with Debian's python3-torch (numpy 1.24), which stays the system python's.
#   /opt/tony-tf     tensorflow-cpu 2.15.1 (Keras 2; numpy < 2)
#   /opt/tony-jax    jax[cpu] 0.10.2 (jax + jaxlib)
#   /opt/tony-mxnet  mxnet 1.9.1 with numpy < 1.24 (mxnet uses np.bool, removed in 1.24)
# Idempotent and quiet: an environment whose module already imports is left alone.
set -euo pipefail

root="${TONY_FRAMEWORKS_ROOT:-/opt}"

# venv_with NAME IMPORT_MODULE PIP_ARGS...: makes $root/NAME and pip-installs PIP_ARGS into it
# unless IMPORT_MODULE already imports there.
venv_with() {
  local name="$1" module="$2"
  shift 2
  local py="$root/$name/bin/python"
  if [ -x "$py" ] && "$py" -c "import $module" >/dev/null 2>&1; then
    return 0
  fi
  echo "setup-frameworks: installing $* into $root/$name"
  [ -x "$py" ] || python3 -m venv "$root/$name"
  "$py" -m pip install --quiet --disable-pip-version-check "$@"
  "$py" -c "import $module" >/dev/null
}

if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    python3-venv
fi

venv_with tony-tf tensorflow "tensorflow-cpu==2.15.1"
venv_with tony-jax jax "jax[cpu]==0.10.2"
venv_with tony-mxnet mxnet "numpy<1.24" "mxnet==1.9.1"
