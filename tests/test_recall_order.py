"""Native hits are listed mostly by rank; their relevance (tier, room in the block) stays half rank, half words."""

from memoryhub.memories.recall import cards as recall
from memoryhub.memories.search.ranking import Ranked


def test_a_turn_that_ranked_well_is_listed_above_a_weak_match_holding_most_of_the_words():
    neighbour = Ranked(1, rank=0.5, via="session", coverage=0.3)  # brought along by the best hit
    wordy = Ranked(2, rank=0.3, via="keyword", coverage=1.0)  # every query word, a weak score
    order = {r.entry_id: recall.native_relevance(r, 1.0, rank_share=recall.ORDER_RANK_SHARE) for r in (neighbour, wordy)}
    assert order[1] > order[2]
    # The relevance the tiers go by is unchanged: the wordy match keeps its medium tier (above the 0.25 cut-off).
    assert recall.native_relevance(wordy, 1.0) == 0.65 and recall.native_relevance(neighbour, 1.0) == 0.4
