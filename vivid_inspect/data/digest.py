"""What identifies a data set's content: a SHA-256 digest of its items as loaded.

The digest is taken over the validated items (id, idiom, meaning, theme and trait codes), not
over the file's bytes, so a file saved again with other line ends, a byte-order mark or another
quoting style keeps its digest, and two files of the same name with other items do not. Tasks
record it in their metadata (``data_sha256``) and the generation key uses it
(`vivid_inspect.generation_key`), so two data files of one name are two generations.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from vivid_inspect.data.csv_format import VividItem
from vivid_inspect.generation_key import DIGEST_KEY, ITEMS_KEY

__all__ = ["DIGEST_KEY", "ITEMS_KEY", "items_digest"]


def items_digest(items: Iterable[VividItem]) -> str:
    """The SHA-256 hex digest of the items' content, in file order.

    Args:
        items: Validated items, as [`vivid_inspect.data.load_items`][vivid_inspect.data.load_items] returns them.

    Returns:
        64 lowercase hex digits; the same for the same items however the file was written.
    """
    # One JSON array of one array per item: no field's own text can forge a separator. Dumped at
    # once, it costs a few milliseconds at 1,636 items (once per data source and process).
    content = [[item.id, item.idiom, item.meaning, item.theme_id, list(item.trait_ids)] for item in items]
    text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
