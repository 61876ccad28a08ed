r"""A judge reply's text as the verdict grammar reads it: normalised first, then its cited spans found.

The grammar itself is `vivid_inspect.scorers.judge_prompts.VERDICT_GRAMMAR`; this module does
its first two steps, and `vivid_inspect.scorers.judge_parse` the rest.

- `prepare` (cheap, never lengthens the text): every line break as ``\\n``; invisible format
  characters removed (`INVISIBLE_RANGES`: zero-width characters, bidi controls, the soft
  hyphen, variation selectors, tags, ...), so ``4\\u200b-5`` cannot hide a range from the reader.
- `fold`: NFKC, which reads full-width, mathematical, superscript and circled digits and the
  full-width ``／``, ``－``, ``：`` and quote marks as the characters they stand for, then
  `LOOK_ALIKES` for the slashes and dashes NFKC keeps (``⁄``, ``∕``, ``–``, ``—``, ``−``, ...).
  NFKC can make a text 18 times longer (``ﷺ``), so the parser folds only what it reads (a bare reply
  within its window, a chain-of-thought reply's last line), never a whole megabyte.
  Digits of other scripts (``٤``, ``४``, ``๔``) are kept: NFKC does not map them, and the parser
  refuses them, since no Vietnamese or English judge writes them and a mixed-script number has no
  safe reading.
- `cite_line`: the line with every quoted or inline-code span cut out, or None when its quote
  marks do not pair up. Every mark of Unicode's ``Quotation_Mark`` property is a quote mark (after
  NFKC); each pairs with the closers of `CLOSERS`, in every order a language writes: ``«…»``
  (French, Vietnamese), ``»…«`` (German, Danish), ``»…»`` (Swedish), ``“…”``, ``„…“``, ``„…”``,
  ``”…”``, ``‚…‘``, ``「…」`` and the rest. Marks of one family (`FAMILIES`) alternate, opening
  then closing, and do not nest; quotes of different families nest but never cross. A mark left
  open, a closer with nothing open, a pair the table does not list, or two quotes that cross make
  the line unreadable: which text the judge cited cannot be told, and it is not guessed. An
  apostrophe between two letters (``judge's``), or after a word when no single quote is open
  (``candidates’``), is not a quote mark. A backtick run opens a code span that closes with a run
  of the same length; quote marks inside code are code.

Every step is one left-to-right pass: linear in the text's length.
"""

from __future__ import annotations

import html
import re
import unicodedata

CITED = "\ufffc"
"""Stands for a cited span once it is cut out: text, but never a digit, label or decoration."""

INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x0600, 0x0605),  # Arabic number signs (format characters)
    (0x061C, 0x061C),  # Arabic letter mark
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner and joiner; left-to-right and right-to-left marks
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space (byte order mark)
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0xFFF0, 0xFFFB),  # reserved default-ignorables and interlinear annotation controls
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement
)
"""Code points removed before reading: every format character (category Cf) and the rest of
Unicode's default-ignorable code points, which render as nothing."""

LOOK_ALIKES = str.maketrans(dict.fromkeys("⁄∕⧸╱⟋", "/") | dict.fromkeys("‐‑‒–—―⁃−➖⸺⸻˗﹘﹣", "-"))
"""Slashes and dashes NFKC keeps, read as ``/`` and ``-`` (a range ``4–5`` is a range, ``4⁄5`` the scale)."""

FAMILIES: tuple[str, ...] = ("«»", "‹›", "“”„‟⹂", "‘’‚‛", '"', "'", "「」", "『』", "〝〞〟", "﹁﹂", "﹃﹄")
"""Quote marks by family: marks of one family pair with each other, alternating open and close."""

CLOSERS: dict[str, str] = {
    "«": "»",
    "»": "«»",
    "‹": "›",
    "›": "‹›",
    "“": "”",
    "”": "”“",
    "„": "“”",
    "‟": "”",
    "⹂": "“”",
    "‘": "’",
    "’": "’‘",
    "‚": "‘’",
    "‛": "’",
    '"': '"',
    "'": "'",
    "「": "」",
    "『": "』",
    "〝": "〞〟",
    "﹁": "﹂",
    "﹃": "﹄",
}
"""The marks that may close a quote each opening mark begins (a mark that is no key never opens)."""

