import asyncio
import json
import multiprocessing
import os
import socket
import time

import pytest
from principals import ALICE

from steward import Surface
from steward._audit import AuditLog
from steward._confirmation import token_digest
from steward._outcome import Outcome

pytestmark = pytest.mark.anyio

SECRET_TEXT = "zebra-marmalade-4417"


def log_text(host):
    host.audit.flush()
    return host.audit.path.read_text()


def records(host):
    return [json.loads(line) for line in log_text(host).splitlines()]


async def test_one_record_per_outcome_of_every_kind(host):
    host.policy.set("sample_enabled", True)
    invoke = host.executor.invoke
    await invoke("sample.echo", {"text": "a"}, caller=ALICE, surface=Surface.INVOKE)
    await invoke("sample.nothing", {}, caller=ALICE, surface=Surface.INVOKE)
    await invoke("sample.echo", {"text": 1}, caller=ALICE, surface=Surface.INVOKE)
    pending = await invoke("sample.send", {"text": "a"}, caller=ALICE, surface=Surface.CONVERSATION)
    await host.executor.answer(
        token_digest(pending.pending_confirmation.token), False, caller=ALICE, surface=Surface.CONVERSATION
    )
    await invoke("sample.boom", {}, caller=ALICE, surface=Surface.INVOKE)
    assert [(r["capability"], r["stage"], r["status"], r["code"]) for r in records(host)] == [
        ("sample.echo", "result", "ok", None),
        ("sample.nothing", "resolve", "rejected", "CAPABILITY_NOT_FOUND"),
        ("sample.echo", "validate", "rejected", "INVALID_ARGUMENTS"),
        ("sample.send", "confirm", "pending", None),
        ("sample.send", "confirm", "denied", "CONFIRMATION_DENIED"),
        ("sample.boom", "execute", "failed", "EXECUTION_FAILED"),
    ]
    first = records(host)[0]
    assert set(first) == {
        "time",
        "capability",
        "version",
        "classification",
        "caller",
        "surface",
        "stage",
        "status",
        "code",
        "duration_ms",
        "host",
        "worker",
    }
    assert (first["host"], first["worker"]) == (socket.gethostname(), os.getpid())
    assert first["classification"] == {"side_effect": "read_only", "network": "local", "confirmation": "automatic"}
    assert (first["caller"], first["surface"]) == ("alice", "invoke")


async def test_arguments_and_results_never_reach_the_log(host):
    host.policy.set("sample_enabled", True)
    await host.executor.invoke("sample.echo", {"text": SECRET_TEXT}, caller=ALICE, surface=Surface.INVOKE)
    await host.executor.invoke("sample.echo", {"text": SECRET_TEXT * 9}, caller=ALICE, surface=Surface.INVOKE)
    pending = await host.executor.invoke("sample.send", {"text": SECRET_TEXT}, caller=ALICE, surface=Surface.INVOKE)
    await host.executor.answer(
        token_digest(pending.pending_confirmation.token), True, caller=ALICE, surface=Surface.INVOKE
    )
    log = log_text(host)
    assert [(r["capability"], r["status"]) for r in records(host)] == [
        ("sample.echo", "ok"),
        ("sample.echo", "rejected"),
        ("sample.send", "pending"),
        ("sample.send", "started"),
        ("sample.send", "ok"),
    ]
    assert SECRET_TEXT not in log
    assert pending.pending_confirmation.token not in log


async def test_free_text_in_place_of_a_name_is_not_logged(host):
    await host.executor.invoke(f"tell them {SECRET_TEXT}", {}, caller=ALICE, surface=Surface.INVOKE)
    assert records(host)[0]["capability"] == "<not a capability name>"
    assert SECRET_TEXT not in log_text(host)


def test_recent_reads_the_newest_records_from_the_tail_of_a_large_log(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=0)
    for number in range(400):
        log.record(
            Outcome(capability=f"a.n{number}", version=1, stage="result", status="ok"), caller="c", surface="invoke"
        )
    assert (tmp_path / "audit.jsonl").stat().st_size > 5 * 1024, "the tail starts inside the file, mid-line"
    assert [record["capability"] for record in log.recent(5)] == [f"a.n{number}" for number in range(399, 394, -1)]
    assert len(log.recent(400)) == 400
    log.close()


