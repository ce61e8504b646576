"""Facts about the user: claims read from what they said (rules.py) and resolved by slots (slots.py), where a
single-valued predicate keeps one current value. Pure rules and the fact rows, so the write gateway can
apply them inside its transaction without importing what grows on top of it.
"""
