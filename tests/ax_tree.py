"""The accessibility tree Chromium computes for a page: what screen readers get.

Chromium computes each element's role and accessible name once, and hands
the same tree to the platform's accessibility API (UI Automation and IAccessible2
on Windows, NSAccessibility on macOS, AT-SPI on Linux), which is where NVDA,
JAWS, VoiceOver and Orca read it.  ``Accessibility.getFullAXTree`` of the Chrome
DevTools Protocol returns that tree; :func:`ax_tree` reads it through a CDP
session of Playwright's and keeps the nodes a screen reader is given (not
those Chromium marks as ignored: hidden, presentational or inert).

This is the tree, not speech: what a screen reader then says (verbosity,
punctuation, the order it announces things in) is not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AXNode:
    """One node of the tree: its computed role, name and description, and the
    nodes under it that are not ignored."""

    role: str
    name: str
    description: str = ""
    focusable: bool = False
    children: list[AXNode] = field(default_factory=list)

    def walk(self) -> Iterator[AXNode]:
        """This node and every node under it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, role: str, name: str | None = None) -> list[AXNode]:
        """The nodes under this one (itself included) with ``role`` and, when
        given, a name containing ``name``."""
        return [
            node
            for node in self.walk()
            if node.role == role and (name is None or name in node.name)
        ]

    def text(self) -> str:
        """Every name under this node, joined by spaces: the text a screen
        reader can reach by reading through it (static text, names of controls
        and images)."""
        return " ".join(node.name for node in self.walk() if node.name)

    def pairs(self) -> list[tuple[str, str]]:
        """(role, name) of this node and every node under it, in document
        order, leaving out unnamed structure and inline text boxes."""
        return [
            (node.role, node.name)
            for node in self.walk()
            if node.name and node.role not in ("InlineTextBox",)
        ]

    def describe(self, roles: tuple[str, ...] = ()) -> str:
        """The (role, name) pairs as lines, for a failure message; only those
        of ``roles`` when given."""
        lines = [
            f"  {role}: {name!r}"
            for role, name in self.pairs()
            if not roles or role in roles
        ]
        return "\n".join(lines) or "  (nothing)"


def _value(node: dict[str, Any], key: str) -> str:
    return str(node.get(key, {}).get("value", "") or "")


def _focusable(node: dict[str, Any]) -> bool:
    return any(
        prop.get("name") == "focusable" and prop.get("value", {}).get("value")
        for prop in node.get("properties", [])
    )


def ax_tree(page: Any) -> AXNode:
    """The page's accessibility tree as Chromium gives it to screen readers.

    Ignored nodes are dropped and their children lifted to the nearest node
    kept, as the platform APIs do.
    """
    session = page.context.new_cdp_session(page)
    try:
        session.send("Accessibility.enable")
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    by_id = {node["nodeId"]: node for node in nodes}

    def build(node: dict[str, Any]) -> list[AXNode]:
        children = [
            built
            for child in node.get("childIds", [])
            if child in by_id
            for built in build(by_id[child])
        ]
        if node.get("ignored"):
            return children
        return [
            AXNode(
                role=_value(node, "role"),
                name=_value(node, "name").strip(),
                description=_value(node, "description").strip(),
                focusable=_focusable(node),
                children=children,
            )
        ]

    roots = [node for node in nodes if not node.get("parentId")]
    (root,) = (built for node in roots for built in build(node))
    return root
