from netsift.research.passages import Passage, rank_passages, split_passages

TEXT = """# Title

Short.

The James Webb Space Telescope launched on 25 December 2021 aboard an Ariane 5 rocket.

- menu
- home

Its primary mirror has 18 hexagonal segments of gold-plated beryllium, 6.5 metres across.
"""


def test_split_joins_small_blocks_and_drops_fragments():
    pieces = split_passages(TEXT, max_chars=120)
    assert any("Ariane 5" in p for p in pieces)
    assert all(len(p) >= 40 for p in pieces)
    assert not any(p.startswith("#") for p in pieces)


def test_long_blocks_are_cut_at_sentence_ends():
    block = " ".join(f"Sentence number {i} says something useful here." for i in range(60))
    pieces = split_passages(block, max_chars=300)
    assert len(pieces) > 5 and all(len(p) <= 300 for p in pieces)
    assert all(p.endswith(".") for p in pieces[:-1])


def test_rank_prefers_relevant_and_limits_per_source():
    passages = [Passage(1, f"mirror segments beryllium {i}") for i in range(5)]
    passages += [Passage(2, "the mirror is made of beryllium"), Passage(3, "weather today")]
    ranked = rank_passages("beryllium mirror", passages, per_source=2)
    assert [p.source for p in ranked].count(1) == 2
    assert 2 in {p.source for p in ranked} and 3 not in {p.source for p in ranked}
