"""torchrun (torch.distributed.run) of Debian's python3-torch 1.13, run under Python 3.11 with
one fix: 1.13's `Std.from_str("0")` looks the value up by iterating the IntFlag `Std`, and
Python 3.11 no longer yields the zero member NONE when iterating a flag, so it returns None and
every launch dies in `to_map` ("'NoneType' object has no attribute 'get'"). This launcher maps a
single digit to `Std(int)` and runs torchrun's own `main` unchanged otherwise.

With TORCHRUN_WORKER_SESSIONS=1 in its environment it also starts each worker in its own session
(`start_new_session=True`; torchrun starts them in its own). With the kernel's autogroup
scheduling a session is a CPU-sharing unit, so on a loaded machine torchrun's workers otherwise
share one CPU share while tony's local engine gives each task its own.

usage: [TORCHRUN_WORKER_SESSIONS=1] /usr/bin/python3 bench/torchrun_py311.py [torchrun's arguments]
"""
import os
import re
import subprocess
import sys

from torch.distributed import run
from torch.distributed.elastic.multiprocessing import api

_from_str = api.Std.from_str.__func__


def _fixed_from_str(cls, vm):
    if re.match(api._VALUE_REGEX, vm):
        return cls(int(vm))
    return _from_str(cls, vm)


def _popen_own_session(self, args, env):
    return subprocess.Popen(args=args, env=env, stdout=self._stdout, stderr=self._stderr,
                            start_new_session=True)


api.Std.from_str = classmethod(_fixed_from_str)
if os.environ.get("TORCHRUN_WORKER_SESSIONS") == "1":
    api.SubprocessHandler._popen = _popen_own_session

if __name__ == "__main__":
    sys.exit(run.main())
