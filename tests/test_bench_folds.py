"""bench/locomo_folds.py's choice never sees the conversation it is scored on."""

from bench.locomo_folds import leave_one_out


def row(score: float) -> dict:
    return {"r10": score, "sessions": score}


def test_each_conversation_is_scored_with_the_value_the_others_chose():
    # "a" is best on conversations 0 and 1, "b" only on conversation 2, where it is far better.
    per_value = {"a": [[row(0.8)], [row(0.8)], [row(0.1)]], "b": [[row(0.7)], [row(0.7)], [row(1.0)]]}
    held_out, chosen = leave_one_out(per_value, ["a", "b"])
    # Held out, conversation 2 gets "a" (0.1), though "b" would have scored 1.0 on it.
    assert chosen[2] == "a" and held_out[2] == row(0.1)
    # Conversation 0 left out: the others are 0.8 + 0.1 for "a" against 0.7 + 1.0 for "b", so "b".
    assert chosen[0] == "b" and held_out[0] == row(0.7)
