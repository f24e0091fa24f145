"""Editing an lxml tree: the primitives every reader and cleaner of fetch/ uses (removing a
node without losing its words, finding the body), kept apart from dom.py (which runs
trafilatura's stages) so that the cleaners (boilerplate.py, hidden.py) need nothing of the
extraction pipeline. Measuring a tree's text is measure.py's."""

from __future__ import annotations

from lxml import etree

__all__ = ["body_of", "drop"]


def drop(node: etree._Element, *, keep_blank_tail: bool = False) -> None:
    """Remove `node` from its tree, keeping the text that follows it (a blank tail too when
    asked: between two inline elements it is the space that keeps their words apart)."""
    parent = node.getparent()
    if parent is None:
        return
    tail, prev = node.tail, node.getprevious()
    parent.remove(node)
    if tail and (keep_blank_tail or tail.strip()):
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def body_of(tree: etree._Element) -> etree._Element:
    """The page's body (the root's child, else the first one below), else the tree itself.
    `find(".//body")` walked the whole tree in Python's ElementPath: 0.14 ms a page a call."""
    body = tree.find("body")
    if body is None:
        body = next(tree.iterdescendants("body"), None)
    return body if body is not None else tree
