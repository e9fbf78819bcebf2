"""Main-content extraction on the public ScrapingHub article corpus, side by side with others.

Corpus and scoring rule: ``../shared/data/extraction/README.md`` (181 pages, ground-truth article
bodies). Scored on plain text: Markdown syntax and link targets are stripped from our output
first. Compared in the same run: trafilatura (default and ``favor_precision``) and readabilipy +
markdownify (what the reference MCP fetch server uses, without Node). Also reported: time per
page, the median ratio of returned to raw tokens, and of output length to the ground truth's.

Targets (issue 4): F1 >= 0.96 with recall >= 0.97; speed >= 0.5x trafilatura's per page;
returned/raw tokens <= 0.2; output/ground-truth length <= 1.1.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from steward_websearch.extract import extract

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction" / "scrapinghub"
TOKEN = re.compile(r"\w+")


def shingles(text: str) -> Counter:
    tokens = TOKEN.findall(text)
    if not tokens:
        return Counter()
    if len(tokens) < 4:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + 4]) for i in range(len(tokens) - 3))


def score(pages: list[tuple[str, str]]) -> tuple[float, float, float]:
    """(precision, recall, F1) by the corpus's rule over (truth, predicted) pairs."""
    precisions, recalls = [], []
    for truth, predicted in pages:
        expected, found = shingles(truth), shingles(predicted)
        tp = fp = fn = 0
        for shingle in expected.keys() | found.keys():
            t, p = expected.get(shingle, 0), found.get(shingle, 0)
            tp += min(t, p)
            fp += max(0, p - t)
            fn += max(0, t - p)
        total = tp + fp + fn
        if total == 0:
            continue
        tp, fp, fn = tp / total, fp / total, fn / total
        if tp + fp > 0:
            precisions.append(tp / (tp + fp) if fp else 1.0)
        if tp + fn > 0:
            recalls.append(tp / (tp + fn) if fn else 1.0)
    precision, recall = statistics.mean(precisions), statistics.mean(recalls)
    return precision, recall, 2 * precision * recall / (precision + recall)


def plain(markdown: str) -> str:
    """Markdown to the text a reader sees: link targets and syntax removed."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+", "", text, flags=re.MULTILINE)
    text = re.sub(r"```[a-z]*\n?|\*\*|__|~~|`", "", text)
    return text.replace("\\", "")


def ours(html: bytes, url: str) -> str:
    return plain(extract(html, url=url, content_type="text/html").markdown)


def trafilatura_default(html: bytes, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def trafilatura_precision(html: bytes, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, favor_precision=True) or ""


def readabilipy_markdownify(html: bytes, url: str) -> str:
    import markdownify
    import readabilipy.simple_json

    article = readabilipy.simple_json.simple_json_from_html_string(
        html.decode("utf-8", "replace"), use_readability=False
    )
    return plain(markdownify.markdownify(article["content"] or "", heading_style="ATX"))


EXTRACTORS: dict[str, Callable[[bytes, str], str]] = {
    "steward": ours,
    "trafilatura": trafilatura_default,
    "trafilatura (favor_precision)": trafilatura_precision,
    "readabilipy + markdownify": readabilipy_markdownify,
}


def main() -> None:
    truth = json.loads((CORPUS / "ground-truth.json").read_text())
    pages = [(key, gzip.decompress((CORPUS / "html" / f"{key}.html.gz").read_bytes())) for key in sorted(truth)]
    only = sys.argv[1:] or list(EXTRACTORS)
    seconds: dict[str, float] = {}
    for name in only:
        extractor = EXTRACTORS[name]
        outputs, started = [], time.perf_counter()
        for key, html in pages:
            outputs.append(extractor(html, truth[key]["url"]))
        seconds[name] = (time.perf_counter() - started) / len(pages)
        precision, recall, f1 = score(
            [(truth[key]["articleBody"], out) for (key, _), out in zip(pages, outputs, strict=True)]
        )
        lengths = [
            len(out) / max(1, len(truth[key]["articleBody"])) for (key, _), out in zip(pages, outputs, strict=True)
        ]
        line = (
            f"{name:32s} F1 {f1:.3f}  P {precision:.3f}  R {recall:.3f}  {seconds[name] * 1000:6.1f} ms/page  "
            f"length/truth {statistics.median(lengths):.2f}"
        )
        if name == "steward":
            ratios = []
            for key, html in pages:
                document = extract(html, url=truth[key]["url"], content_type="text/html")
                ratios.append(document.clean_tokens / max(1, document.raw_tokens))
            line += f"  returned/raw tokens {statistics.median(ratios):.3f}"
        print(line, flush=True)
    if "steward" in seconds and "trafilatura" in seconds:
        print(
            f"speed: steward takes {seconds['steward'] / seconds['trafilatura']:.2f}x trafilatura's time per page "
            f"(target <= 2.0x, i.e. >= 0.5x its speed)"
        )


if __name__ == "__main__":
    main()
