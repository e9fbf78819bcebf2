"""The extraction benchmark's two scoring rules and its reading of WCXB's own repository layout."""

import gzip
import json

import pytest
from script_modules import load_script

bench = load_script("bench/extraction.py", "bench_extraction")


def test_wcxbs_own_rule_scores_words_as_bags_and_averages_pages():
    truth = "The kettle boils a litre in ninety seconds"
    reordered = "in ninety seconds the kettle boils a litre"
    assert bench.word_scores([(truth, reordered)]) == (1.0, 1.0, 1.0), "word order is not scored"
    assert bench.score([(truth, reordered)])[2] < 1.0, "the shared rule's shingles score it"
    half = "The kettle boils Menu Login Cart"
    precision, recall, f1 = bench.word_scores([(truth, half), (truth, "")])
    assert precision == pytest.approx((3 / 6 + 0.0) / 2)
    assert recall == pytest.approx((3 / 8 + 0.0) / 2)
    assert f1 == pytest.approx((2 * 0.5 * 0.375 / 0.875 + 0.0) / 2), "an empty output scores 0 and still counts"
    assert bench.word_scores([("", "")]) == (1.0, 1.0, 1.0)


def test_a_split_of_wcxbs_repository_reads_as_the_shared_corpora_do(tmp_path):
    for split, key, kind in [("dev", "0001", {"primary": "category"}), ("test", "4011", "forum")]:
        (tmp_path / split / "html").mkdir(parents=True)
        (tmp_path / split / "ground-truth").mkdir()
        (tmp_path / split / "html" / f"{key}.html.gz").write_bytes(gzip.compress(b"<p>Kettles</p>"))
        entry = {
            "url": f"https://shop.example/{key}",
            "_internal": {"page_type": kind},
            "ground_truth": {"main_content": "Kettles", "with": ["Kettles"], "without": ["Cart"]},
        }
        (tmp_path / split / "ground-truth" / f"{key}.json").write_text(json.dumps(entry))
    (dev,) = bench.load_wcxb_split(tmp_path, "dev", None)
    assert dev.key == "0001"
    assert dev.html == b"<p>Kettles</p>"
    assert dev.truth == {
        "articleBody": "Kettles",
        "url": "https://shop.example/0001",
        "page_type": "collection",
        "with": ["Kettles"],
        "without": ["Cart"],
    }, "WCXB's 'category' is the shared corpus's 'collection'"
    (test,) = bench.load_wcxb_split(tmp_path, "test", None)
    assert test.truth["page_type"] == "forum"


def test_markdown_is_read_as_the_reader_sees_it_and_code_as_it_is_written():
    markdown = (
        "## Squares\n\n- Call `__init__` with **care** and [\\[source\\]](https://example.org/src).\n\n"
        '```python\ndef __repr__(self):\n    return x**2  # "a\\nb"\n```\n\nsnake\\_case ``x`y``'
    )
    text = bench.plain(markdown)
    assert (
        bench.words(text)
        == "Squares Call __init__ with care and source def __repr__ self return x 2 a nb snake_case x y"
    )
    assert "x**2" in text, "code is what the reader sees, its stars too"
    assert "\\n" in text, "and its backslashes"
    assert "example" not in text, "a link's target is not read"


def test_emphasis_tables_and_pictures_are_read_as_a_markdown_reader_shows_them():
    markdown = (
        "Each student receives a detailed *Merit Aid Prospectus* laying out:\n\n"
        "| Step | Kettle |\n| --- | --- |\n| 1\\. Fill | *Quiet* 2 |\n\n"
        "![A kettle](https://example.org/k.png) 2020\\. A year of &amp; kettles"
    )
    text = " ".join(bench.plain(markdown).split())
    assert "receives a detailed Merit Aid Prospectus laying out:" in text, "a sentence is found across its emphasis"
    assert "Step Kettle 1. Fill Quiet 2" in text, "cells are read in order, their syntax gone"
    assert "2020. A year of & kettles" in text
    assert "k.png" not in text, "a picture is not text"
    assert "A kettle" not in text


