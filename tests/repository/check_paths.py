#!/usr/bin/env python3
"""A clone is the product: no committed file may read a path outside the repository.

usage: check_paths.py REPOSITORY_ROOT
       check_paths.py --self-test     (the check finds planted escapes and passes clean files)

Scans every file git tracks (or, without git, every file under the root except build
outputs) and fails, naming file and line, on

  1. a relative path with '..' components that leaves the repository, resolved both from
     the file's own directory and from the repository root (scripts run from either);
     a path after a shell/CMake variable that names the repository root ($root, $here,
     ${PROJECT_SOURCE_DIR}, sourceDir() + "...") is resolved from the directory that
     variable stands for;
  2. a mention of the team's folder beside the repository (`shared/fixtures`,
     `shared/tools`, `shared/papers`, `shared/reference`), which a user's clone lacks.

Exit 0 when clean, 1 with one line per finding.
"""
import os
import re
import subprocess
import sys

TEAM_FOLDER = re.compile(r"(?<![\w.-])(?:\.\./)*shared/(?:fixtures|tools|papers|reference)\b")
# A path-like token: no blanks, quotes, brackets or separators.
TOKEN = re.compile(r"[^\s\"'`()<>,;|]+")
# Variables (and expressions) that stand for the repository root or the file's directory,
# at the start of a token or just before it.
ROOT_VARIABLES = re.compile(r"^\$\{?(root|ROOT|repo|REPO|top|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|source_dir)\}?(?=/|$)")
HERE_VARIABLES = re.compile(r"^\$\{?(here|HERE|script_dir|CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}?(?=/|$)")
ROOT_BEFORE = re.compile(r"(sourceDir\(\)|\$\{?(root|here)\}?)\s*\+?\s*\"?$")
SKIP_SUFFIXES = (".png", ".gz", ".svg", ".pdf", ".jpg")
SELF = os.path.join("tests", "repository", "check_paths.py")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
        if names:
            return names
    except (OSError, subprocess.CalledProcessError):
        pass
    names = []
    for directory, subdirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        subdirs[:] = [d for d in subdirs if not (d.startswith("build") or d == ".git")]
        names += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return names


def escapes(base, path, root):
    """True if `path` (relative, from directory `base`) resolves outside `root`."""
    resolved = os.path.normpath(os.path.join(base, path))
    return os.path.relpath(resolved, root).startswith("..")


def findings_in(root, name):
    if name.endswith(SKIP_SUFFIXES) or name == SELF:
        return []
    try:
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (UnicodeDecodeError, OSError):
        return []
    file_dir = os.path.dirname(os.path.join(root, name))
    found = []
    for number, line in enumerate(lines, 1):
        if TEAM_FOLDER.search(line):
            found.append(f"{name}:{number}: names the team folder beside the repository: {line.strip()[:120]}")
            continue
        for match in TOKEN.finditer(line):
            token = match.group(0)
            if ".." not in token.split("/"):
                continue
            before = line[: match.start()]
            if ROOT_VARIABLES.match(token):
                bases, path = [root], ROOT_VARIABLES.sub("", token).lstrip("/")
            elif HERE_VARIABLES.match(token):
                bases, path = [file_dir], HERE_VARIABLES.sub("", token).lstrip("/")
            elif ROOT_BEFORE.search(before) and token.startswith("/"):
                bases, path = [root], token.lstrip("/")
            elif token.startswith("$") or token.startswith("/"):
                continue  # another variable or an absolute path: not a relative read
            else:
                bases, path = [file_dir, root], token
            if all(escapes(base, path, root) for base in bases):
                found.append(f"{name}:{number}: '{token}' leaves the repository: {line.strip()[:120]}")
    return found


def self_test():
    """Plant escaping and harmless paths in a scratch tree; the check must tell them apart."""
    import tempfile
    cases = {
        "scripts/bad_root.sh": ('fixtures="$root/../shared/x"\n', 1),
        "tests/bad.cpp": ('std::string d = sourceDir() + "/../data";\n', 1),
        "experiments/bad.sh": ("cat ../../../etc/passwd\n", 1),
        "docs/bad.md": ("see `../shared/papers/x.txt`\n", 1),
        "docs/team.md": ("from shared/fixtures/opensm/README.md\n", 1),
        "experiments/x/good.sh": ('root="$(cd "$here/../.." && pwd)"\nls ../../tests/data\n', 0),
        "docs/good.md": ("XGFT(h; m1..mh; w1..wh), value '.' value ...\n", 0),
        "tests/good.cpp": ('std::string d = sourceDir() + "/tests/data/opensm";\n', 0),
    }
    failures = 0
    with tempfile.TemporaryDirectory() as root:
        for name, (text, _) in cases.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        for name, (_, expected) in cases.items():
            got = len(findings_in(root, name))
            if got != expected:
                print(f"self-test: {name}: {got} finding(s), expected {expected}")
                failures += 1
    print(f"check_paths self-test: {len(cases) - failures} of {len(cases)} cases right")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.realpath(argv[1])
    findings = []
    for name in tracked_files(root):
        findings += findings_in(root, name)
    for finding in findings:
        print(finding)
    print(f"check_paths: {len(findings)} path(s) outside the repository", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
