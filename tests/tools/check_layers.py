#!/usr/bin/env python3
"""The product's folders and what each may include (docs/architecture.md §2): a dependency points
down this list, never up or sideways, so that a folder builds and is understood with only what
is below it. Fails naming each #include that breaks the rule.
Usage: check_layers.py <repository root>"""
import os
import re
import sys

# Each folder, highest first, with the folders it may include.
ALLOWED = {
    "cli": {"client", "coordinator", "executor", "engine", "history", "runtime", "rpc", "hadoop",
            "config", "common"},
    "client": {"engine", "history", "runtime", "rpc", "hadoop", "config", "common"},
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
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main(root):
    broken = []
    for folder, allowed in ALLOWED.items():
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1) != folder and m.group(1) in ALLOWED \
                                and m.group(1) not in allowed:
                            broken.append(f"{os.path.relpath(path, root)}:{number}: {folder}/ may "
                                          f"not include {m.group(1)}/ ({line.strip()})")
    for b in broken:
        print(b)
    if broken:
        print(f"{len(broken)} include(s) against the layering of docs/architecture.md §2")
        return 1
    print(f"layering: every include of {len(ALLOWED)} folders points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