_FAMILY = {mark: index for index, family in enumerate(FAMILIES) for mark in family}
_APOSTROPHES = frozenset("'’")
_LINE_BREAK = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_INVISIBLE = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in INVISIBLE_RANGES) + "]+"
)
_MARK = re.compile("`++|[" + re.escape("".join(FAMILIES)) + "]")
_BACKTICKS = re.compile("`++")


def prepare(text: str) -> str:
    r"""``text`` with every line break as ``\\n`` and invisible characters removed; never longer.

    Args:
        text: A judge's reply.

    Returns:
        The text; lines split on ``\\n`` are the lines ``str.splitlines`` would give.
    """
    return _INVISIBLE.sub("", _LINE_BREAK.sub("\n", text))


def fold(text: str) -> str:
    """NFKC, then `LOOK_ALIKES`: look-alikes of digits, ``/``, ``-`` and quotes as what they look like.

    Args:
        text: Text already through `prepare`.

    Returns:
        The folded text (NFC, since NFKC composes).
    """
    return unicodedata.normalize("NFKC", text).translate(LOOK_ALIKES)


def normalise(text: str) -> str:
    """`prepare` then `fold`: the text as the grammar reads it."""
    return fold(prepare(text))


# An opening tag may carry attributes (<think signature="…">, as Inspect writes them back).
THINK_OPEN = re.compile(r"<think(?:\s[^>\n]*+)?+>", re.IGNORECASE)
THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINK_TAG = re.compile(r"</think>|<think(?:\s[^>\n]*+)?+>", re.IGNORECASE)
LESS_THAN = "<\ufe64\uff1c"
"""Every character whose fold holds ``<`` (``<``, small ``﹤``, full-width ``＜``): a tag needs one."""
_HAS_LESS_THAN = re.compile(f"[{LESS_THAN}]")
_LINE_BREAKS = re.compile(f"({_LINE_BREAK.pattern})")
_HAS_AMPERSAND = re.compile("[&\uff06\ufe60]")
_DEFUSED = str.maketrans(dict.fromkeys(LESS_THAN, "\u27e8") | dict.fromkeys("&\uff06\ufe60", "\u214b"))


def _entity_tag(line: str) -> bool:
    """Whether ``line``, its HTML entities decoded (up to three times: ``&amp;lt;``), holds a tag."""
    for _ in range(3):
        decoded = html.unescape(line)
        if decoded == line:
            break
        line = decoded
        if _THINK_TAG.search(line):
            return True
    return False


def defuse_reasoning_tags(text: str) -> str:
    """``text`` with no line that `normalise` would read as holding a ``<think>`` or ``</think>`` tag.

    The judge scorer runs the candidate through this before quoting it to the judge, so that the
    model under test cannot plant a tag the parser would read once its normalisation has removed a
    zero-width character (``</thi\u200bnk>``) or folded a look-alike (``＜/ｔｈｉｎｋ＞``, ``</\U0001d42dhink>`` with a mathematical bold t),
    nor one that a judge decoding HTML entities while it quotes would write (``&lt;/think&gt;``,
    ``&#60;/think>``, ``&#x3C;think>``).
    On such a line every character of `LESS_THAN` becomes ``⟨`` (U+27E8, which no fold turns
    back into ``<`` and which is not a quote mark) and every ampersand (``&``, ``＆``, ``﹠``)
    becomes ``⅋`` (U+214B, which no fold or decoding turns back into ``&``); every other line is
    left exactly as it is.

    Args:
        text: Any text (a candidate explanation).

    Returns:
        The text, the same object when nothing had to change.
    """
    if _HAS_LESS_THAN.search(text) is None and _HAS_AMPERSAND.search(text) is None:
        return text
    parts = _LINE_BREAKS.split(text)  # lines at even indexes, the breaks between them at odd ones
    for index in range(0, len(parts), 2):
        line = parts[index]
        if not (_HAS_LESS_THAN.search(line) or _HAS_AMPERSAND.search(line)):
            continue
        seen = normalise(line)
        if _THINK_TAG.search(seen) or ("&" in seen and _entity_tag(seen)):
            parts[index] = line.translate(_DEFUSED)
    return "".join(parts)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_apostrophe(line: str, at: int, quote_open: bool) -> bool:
    after_word = at > 0 and _is_word(line[at - 1])
    before_word = at + 1 < len(line) and _is_word(line[at + 1])
    return after_word and (before_word or not quote_open)


