"""Reading memory back: search every visible space, native and third-party, into cards (cards.py), and
compose the budgeted context block of /context and the recall preview (block.py, with absolute dates
from dates.py). The top of the memories package: it reads what write, search and growth keep.
"""
