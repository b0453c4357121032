"""Questionnaires imported from the formats researchers already have.

Each reader turns one format's file into a :class:`parsed.ParsedSurvey`: the
questions that map onto Deniable's kinds, and a :class:`parsed.Finding` for
everything that does not map (or maps with a change), so that nothing is
dropped without the researcher being told.  ``xlsform`` reads XLSForm
workbooks (KoboToolbox, ODK), ``limesurvey`` reads LimeSurvey ``.lss``
exports.  ``drafts`` then creates the draft survey through the builder's own
services, every question unprotected; ``suggestions`` says which questions
could be protected, and with which mechanism, using the builder's own
recommendation.  ``formats`` picks the reader for an upload.
"""