def test_snippets_are_matched_by_their_words_or_as_written():
    page = bench.Page("1", b"", {"with": ["boils a litre fast", "The  kettle\nboils"], "without": ["Cart"]})
    output = "The kettle boils a litre\u2014fast."
    assert bench.snippets([page], [output], "with") == (2, 2)
    assert bench.snippets([page], [output], "with", as_written=True) == (1, 2), "a dash for a space loses it"
    assert bench.snippets([page], [output], "without", as_written=True) == (0, 1)


def test_trafilaturas_evaluation_set_reads_from_its_repository_and_scores_by_its_rule(tmp_path):
    (tmp_path / "tests" / "cache").mkdir(parents=True)
    (tmp_path / "tests" / "eval").mkdir()
    (tmp_path / "tests" / "cache" / "kettle.html").write_bytes(b"<p>The kettle boils.</p>")
    (tmp_path / "tests" / "eval" / "0a1b.html").write_bytes(b"<p>Descale monthly.</p>")
    evaldata = {
        "https://kettle.example/": {"file": "kettle.html", "with": ["The kettle", "boils"], "without": ["Cart"]},
        "https://descale.example/": {"file": "0a1b.html", "with": ["Descale  monthly"], "without": ["Login", "Menu"]},
    }
    (tmp_path / "tests" / "evaldata.json").write_text(json.dumps(evaldata))
    descale, kettle = bench.load_trafilatura_evaluation(tmp_path, None)
    assert (kettle.key, kettle.html) == ("kettle.html", b"<p>The kettle boils.</p>"), "tests/cache is read"
    assert descale.html == b"<p>Descale monthly.</p>", "and tests/eval"
    assert kettle.truth["url"] == "https://kettle.example/"
    outputs = ["Descale monthly. Menu", "The kettle boils over. Cart and more"]
    counts = bench.snippet_counts([descale, kettle], outputs)
    assert (counts.found, counts.wanted, counts.leaked, counts.unwanted) == (3, 3, 2, 3)
    precision, recall, accuracy, f1 = counts.scores()
    assert (precision, recall) == (3 / 5, 1.0), "3 wanted found, 2 unwanted found"
    assert accuracy == pytest.approx((3 + 1) / 6), "of 6 sentences, 3 found as wanted and 1 left out as unwanted"
    assert f1 == pytest.approx(2 * 3 / (2 * 3 + 2 + 0))
    (tmp_path / "tests" / "eval" / "0a1b.html").unlink()
    with pytest.raises(SystemExit, match=r"0a1b\.html"):
        bench.load_trafilatura_evaluation(tmp_path, None)


def test_dragnets_and_l3s_gn1s_pages_read_from_the_merged_cleaning_repository(tmp_path):
    for folder, gold in [
        ("dragnet_data", b"Kettle week\n\nThe kettle boils a litre.\n"),
        (
            "page-signal-master",
            b"<html><body><div class='x-nc-sel0'>Menu</div><h1><span class='x-nc-sel1'>Kettle week</span></h1>"
            b"<p><span class='x-nc-sel2'>The kettle <b>boils</b> a litre.</span></p>"
            b"<p><span class='x-nc-sel5'>Great kettle! (a reader)</span></p></body></html>",
        ),
    ]:
        (tmp_path / folder / "input").mkdir(parents=True)
        (tmp_path / folder / "GoldStandard").mkdir()
        (tmp_path / folder / "input" / "R1.html").write_bytes(b"<p>The kettle boils a litre.</p>")
        (tmp_path / folder / "GoldStandard" / "R1.txt").write_bytes(gold)
        (tmp_path / folder / "GoldStandard" / "R2.txt").write_bytes(gold)
    (tmp_path / "dragnet_data" / "input" / "T3.html").write_bytes(b"<p>Teapots</p>")
    (tmp_path / "dragnet_data" / "GoldStandard" / "T3.txt").write_bytes("Teapots — new".encode("utf-16"))
    corpora = bench.load_cleaning_corpora(tmp_path, None)
    assert sorted(corpora) == ["dragnet", "l3s-gn1"]
    assert [page.key for page in corpora["dragnet"]] == ["R1", "T3"], "a truth without its page is left out"
    assert corpora["dragnet"][1].truth["articleBody"] == "Teapots — new", "a truth in UTF-16 reads by its mark"
    assert corpora["dragnet"][0].truth == {"articleBody": "Kettle week\n\nThe kettle boils a litre.\n", "url": ""}
    (page,) = corpora["l3s-gn1"]
    assert page.html == b"<p>The kettle boils a litre.</p>"
    assert page.truth["articleBody"] == "Kettle week\nThe kettle boils a litre.", "headline and full text, no comments"