def test_rotation_by_size_keeps_backups(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=1000, backups=2)
    outcome = Outcome(capability="a.b", version=1, stage="result", status="ok")
    for _ in range(40):
        log.record(outcome, caller="c", surface="invoke")
    log.close()
    files = sorted(path.name for path in tmp_path.iterdir())
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    for path in tmp_path.iterdir():
        assert path.stat().st_size <= 1000
        assert all(json.loads(line)["capability"] == "a.b" for line in path.read_text().splitlines())


def write_records(path, count, worker, start):
    log = AuditLog(path, max_bytes=20_000, backups=16)
    start.wait(30)
    for index in range(count):
        time.sleep(0.0003)
        log.record(
            Outcome(capability=f"w{worker}.n{index}", version=1, stage="result", status="ok"), caller="c", surface="s"
        )
    log.close()


def test_workers_sharing_one_log_rotate_it_without_losing_a_record(tmp_path):
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    writers = [
        context.Process(target=write_records, args=(tmp_path / "audit.jsonl", 750, worker, start)) for worker in (1, 2)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0
    names = [json.loads(line)["capability"] for path in tmp_path.iterdir() for line in lines_in(path)]
    assert sorted(names) == sorted(f"w{worker}.n{index}" for worker in (1, 2) for index in range(750))
    assert all(path.stat().st_size <= 20_000 + 400 for path in tmp_path.iterdir())


def test_log_survives_reopening(tmp_path):
    outcome = Outcome(capability="a.b", version=1, stage="result", status="ok")
    for _ in range(2):
        log = AuditLog(tmp_path / "audit.jsonl")
        log.record(outcome, caller="c", surface="invoke")
        log.close()
    assert len((tmp_path / "audit.jsonl").read_text().splitlines()) == 2
    assert (tmp_path / "audit.jsonl").stat().st_mode & 0o777 == 0o600


def lines_in(path):
    return path.read_text().splitlines() if path.exists() else []


async def test_a_record_alone_is_written_at_once_and_the_rest_of_its_loop_iteration_follows_in_one_write(
    tmp_path, monkeypatch
):
    log = AuditLog(tmp_path / "audit.jsonl")
    writes = []
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda descriptor, data: writes.append(data) or real_write(descriptor, data))
    for index in range(4):
        log.record(Outcome(capability=f"a.n{index}", version=1, stage="result", status="ok"), caller="c", surface="s")
    assert len(lines_in(log.path)) == 1
    await asyncio.sleep(0)
    assert [json.loads(line)["capability"] for line in lines_in(log.path)] == ["a.n0", "a.n1", "a.n2", "a.n3"]
    assert [data.count(b"\n") for data in writes] == [1, 3]
    log.record(Outcome(capability="a.later", version=1, stage="result", status="ok"), caller="c", surface="s")
    assert json.loads(lines_in(log.path)[-1])["capability"] == "a.later"
    log.close()


