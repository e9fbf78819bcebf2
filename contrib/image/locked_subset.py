"""The entries of a hash-checked lock that a pip installation report says are needed.

    python locked_subset.py REPORT.json requirements-lock.txt > requirements.txt

contrib/image/build.sh asks pip, with the image's own Python, what the chosen plugins need
(``pip install --dry-run --report``), then installs only those lock entries, hashes and markers
as they are: an image without websearch carries none of websearch's dependencies.
"""

import json
import re
import sys


def canonical(text: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", text).group(0).lower().replace("_", "-").replace(".", "-")


def main(report_path: str, lock_path: str) -> None:
    with open(report_path) as report:
        needed = {canonical(item["metadata"]["name"]) for item in json.load(report)["install"]}
    with open(lock_path) as lock:
        entries = re.split(r"\n(?=[A-Za-z0-9])", lock.read())
    for entry in entries:
        if entry[:1].isalnum() and canonical(entry) in needed:
            print(entry.rstrip("\n"))


if __name__ == "__main__":
    main(*sys.argv[1:])