def _code_end(line: str, run: str, start: int) -> int | None:
    """Where the code span opened by ``run`` ends: after the next run of exactly as many backticks."""
    for found in _BACKTICKS.finditer(line, start):
        if found.group() == run:
            return found.end()
    return None


def cite_line(line: str) -> str | None:
    """``line`` with each outermost quoted or code span replaced by `CITED`, or None if unclear.

    A blockquote line (``> …``) is cited whole. The rules are the module's; in short, quote marks
    must pair up by `CLOSERS`, one family at a time, and quotes of different families nest
    without crossing.

    Args:
        line: One line of folded text.

    Returns:
        The line as read, or None when its quote marks are unbalanced or ambiguous (or a code span
        is left open), which makes the reply unreadable.
    """
    if line.lstrip().startswith(">"):
        return CITED
    out: list[str] = []
    kept_from = 0
    skip_to = 0
    opened: dict[int, tuple[str, int]] = {}  # family -> (opening mark, where)
    stack: list[int] = []  # open families, innermost last
    for found in _MARK.finditer(line):
        start = found.start()
        if start < skip_to:
            continue  # inside a code span
        mark = found.group()
        if mark[0] == "`":
            end = _code_end(line, mark, found.end())
            if end is None:
                return None
            skip_to = end
            if not stack:
                out += (line[kept_from:start], CITED)
                kept_from = end
            continue
        family = _FAMILY[mark]
        if mark in _APOSTROPHES and _is_apostrophe(line, start, family in opened):
            continue
        if family in opened:
            opening, begun = opened[family]
            if mark not in CLOSERS[opening] or stack[-1] != family:
                return None  # a pair no language writes, or two quotes that cross
            del opened[family]
            stack.pop()
            if not stack:
                out += (line[kept_from:begun], CITED)
                kept_from = start + 1
        elif mark in CLOSERS:
            opened[family] = (mark, start)
            stack.append(family)
        else:
            return None  # a closing mark with nothing open
    if stack:
        return None
    out.append(line[kept_from:])
    return "".join(out)


_VIETNAMESE_NUMBER_WORDS = (
    "không một mốt hai ba bốn tư năm lăm nhăm sáu bảy bẩy tám chín mười mươi chục trăm nghìn ngàn vạn "
    "triệu tỷ tỉ linh lẻ rưỡi rưởi nửa"
)
_ENGLISH_NUMBER_WORDS = (
    "zero nought naught nil one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion half halves dozen "
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth once twice thrice "
    "firstly secondly thirdly fourthly fifthly"
)
# Vietnamese: the cardinals, the forms they take in compounds (mốt, lăm, nhăm, tư, mươi, linh, lẻ),
# the large units and the halves. Several are also common words (không "not", một "a", năm "year",
# ba "father", chín "ripe"): a bare-score reply has no use for prose, so a line holding one is
# refused as readily as a hedge, and the retry asks for the number alone. English: the cardinals
# to twenty, the tens, the large units, halves and dozens, the ordinals to the tenth and the ordinal
# adverbs ("the fourth level fits better" after "Score: 5" is a second verdict, not prose).
NUMBER_WORDS: frozenset[str] = frozenset(f"{_VIETNAMESE_NUMBER_WORDS} {_ENGLISH_NUMBER_WORDS}".split())
"""Words for numbers (casefolded, NFC) that a bare-score reply may not hold outside its verdict."""

