"""``{% piped_text question questions %}``: a question's text on the answer
page, each pipe (``{{q3}}``, ``surveys.authoring.piping``) an empty
``<span data-pipe="<question id>">`` that the respondent's device fills in,
as text, with the earlier answer (``static/js/piping.js``).

The researcher's words are escaped; nothing but that element is markup.  A
pipe that names a protected, later or missing question is shown as "…" and
is never filled in, whatever the stored text says (the builder refuses such
a pipe; this is the answer page's own check).
"""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from surveys.authoring.models import Question
from surveys.authoring.piping import EMPTY, PIPE

register = template.Library()


@register.simple_tag
def piped_text(question: Question, questions: Iterable[Question]) -> str | SafeString:
    """``question.text`` with its allowed pipes as elements the device fills."""
    text = question.text
    if question.is_private or not PIPE.search(text):
        return text
    earlier = {
        q.position: q.pk
        for q in questions
        if not q.is_private and q.position < question.position
    }
    parts, last = [], 0
    for match in PIPE.finditer(text):
        parts.append(escape(text[last : match.start()]))
        source = earlier.get(int(match.group(1)))
        if source is None:
            parts.append(escape(EMPTY))
        else:
            pipe = '<span class="piped" data-pipe="{}">{}</span>'
            parts.append(format_html(pipe, source, EMPTY))
        last = match.end()
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 (every part escaped above)