def test_documentation_sites_read_theme_by_theme_and_report_no_sentences(tmp_path, capsys):
    story = "<p>The kettle boils a litre of water in three minutes and then switches itself off.</p>"
    entries = []
    for theme in ["alabaster", "furo"]:
        (tmp_path / theme).mkdir()
        (tmp_path / theme / "boil.html").write_text(
            f"<html><body><nav><a href='/'>Home</a></nav><main><h1>Boiling</h1>{story}</main></body></html>"
        )
        entries.append(
            {"site": f"sphinx {theme}", "html": f"{theme}/boil.html", "truth": "boil.txt", "url": "https://k.example/"}
        )
    (tmp_path / "boil.txt").write_text(
        "The kettle boils a litre of water in three minutes and then switches itself off."
    )
    (tmp_path / "manifest.json").write_text(json.dumps(entries))
    pages = bench.load_documentation_sites(tmp_path, None)
    assert [page.truth["page_type"] for page in pages] == ["sphinx alabaster", "sphinx furo"]
    assert pages[1].truth["articleBody"].startswith("The kettle boils")
    assert b"<nav>" in pages[0].html
    bench.report("documentation-sites", pages, bench.run(["steward"], pages))
    printed = capsys.readouterr().out
    assert "by kind: sphinx alabaster 1.000, sphinx furo 1.000" in printed
    assert "with " not in printed, "no sentences to count"
    assert "WCXB's own rule" not in printed
    assert len(bench.load_documentation_sites(tmp_path, 1)) == 1


def test_truths_an_extractor_reproduces_are_counted_and_left_out_of_the_second_score(capsys):
    truths = [
        ("documentation", "Install the kettle driver before you plug the kettle in."),
        ("documentation", "The boil command heats the water to the temperature you set."),
        ("service", "We descale kettles at your home within two working days of your call."),
    ]
    pages = [bench.Page(f"{n}", b"", {"articleBody": text, "page_type": kind}) for n, (kind, text) in enumerate(truths)]
    runs = {
        "steward": bench.Run([truths[0][1], "The boil command heats the water. Menu Login", truths[2][1] + " Call us"]),
        "rs-trafilatura": bench.Run([truths[0][1], truths[1][1], "Menu Login Cart"]),
    }
    bench.report_reproduced(pages, runs)
    printed = capsys.readouterr().out
    assert "steward                    1/3: documentation 1/2, service 0/1" in printed
    assert "rs-trafilatura             2/3: documentation 2/2, service 0/1" in printed
    assert "the 1 pages whose truth no extractor reproduces" in printed
    (steward,) = [line for line in printed.splitlines() if line.startswith("steward") and "F1" in line]
    (rs,) = [line for line in printed.splitlines() if line.startswith("rs-trafilatura") and "F1" in line]
    assert "by kind: service 0.9" in steward, "only the service page is scored: Steward found it, and a label"
    assert rs.endswith("F1 0.000; by kind: service 0.000")