_WORD = re.compile(r"\w+")
# Roman numerals II-X in capitals (NFKC turns "Ⅳ" into "IV"); a lone "I" is the English pronoun.
_ROMAN = re.compile(r"IX|IV|VI{0,3}+|I{2,3}+|X")
_NUMERAL = r"(?:i{1,3}+|iv|v|vi{1,3}+|ix|x)"
# Lower-case numerals count only after a level word ("Level iv", "Mức ⅳ"); "vi" after a Vietnamese
# one only when no word follows ("mức vi phạm" is "level of violation").
_LEVEL_NUMERAL = re.compile(
    rf"(?<!\w)(?:(?:level|tier|grade|rank|band|class)\s++{_NUMERAL}"
    rf"|(?:mức|bậc|hạng|cấp|loại)\s++(?!vi\s++\w){_NUMERAL})(?!\w)",
    re.IGNORECASE,
)
# "thứ nhất"/"thứ nhứt" (first), "hạng nhì" (second rank), "hạng bét" (last), "đệ tứ" (fourth): the
# Sino-Vietnamese numerals only after a rank word ("nhất" alone is "most", "tứ" and "tam" are
# common syllables); not "mức nhất định" (to a certain extent), nor "thất" (mức thất bại, failure).
_VIETNAMESE_ORDINAL = re.compile(
    r"(?<!\w)(?:thứ|hạng|đệ|bậc|mức)\s++(?:nhất|nhứt|nhì|nhị|tam|tứ|ngũ|lục|bát|cửu|thập|bét)(?!\w)"
    r"(?!\s++định)",
    re.IGNORECASE,
)
STARS = "★☆⭐⭑⭒✩✪✫✬✭✮✯✰🌟⍟⋆"
"""Star characters: a star rating (``★★☆☆☆``) is a number written another way."""
_FILLED, _EMPTY = "●■▰✦◆▮⬤", "○□▱✧◇▯◯"
# A rating in other symbols: two or more of one symbol or emoji (``●●●``, ``🔥🔥``, ``👍🏽👍🏽``), a
# filled/empty mix (``●○``, ``▰▱``) and four or more asterisks (three are Markdown emphasis).
_RATING = re.compile(
    f"[{STARS}]|\\*{{4,}}+|[{_FILLED}][^\\S\\n]?+[{_EMPTY}]"
    "|(?P<symbol>[\u25a0-\u25ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff])"
    "(?:[\U0001f3fb-\U0001f3ff]?+[^\\S\\n]?+(?P=symbol))++"
)
# Cyrillic and Greek letters that look like Latin ones, folded before number words are matched
# ("fоurth" with a Cyrillic o).
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕһԁԛԝАВЕКМНОРСТХІЈЅοανικρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijshdqwABEKMHOPCTXIJSoavikptuxABEZHIKMNOPTYX",
)


def number_in(text: str) -> str | None:
    """The first digit-bearing token or number word of folded text, or None when it holds neither.

    A token counts when any of its characters is numeric (digits of any script, ``四``, ``½``),
    when it is one of `NUMBER_WORDS` (cardinals, ordinals and ordinal adverbs) or a capital Roman
    numeral from ``II`` to ``X``, once Cyrillic and Greek look-alikes are read as Latin letters;
    a lower-case Roman numeral after a level word (``Level iv``), a Vietnamese ordinal (``thứ nhì``,
    ``hạng bét``, ``đệ tứ``) and a rating in symbols (a star of `STARS`, ``●●○``, ``🔥🔥``,
    ``*****``) count too.

    Args:
        text: Folded text (cited spans already cut out).

    Returns:
        The token as written, or None.
    """
    for found in _WORD.finditer(text):
        token = found.group()
        latin = token.translate(_CONFUSABLES)
        if any(map(str.isnumeric, token)) or latin.casefold() in NUMBER_WORDS or _ROMAN.fullmatch(latin):
            return token
    latin = text.translate(_CONFUSABLES)
    other = _VIETNAMESE_ORDINAL.search(text) or _LEVEL_NUMERAL.search(latin) or _RATING.search(text)
    return other.group() if other else None
