#!/usr/bin/env python3
"""The product's folders and what each may include (docs/architecture.md §2): a dependency points
down this list, never up or sideways, so that a folder builds and is understood with only what
is below it. A folder may be a sub-folder (engine/yarn/client), or one source file and its header
(engine/factory: engine/factory.h and .cc): its files belong to it, not to the folder above it,
and an include of one of its headers counts as an include of it. Fails naming each #include that
breaks the rule.
Usage: check_layers.py <repository root>"""
import os
import re
import sys

# Each folder, highest first, with the folders it may include.
ALLOWED = {
    "cli": {"engine/factory", "engine/yarn/client", "engine/local/client", "client",
            "coordinator", "executor", "portal", "engine", "history", "runtime", "rpc", "hadoop",
            "config", "common"},
    # The one factory of the engines' client faces: the only file that names them all.
    "engine/factory": {"engine/yarn/client", "engine/local/client", "client", "engine", "history",
                       "runtime", "rpc", "hadoop", "config", "common"},
    # Each engine's client face: what the client does on that engine, built on client/'s
    # engine-neutral pieces. The coordinator and the engines' AM side never include it.
    "engine/yarn/client": {"client", "engine", "history", "runtime", "rpc", "hadoop", "config",
                           "common"},
    "engine/local/client": {"client", "engine", "history", "runtime", "rpc", "hadoop", "config",
                            "common"},
    # Engine-neutral: the faces reach it through client/engine_face.h, from the factory.
    "client": {"engine", "history", "runtime", "rpc", "hadoop", "config", "common"},
    "coordinator": {"engine", "history", "runtime", "rpc", "hadoop", "config", "common"},
    "executor": {"runtime", "rpc", "hadoop", "config", "common"},
    # `tony portal`: reads the job records, never a live coordinator or an engine.
    "portal": {"history", "rpc", "config", "common"},
    "engine": {"history", "rpc", "hadoop", "config", "common"},
    "history": {"rpc", "config", "common"},
    "runtime": {"config", "common"},
    "rpc": {"hadoop", "config", "common"},
    "hadoop": {"config", "common"},
    "config": {"common"},
    "common": set(),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+/[^"]+)"')


def layer_of(path):
    """The folder of ALLOWED that the file `path` (relative to the root) belongs to: the longest
    one that is the file without its extension, or a folder above it; None outside the product."""
    parts = os.path.splitext(path)[0].split("/")
    for n in range(len(parts), 0, -1):
        if "/".join(parts[:n]) in ALLOWED:
            return "/".join(parts[:n])
    return None


def main(root):
    broken = []
    for folder in ALLOWED:
        if "/" in folder:
            continue  # walked with its top folder
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                layer = layer_of(os.path.relpath(path, root))
                allowed = ALLOWED[layer]
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        included = layer_of(m.group(1)) if m else None
                        if included is not None and included != layer \
                                and included not in allowed:
                            broken.append(f"{os.path.relpath(path, root)}:{number}: {layer}/ may "
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
