#!/usr/bin/env python3
"""The product's folders and what each may include (docs/architecture.md §2): a dependency points
down this list, never up or sideways, so that a folder builds and is understood with only what
is below it. A folder may be a sub-folder (engine/yarn/client): its files belong to it, not to the
folder above it, and an include of one of its headers counts as an include of it. Fails naming
each #include that breaks the rule.
Usage: check_layers.py <repository root>"""
import os
import re
import sys

# Each folder, highest first, with the folders it may include.
ALLOWED = {
    "cli": {"engine/yarn/client", "engine/local/client", "client", "coordinator", "executor",
            "engine", "history", "runtime", "rpc", "hadoop", "config", "common"},
    # Each engine's client face: what the client does on that engine, built on client/'s
    # engine-neutral pieces. The coordinator and the engines' AM side never include it.
    "engine/yarn/client": {"client", "engine", "history", "runtime", "rpc", "hadoop", "config",
                           "common"},
    "engine/local/client": {"client", "engine", "history", "runtime", "rpc", "hadoop", "config",
                            "common"},
    # client/submit.cc, job_control.cc and logs.cc still call the faces by name (issue 29).
    "client": {"engine/yarn/client", "engine/local/client", "engine", "history", "runtime", "rpc",
               "hadoop", "config", "common"},
    "coordinator": {"engine", "history", "runtime", "rpc", "hadoop", "config", "common"},
    "executor": {"runtime", "rpc", "hadoop", "config", "common"},
    "engine": {"history", "rpc", "hadoop", "config", "common"},
    "history": {"rpc", "config", "common"},
    "runtime": {"config", "common"},
    "rpc": {"hadoop", "config", "common"},
    "hadoop": {"config", "common"},
    "config": {"common"},
    "common": set(),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_/]+)/[^/"]+"')


def layer_of(path):
    """The folder of ALLOWED that `path` (a directory, relative to the root) belongs to: the
    longest one that is `path` or above it; None for a folder outside the product."""
    parts = path.split("/")
    for n in range(len(parts), 0, -1):
        if "/".join(parts[:n]) in ALLOWED:
            return "/".join(parts[:n])
    return None


def main(root):
    broken = []
    for folder, allowed in ALLOWED.items():
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            if layer_of(os.path.relpath(dirpath, root)) != folder:
                continue  # a sub-folder that is a folder of its own, checked as that
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        included = layer_of(m.group(1)) if m else None
                        if included is not None and included != folder \
                                and included not in allowed:
                            broken.append(f"{os.path.relpath(path, root)}:{number}: {folder}/ may "
                                          f"not include {included}/ ({line.strip()})")
    for b in broken:
        print(b)
    if broken:
        print(f"{len(broken)} include(s) against the layering of docs/architecture.md §2")
        return 1
    print(f"layering: every include of {len(ALLOWED)} folders points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
