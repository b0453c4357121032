"""The answer inputs' markup (``forms.AnswerInputs``): every value and label
escaped, radios placed in their group for assistive technology."""

from __future__ import annotations

import pytest
from django.utils.safestring import mark_safe

from surveys.collection.answer_fields import AnswerInputs

CHOICES = [(0, "A & B"), (1, "<i>x</i>"), (2, 'say "hi"'), (3, "it's")]


def test_unnamed_radios_escape_labels_and_say_where_each_sits():
    html = AnswerInputs(CHOICES, multiple=False, named=False).render("q1", None)
    assert (
        '<div class="choice"><input type="radio" id="id_q1_0" value="0"'
        ' aria-posinset="1" aria-setsize="4"> <label for="id_q1_0">A &amp; B'
        "</label></div>"
    ) in html
    assert '<label for="id_q1_1">&lt;i&gt;x&lt;/i&gt;</label>' in html
    assert '<label for="id_q1_2">say &quot;hi&quot;</label>' in html
    assert '<label for="id_q1_3">it&#x27;s</label>' in html
    assert "name=" not in html.split('data-answer-group="q1"', 1)[1]


@pytest.mark.parametrize(
    ("required", "attribute"),
    [(True, " required"), (False, "")],
    ids=["required", "optional"],
)
def test_named_radios_are_required_as_their_question_and_keep_the_chosen_one_checked(
    required, attribute
):
    widget = AnswerInputs(CHOICES, multiple=False, named=True)
    widget.is_required = required  # as its field sets it
    html = widget.render("q<2>", 2)
    assert (
        '<input type="radio" id="id_q&lt;2&gt;_2" value="2" name="q&lt;2&gt;"'
        f"{attribute} checked>"
    ) in html
    assert html.count(" checked") == 1
    assert "aria-posinset" not in html


def test_named_checkboxes_are_not_required_and_check_every_chosen_one():
    html = AnswerInputs(CHOICES, multiple=True, named=True, most=2).render("q3", [0, 3])
    assert '<input type="checkbox" id="id_q3_0" value="0" name="q3" checked>' in html
    assert '<input type="checkbox" id="id_q3_3" value="3" name="q3" checked>' in html
    assert " required" not in html
    assert 'data-max-selections="2"' in html


def test_a_label_marked_safe_is_kept_as_markup():
    choices = [(0, mark_safe("<b>bold</b>"))]
    html = AnswerInputs(choices, multiple=False, named=True).render("q4", None)
    assert '<label for="id_q4_0"><b>bold</b></label>' in html
