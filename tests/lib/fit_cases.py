"""The fit check's cases (fit_cases.txt, whose header says the format), for the local and YARN
tiers; tests/unit/fit_check_test.cc reads the same file."""
import os

TABLE = os.path.join(os.path.dirname(__file__), "fit_cases.txt")


def load(engine):
    """The cases `engine` ("local" or "yarn") can express: dicts with name, file and flag
    ({key: value}) and names (the texts its refusal contains, {file} unexpanded)."""
    cases, case = [], None
    with open(TABLE) as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            if word == "case":
                case = {"name": rest, "engines": [], "file": {}, "flag": {}, "names": []}
                cases.append(case)
            elif word == "engines":
                case["engines"] = rest.split()
            elif word in ("file", "flag"):
                key, _, value = rest.partition("=")
                case[word][key] = value
            elif word == "names":
                case["names"].append(rest)
            elif word.startswith("names@"):
                if engine in word[len("names@"):].split(","):
                    case["names"].append(rest)
            else:
                raise ValueError(f"{TABLE}:{number}: unknown line {line!r}")
    return [c for c in cases if engine in c["engines"]]


def expected(case, xml_path):
    return [n.replace("{file}", xml_path) for n in case["names"]]
