#!/usr/bin/env python3
"""Only config/ writes tony.* names (config/key_names.h): the product's other folders name a key
through config/'s constants and helpers (keys::kAmMemory, keys::ForRole(keys::kRoleMemory, role)),
so that a key is renamed in one place and a message cannot name a key that does not exist. Fails
naming each string literal outside config/ that holds a tony.* name, a piece of one ("tony." +
role) or a per-role template ("tony.<role>.memory"). Comments may name keys: they are skipped.
Usage: check_keys.py <repository root>"""
import os
import re
import sys

# Top-level folders that are not the product, or that may write key names.
SKIPPED = {"config", "tests", "fuzz", "docs", "bench", "examples"}
SOURCE = (".cc", ".h", ".c")
# "tony." where a name starts: not inside a longer word, path or Java package
# ("com.linkedin.tony.events", "rpc/tony.pb.h"), and followed by a name, a template or the
# literal's end.
KEY = re.compile(r"(?<![\w./-])tony\.(?:[a-z<][\w.<>-]*|$)")
# File names, not keys.
NOT_KEYS = {"tony.xml"}


# What the scan tells apart in C++ source: comments and #include lines (skipped), character
# literals (so that '"' opens no string; not after a digit, where ' separates digits), raw and
# ordinary string literals.
TOKEN = re.compile(r"""
    //[^\n]*
  | /\*.*?\*/
  | ^[ \t]*\#[ \t]*include[^\n]*
  | (?<![\w])(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'
  | (?<![\w])(?:u8|[uUL])?R"(?P<delim>[^(\s]*)\((?P<raw>.*?)\)(?P=delim)"
  | (?<![\w])(?:u8|[uUL])?"(?P<plain>(?:\\.|[^"\\\n])*)"
""", re.S | re.M | re.X)


def string_literals(text):
    """(line, contents) of each string literal of C++ source `text`, comments skipped."""
    line, at = 1, 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", at, m.start())
        at = m.start()
        contents = m.group("raw") if m.group("raw") is not None else m.group("plain")
        if contents is not None:
            yield line, contents


def key_names(literal):
    return [m.group(0) for m in KEY.finditer(literal) if m.group(0) not in NOT_KEYS]


def product_sources(root):
    for top in sorted(os.listdir(root)):
        path = os.path.join(root, top)
        if (top in SKIPPED or top.startswith(".") or not os.path.isdir(path)
                or os.path.exists(os.path.join(path, "CMakeCache.txt"))):  # a build tree
            continue
        for dirpath, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE):
                    yield os.path.join(dirpath, name)


def main(root):
    found = []
    scanned = 0
    for path in product_sources(root):
        scanned += 1
        with open(path, errors="replace") as f:
            text = f.read()
        for line, literal in string_literals(text):
            for name in key_names(literal):
                found.append(f"{os.path.relpath(path, root)}:{line}: {name!r} in \"{literal}\"")
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} tony.* name(s) written outside config/: name them with "
              "config/key_names.h's constants (keys::ForRole for a role's key)")
        return 1
    print(f"keys_in_config: no tony.* name in the string literals of {scanned} files outside "
          "config/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