async def test_closing_writes_what_was_gathered(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    for _ in range(3):
        log.record(Outcome(capability="a.b", version=1, stage="result", status="ok"), caller="c", surface="s")
    log.close()
    assert len(lines_in(tmp_path / "audit.jsonl")) == 3


def test_a_loop_closed_with_records_gathered_loses_none(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    outcome = Outcome(capability="a.b", version=1, stage="result", status="ok")

    loop = asyncio.new_event_loop()

    def two_records_then_stop():
        log.record(outcome, caller="c", surface="s")
        log.record(outcome, caller="c", surface="s")
        loop.stop()

    loop.call_soon(two_records_then_stop)
    loop.run_forever()
    loop.close()
    assert len(lines_in(log.path)) == 1
    log.record(outcome, caller="c", surface="s")
    assert len(lines_in(log.path)) == 3
    log.close()


async def test_gathered_records_rotate_exactly_at_the_size_bound(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=1000, backups=9)
    for index in range(40):
        log.record(Outcome(capability=f"a.n{index}", version=1, stage="result", status="ok"), caller="c", surface="s")
    await asyncio.sleep(0)
    log.close()
    paths = sorted(tmp_path.iterdir(), key=lambda path: -int(path.suffix[1:]) if path.suffix[1:].isdigit() else 0)
    assert all(path.stat().st_size <= 1000 for path in paths)
    names = [json.loads(line)["capability"] for path in paths for line in lines_in(path)]
    assert names == [f"a.n{index}" for index in range(40)]


async def test_a_gathered_write_that_fails_is_logged_with_its_count_and_the_log_carries_on(
    tmp_path, monkeypatch, caplog
):
    log = AuditLog(tmp_path / "audit.jsonl")
    outcome = Outcome(capability="a.b", version=1, stage="result", status="ok")
    log.record(outcome, caller="c", surface="s")
    real_write = os.write

    def disk_full(descriptor, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", disk_full)
    log.record(outcome, caller="c", surface="s")
    log.record(outcome, caller="c", surface="s")
    await asyncio.sleep(0)
    assert "2 record(s) could not be written: [Errno 28] No space left on device" in caplog.text
    monkeypatch.setattr(os, "write", real_write)
    log.record(outcome, caller="c", surface="s")
    assert len(lines_in(log.path)) == 2
    log.close()


async def test_a_read_only_local_calls_record_waits_for_its_span_and_others_do_not(tmp_path, monkeypatch):
    """On the busiest path (an agent polling a local, read-only capability) the records of a span
    share one write; a call that leaves the device or changes something is written at once."""
    from steward import Classification
    from steward._audit import QUIET_SECONDS

    log = AuditLog(tmp_path / "audit.jsonl")
    writes = []
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda descriptor, data: writes.append(data) or real_write(descriptor, data))
    local = Classification(side_effect="read_only", network="local", confirmation="automatic")
    away = Classification(side_effect="read_only", network="external", confirmation="required")
    for index in range(3):
        quiet = Outcome(capability=f"a.n{index}", version=1, stage="result", status="ok", classification=local)
        log.record(quiet, caller="c", surface="s")
        await asyncio.sleep(0)
    assert lines_in(log.path) == [], "nothing written yet: the span is still open"
    await asyncio.sleep(QUIET_SECONDS * 2)
    assert [json.loads(line)["capability"] for line in lines_in(log.path)] == ["a.n0", "a.n1", "a.n2"]
    assert len(writes) == 1
    quiet = Outcome(capability="a.quiet", version=1, stage="result", status="ok", classification=local)
    log.record(quiet, caller="c", surface="s")
    log.record(
        Outcome(capability="a.away", version=1, stage="result", status="ok", classification=away),
        caller="c",
        surface="s",
    )
    assert [json.loads(line)["capability"] for line in lines_in(log.path)][-2:] == ["a.quiet", "a.away"], (
        "one that leaves the device is written at once, and takes the waiting ones with it, in order"
    )
    log.close()


def test_a_program_that_ends_without_closing_its_log_still_writes_what_waited(tmp_path):
    """A read-only local call's record waits for its span; a program ending first must not lose it."""
    import subprocess
    import sys

    program = (
        "import asyncio, sys; from pathlib import Path; from steward import Classification; "
        "from steward._audit import AuditLog; from steward._outcome import Outcome; "
        "log = AuditLog(Path(sys.argv[1]))\n"
        "async def once():\n"
        "    local = Classification(side_effect='read_only', network='local', confirmation='automatic')\n"
        "    log.record(Outcome(capability='a.b', version=1, stage='result', status='ok', classification=local),"
        " caller='c', surface='s')\n"
        "asyncio.run(once())\n"
    )
    subprocess.run([sys.executable, "-c", program, str(tmp_path / "audit.jsonl")], check=True)
    assert [json.loads(line)["capability"] for line in lines_in(tmp_path / "audit.jsonl")] == ["a.b"]
