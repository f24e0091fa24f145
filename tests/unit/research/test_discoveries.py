import json
import multiprocessing

import pytest

from netsift.errors import InvalidInput
from netsift.research.discoveries import DiscoveryLog


def test_flag_and_read_back(tmp_path):
    log = DiscoveryLog(tmp_path / "d" / "discoveries.jsonl")
    first = log.flag(
        "Zero-day in parser", "CVE text says the parser overflows.", "https://example.org/cve"
    )
    log.flag("Second", "Another finding.", job_id="job1")
    read = log.read()
    assert [d.title for d in read.discoveries] == ["Zero-day in parser", "Second"]
    assert read.discoveries[0].id == first.id
    assert [d.title for d in log.read(job_id="job1").discoveries] == ["Second"]
    assert read.corrupt_lines == []


def test_corrupt_line_is_skipped_and_reported(tmp_path):
    path = tmp_path / "discoveries.jsonl"
    log = DiscoveryLog(path)
    log.flag("one", "first")
    with path.open("a") as handle:
        handle.write('{"title": "half a line\n')
        handle.write(json.dumps({"no": "fields"}) + "\n")
    log.flag("two", "second")
    read = log.read()
    assert [d.title for d in read.discoveries] == ["one", "two"]
    assert read.corrupt_lines == [2, 3]


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(InvalidInput):
        DiscoveryLog(tmp_path / "x.jsonl").flag("", "desc")


def _writer(path, n):
    log = DiscoveryLog(path)
    for i in range(n):
        log.flag(f"t{i}", "x" * 2000)


def test_concurrent_processes_keep_lines_whole(tmp_path):
    path = tmp_path / "discoveries.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, 50)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    read = DiscoveryLog(path).read()
    assert len(read.discoveries) == 150 and read.corrupt_lines == []


def test_a_torn_last_line_is_kept_aside_before_the_next_append(tmp_path):
    path = tmp_path / "discoveries.jsonl"
    log = DiscoveryLog(path)
    log.flag("one", "first")
    with path.open("ab") as handle:  # a writer killed in the middle of its line
        handle.write(b'{"id": "x", "title": "half a li')
    log.flag("two", "second")
    read = log.read()
    assert [d.title for d in read.discoveries] == ["one", "two"]
    assert read.corrupt_lines == []  # the new line was not glued to the torn one
    assert read.torn_kept == str(log.aside)
    assert log.aside.read_bytes() == b'{"id": "x", "title": "half a li\n'
    assert path.read_bytes().endswith(b"\n")


def test_a_whole_file_needs_no_repair(tmp_path):
    log = DiscoveryLog(tmp_path / "discoveries.jsonl")
    log.flag("one", "first")
    log.flag("two", "second")
    assert log.read().torn_kept is None and not log.aside.exists()


@pytest.mark.redis
def test_with_redis_every_replica_writes_to_one_place(tmp_path, redis_url):
    one = DiscoveryLog(tmp_path / "a.jsonl", redis_url=redis_url)
    two = DiscoveryLog(tmp_path / "b.jsonl", redis_url=redis_url)
    one.flag("from one", "first", job_id="j1")
    two.flag("from two", "second")
    assert [d.title for d in one.read().discoveries] == ["from one", "from two"]
    assert [d.title for d in two.read(job_id="j1").discoveries] == ["from one"]
    assert not (tmp_path / "a.jsonl").exists()
