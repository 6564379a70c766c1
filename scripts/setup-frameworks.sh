#!/usr/bin/env bash
# Installs the real ML frameworks the `frameworks` test tier and examples/ use, each from PyPI into
# its own virtualenv under /opt (override with TONY_FRAMEWORKS_ROOT): their numpy pins conflict
# with each other and with Debian's python3-torch (numpy 1.24), which stays the system python's.
#   /opt/tony-tf     tensorflow-cpu 2.15.1 (Keras 2; numpy < 2)
#   /opt/tony-jax    jax[cpu] 0.10.2 (jax + jaxlib)
#   /opt/tony-mxnet  mxnet 1.9.1 with numpy < 1.24 (mxnet uses np.bool, removed in 1.24)
#   /opt/tony-webhdfs fsspec + requests: the Python WebHDFS client the secure tier's tasks read
#                    HDFS with (tests/secure/test_secure_data.py)
#   /opt/tony-hvd    horovod 0.28.1 built from its sdist with PyTorch and gloo against Debian's
#                    python3-torch (a venv with system site packages; about 10 minutes on 2 cores)
# Idempotent and quiet: an environment whose module already imports is left alone.
# Usage: scripts/setup-frameworks.sh [tf|jax|mxnet|webhdfs|hvd ...]   (default: all five; the
# Debian packages they build with are installed first in any case)
set -euo pipefail
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(tf jax mxnet webhdfs hvd)
for w in "${wanted[@]}"; do
  case "$w" in
    tf | jax | mxnet | webhdfs | hvd) ;;
    *)
      echo "setup-frameworks: no environment named $w (tf, jax, mxnet, webhdfs, hvd)" >&2
      exit 2
      ;;
  esac
done
want() { [[ " ${wanted[*]} " == *" $1 "* ]]; }

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
  [ -x "$py" ] || /usr/bin/python3 -m venv "$root/$name"
  "$py" -m pip install --quiet --disable-pip-version-check "$@"
  TF_CPP_MIN_LOG_LEVEL=2 "$py" -c "import $module" >/dev/null
}

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
# python3-venv for the venvs; libtorch-dev (the headers python3-torch lacks), pybind11-dev, cmake
# and g++ to build horovod's PyTorch extension.
missing=()
for p in python3-venv python3-torch libtorch-dev pybind11-dev cmake g++; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-frameworks: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

want tf && venv_with tony-tf tensorflow "tensorflow-cpu==2.15.1"
want jax && venv_with tony-jax jax "jax[cpu]==0.10.2"
want mxnet && venv_with tony-mxnet mxnet "numpy<1.24" "mxnet==1.9.1"
want webhdfs && venv_with tony-webhdfs fsspec.implementations.webhdfs fsspec requests
want hvd || exit 0

# Horovod's last release builds only from source; its build must see Debian's torch (hence the
# system site packages and no build isolation) and its build requirements.
hvd_py="$root/tony-hvd/bin/python"
if ! { [ -x "$hvd_py" ] && "$hvd_py" -c "import horovod.torch" >/dev/null 2>&1; }; then
  echo "setup-frameworks: building horovod 0.28.1 (PyTorch, gloo) into $root/tony-hvd"
  [ -x "$hvd_py" ] || /usr/bin/python3 -m venv --system-site-packages "$root/tony-hvd"
  "$hvd_py" -m pip install --quiet --disable-pip-version-check \
    cloudpickle psutil pyyaml packaging wheel setuptools cffi
  HOROVOD_WITH_PYTORCH=1 HOROVOD_WITHOUT_TENSORFLOW=1 HOROVOD_WITHOUT_MXNET=1 \
    HOROVOD_WITH_GLOO=1 HOROVOD_WITHOUT_MPI=1 MAKEFLAGS=-j2 \
    nice "$hvd_py" -m pip install --quiet --disable-pip-version-check \
    --no-build-isolation --no-cache-dir "horovod==0.28.1"
  "$hvd_py" -c "import horovod.torch" >/dev/null
fi
