import hashlib
import random

from netsift.crawl import dedupe
from netsift.crawl.dedupe import (
    BANDS,
    NEAR_DUPLICATE_BITS,
    bands,
    content_hash,
    hamming,
    is_near_duplicate,
    simhash,
    text_sample,
)

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho".split()


def _text(seed: int, words: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(f"{rng.choice(WORDS)}{rng.randint(0, 40)}" for _ in range(words))


def test_content_hash_folds_case_and_whitespace_only():
    assert content_hash("Hello,  World\n") == content_hash("hello world")
    assert content_hash("hello world") != content_hash("hello there world")


def test_simhash_keeps_an_edited_copy_near_and_another_text_far():
    text = _text(1)
    copy = text + " last updated on 24 november 2026"
    assert is_near_duplicate(simhash(text) or 0, simhash(copy) or 0)
    assert hamming(simhash(text) or 0, simhash(_text(2)) or 0) > 2 * NEAR_DUPLICATE_BITS


def test_a_short_text_has_no_sketch():
    assert simhash("too short to judge") is None


def test_two_sketches_within_k_bits_share_a_band():
    sketch = simhash(_text(3)) or 0
    rng = random.Random(0)
    for _ in range(200):
        other = sketch
        for bit in rng.sample(range(64), NEAR_DUPLICATE_BITS):
            other ^= 1 << bit
        assert set(bands(sketch)) & set(bands(other))
    assert len(bands(sketch)) == BANDS


def _bit_counts_one_by_one(shingles: list[str]) -> list[int]:
    """The definition: for each of the 64 bits, how many shingle hashes have it set."""
    counts = [0] * 64
    for shingle in shingles:
        value = int.from_bytes(hashlib.blake2b(shingle.encode(), digest_size=8).digest(), "little")
        for bit in range(64):
            counts[bit] += value >> bit & 1
    return counts


def test_the_lane_sums_count_each_bit_as_one_by_one_also_across_chunks(monkeypatch):
    shingles = _text(3, words=500).split()
    assert dedupe._bit_counts(shingles) == _bit_counts_one_by_one(shingles)
    monkeypatch.setattr(dedupe, "_LANE_MAX", 7)  # lanes of 3 bits: chunks of 7 shingles
    assert dedupe._bit_counts(shingles) == _bit_counts_one_by_one(shingles)


def test_the_fingerprint_is_the_hash_and_the_sketch_from_one_pass_over_the_words():
    text = " ".join(f"Section {n} of the Tidewater guide, revised" for n in range(40))
    assert dedupe.fingerprint(text) == (content_hash(text), simhash(text))
    assert dedupe.fingerprint("too short") == (content_hash("too short"), None)


def test_the_text_sample_is_the_same_shingles_wherever_they_are_and_leaves_links_out():
    words = "the harbour pilots board each ship at the outer buoy before it enters the channel"
    sample = text_sample(words)
    assert sample and len(sample) < len(words.split())  # a quarter of the shingles, about
    later = text_sample(f"A new opening line. {words} And a closing remark on tides.")
    assert set(sample) <= set(later)
    notice = (
        "No events are scheduled; the club posts its meetings here once they are agreed. "
        "Members may propose a talk or an outing to the secretary at any time of the year."
    )
    month = f"{notice} [« June](/cal/2025/6) [August »](/cal/2025/8)"
    other = f"[« July](/cal/2025/7) {notice} [September »](/cal/2025/9)"
    assert text_sample(month) == text_sample(other) == text_sample(notice) != []
    # extraction may keep a link's text in the page's text: the page's anchors say which
    links = {
        month: [f"What went on in {before} 2025, day by day", f"What {after} 2025 will bring"]
        for month, before, after in (("july", "June", "August"), ("august", "July", "September"))
    }
    july, august = (f"{notice}\n" + "\n".join(links[m]) for m in ("july", "august"))
    assert text_sample(july) != text_sample(august)
    assert text_sample(july, links["july"]) == text_sample(august, links["august"])
    assert text_sample(july, links["july"]) == text_sample(notice)


def test_only_pages_titled_alike_share_a_band():
    sketch = 0x0123_4567_89AB_CDEF
    assert set(bands(sketch, "Wingspan: sleeves")) == set(bands(sketch, "wingspan  SLEEVES"))
    assert not set(bands(sketch, "Wingspan: sleeves")) & set(bands(sketch, "Root: sleeves"))
    assert all(0 <= band < 1 << 63 for band in bands(2**64 - 1, "a title"))
