from netsift.research.planner import derive_queries, find_gaps, uncovered_terms


def test_derive_queries_from_a_compound_question():
    queries = derive_queries(
        "What caused the 2008 financial crisis and how did regulators respond?", limit=4
    )
    assert queries[0].startswith("What caused")
    assert any("regulators respond" in q for q in queries)
    assert any(q == "caused 2008 financial crisis regulators respond" for q in queries)
    assert len(queries) == len(set(q.casefold() for q in queries)) <= 4


def test_uncovered_terms_and_extractive_gaps():
    question = "Webb telescope mirror beryllium launch"
    texts = ["The Webb telescope launched in 2021.", "Its mirror is large."]
    assert uncovered_terms(question, texts) == ["beryllium"]


async def test_find_gaps_without_a_model_targets_missing_terms():
    gaps, queries, tokens = await find_gaps(
        "webb mirror beryllium", "answer", ["webb mirror"], None, done=set(), limit=3
    )
    assert gaps == ["beryllium"] and queries == ["beryllium webb mirror"] and tokens == 0
    none = await find_gaps("webb mirror", "a", ["webb mirror here"], None, done=set(), limit=3)
    assert none == ([], [], 0)


class _Planner:
    """A model that plans the way Qwen2.5-Coder-0.5B did: queries that miss the subject."""

    async def json(self, messages, **_):
        return {"queries": ["What is the highest point on Earth?", "highest point Earth"]}, 7


async def test_the_question_itself_is_always_searched():
    from netsift.research.planner import plan_queries

    queries, tokens = await plan_queries("How high is Mount Everest?", _Planner(), breadth=2)  # type: ignore[arg-type]
    assert queries == ["How high is Mount Everest?", "What is the highest point on Earth?"]
    assert tokens == 7
