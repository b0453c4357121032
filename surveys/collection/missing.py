"""The four outcomes of a question a submission did not answer, and their codes.

Every question of a counted submission is, for that submission, exactly one of:

* **answered**: a report (protected) or an answer (unprotected) is stored;
* **not shown**: display logic hid it, so nothing at all arrived or is stored
  (``NOT_SHOWN``);
* **left blank**: shown, optional, and left without an answer (``BLANK``);
* **declined**: shown, optional, and "Prefer not to answer" chosen
  (``DECLINED``).

Markers stored before the device told the last two apart read as
``UNKNOWN`` ("declined or left blank").  The device sends the marker
``q<id>_skipped`` with the value ``declined`` or ``blank``; the earlier
value ``skipped`` is still accepted and stored as unknown.

Exports write a missing answer as one of ``CODES`` (documented in
docs/researcher-guide.md and in each export's codebook): negative integers,
which no choice can be (choices are 0, 1, 2, …).
"""

from __future__ import annotations

from typing import Final

# What a submission stores or sends for one unanswered question.
NOT_SHOWN: Final = "not_shown"
BLANK: Final = "blank"
DECLINED: Final = "declined"
UNKNOWN: Final = "unknown"

# The markers the device sends (``q<id>_skipped``) and what each is stored as.
MARKERS: Final = {"declined": DECLINED, "blank": BLANK, "skipped": UNKNOWN}
LEGACY_MARKER: Final = "skipped"

# Missing-value codes of the exports, one per outcome.
CODES: Final = {NOT_SHOWN: -1, BLANK: -2, DECLINED: -3, UNKNOWN: -9}

# How each code is labelled in codebooks (English, as exports are).
LABELS: Final = {
    NOT_SHOWN: "not shown (display logic)",
    BLANK: "left blank",
    DECLINED: "declined (“Prefer not to answer”)",
    UNKNOWN: "declined or left blank (unknown: stored before the two were told apart)",
}
