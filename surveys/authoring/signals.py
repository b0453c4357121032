"""Signals the authoring app sends; other apps connect to them in their ready().

Authoring never imports the apps that read its questions (analysis sits above
it), so it announces the changes that Django's model signals do not carry.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent inside the transaction that deletes a survey, before the survey's row
# goes.  Keyword argument: ``survey_id``.  An app that stores rows of the
# survey in its own way (collection: reports by survey, so each delete touches
# the survey's partition only) deletes them here, before Django's cascade would
# look for them by other keys.
survey_deleting = Signal()
