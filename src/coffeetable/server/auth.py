"""Accounts without a framework: passwords, session tokens, user names, rate limits.

Pure helpers the web app calls; nothing here knows about HTTP or the database. See
`docs/server-auth.md` for the policy in prose.

- Passwords: argon2id through argon2-cffi (`hash_password`, `verify_password`,
  `needs_rehash`, `check_password`). A hash takes tens of milliseconds of CPU: call these
  from a worker thread (`await asyncio.to_thread(hash_password, pw)`), not on the event
  loop. argon2-cffi releases the GIL while hashing.
- Sessions: a random URL-safe token goes into the cookie `SESSION_COOKIE`; the database
  stores only `token_hash(token)`.
- Names: `check_name` normalises (NFKC, stripped) and validates a name chosen at
  registration; `guest_name` makes the name of a guest.
- `RateLimiter`: a token bucket per key (client address, user id, ...).
"""

from __future__ import annotations

import hashlib
import html
import math
import random
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

from argon2 import PasswordHasher, Type
from argon2.exceptions import Argon2Error

if TYPE_CHECKING:  # (types only: auth needs no storage to run)
    from coffeetable.server.storage import Storage, User

#: The rules a name or a password can break: the `code` of an AuthError (and the `rule` of
#: the server's 400 answer), for clients that say which rule in the user's language.
NAME_RULES: Final = (
    "bad_type",
    "too_short",
    "too_long",
    "invisible_character",
    "space",
    "bad_mark",
    "bad_character",
    "leading_punctuation",
    "no_letter",
    "mixed_scripts",
    "reserved",
)
PASSWORD_RULES: Final = ("bad_type", "too_short", "too_long", "weak")


class AuthError(ValueError):
    """A password or name that the rules refuse. `str(error)` is a sentence to show the user;
    `code` names the rule for programs (e.g. "too_short", "reserved"; one of NAME_RULES or
    PASSWORD_RULES)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


# --- passwords ------------------------------------------------------------------------------

MIN_PASSWORD_LENGTH: Final = 8
MAX_PASSWORD_LENGTH: Final = 128

HashCost = Literal["production", "test"]

# argon2id as recommended by OWASP (19 MiB, 2 passes, 1 lane): about 35 ms per hash on the
# project's 2-core machine (see docs/server-auth.md), and 19 MiB of memory per hash running.
PRODUCTION_HASHER: Final = PasswordHasher(
    time_cost=2, memory_cost=19 * 1024, parallelism=1, hash_len=32, salt_len=16, type=Type.ID
)
# The cheapest parameters argon2 allows (8 KiB, 1 pass): microseconds, for tests only.
TEST_HASHER: Final = PasswordHasher(
    time_cost=1, memory_cost=8, parallelism=1, hash_len=32, salt_len=16, type=Type.ID
)

_hasher: PasswordHasher = PRODUCTION_HASHER
_dummy_hash: tuple[PasswordHasher, str] | None = None


def set_hash_cost(cost: HashCost | PasswordHasher) -> PasswordHasher:
    """Choose the hasher of `hash_password` (and the parameters `needs_rehash` expects):
    "production" (the default), "test" (cheap, for test suites) or any `PasswordHasher`.
    Returns the hasher that was in use, so a test can put it back."""
    global _hasher
    previous = _hasher
    if isinstance(cost, PasswordHasher):
        _hasher = cost
    elif cost == "production":
        _hasher = PRODUCTION_HASHER
    elif cost == "test":
        _hasher = TEST_HASHER
    else:
        raise ValueError(
            f"hash cost must be 'production', 'test' or a PasswordHasher, not {cost!r}"
        )
    return previous


def current_hasher() -> PasswordHasher:
    return _hasher


def _normalise_password(password: str) -> str:
    # The same password typed on two keyboards may arrive composed or decomposed (é as one
    # code point or as e + accent); NFKC makes them one (NIST SP 800-63B, 5.1.1.2).
    return unicodedata.normalize("NFKC", password)


#: zxcvbn's score (0-4) below which a password is refused as too easy to guess: 0 and 1 are
#: "too guessable" and "very guessable" (under 10**6 guesses: common passwords, keyboard
#: walks, repeats, dates, dictionary words with obvious changes).
MIN_PASSWORD_SCORE: Final = 2
#: zxcvbn's work grows with the length; a longer password is judged by its first characters
#: (128 at most are accepted anyway).
_SCORED_LENGTH: Final = 64


def check_password(
    password: str, user_inputs: Sequence[str] = (), *, strength: bool = True
) -> None:
    """Raise `AuthError` unless the password is acceptable: 8 to 128 characters (after
    Unicode NFKC normalisation), and not common or trivial: zxcvbn (Dropbox's strength
    estimator, with its lists of common passwords, names and words) must score it at least
    `MIN_PASSWORD_SCORE`, also counting `user_inputs` (the name) as known words. No
    character classes are required."""
    if not isinstance(password, str):
        raise AuthError("The password must be text.", "bad_type")
    length = len(_normalise_password(password))
    if length < MIN_PASSWORD_LENGTH:
        raise AuthError(
            f"The password is too short: use at least {MIN_PASSWORD_LENGTH} characters.",
            "too_short",
        )
    if length > MAX_PASSWORD_LENGTH:
        raise AuthError(
            f"The password is too long: use at most {MAX_PASSWORD_LENGTH} characters.",
            "too_long",
        )
    if not strength:
        return
    from zxcvbn import zxcvbn  # type: ignore[import-untyped]  # (no type information; its word lists load on first use: about 0.3 s, once)

    verdict = zxcvbn(
        _normalise_password(password)[:_SCORED_LENGTH],
        user_inputs=[str(u)[:100] for u in user_inputs],
    )
    if verdict["score"] < MIN_PASSWORD_SCORE:
        raise AuthError(
            "The password is too easy to guess (a common password, a simple pattern or "
            "repeats): use a few unrelated words, or a longer mix.",
            "weak",
        )


def hash_password(password: str) -> str:
    """The argon2id hash to store, in the PHC string format ("$argon2id$v=19$m=...").
    Applies `check_password`'s length rules first (`AuthError`); how easy a password is to
    guess is the registration's check. Every call uses a new random salt."""
    check_password(password, strength=False)
    return _hasher.hash(_normalise_password(password))


def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether `password` matches the stored hash. Never raises: False for a wrong password,
    a malformed or foreign hash, or a password that is not text or is longer than any
    accepted one. `password_hash=None` (a guest, or no such user) is False too, after the
    same work as a real check, so that the answer's timing does not tell whether a name
    exists."""
    if password_hash is not None and not isinstance(password_hash, str):
        return False
    if not isinstance(password, str) or len(password) > 4 * MAX_PASSWORD_LENGTH:
        # No accepted password is this long, even typed decomposed (e + accent) before NFKC
        # composes it: refuse it without spending a hash on it.
        return False
    if password_hash is None:
        _verify(_dummy_password_hash(), password)
        return False
    return _verify(password_hash, password)


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, _normalise_password(password))
    except (Argon2Error, ValueError, TypeError):
        # Argon2Error: a mismatch, or a hash argon2 cannot decode or run (even one asking for
        # absurd memory); ValueError: not an argon2 PHC string at all (InvalidHashError) or
        # not ASCII; TypeError: not a string.
        return False


def _dummy_password_hash() -> str:
    global _dummy_hash
    if _dummy_hash is None or _dummy_hash[0] is not _hasher:
        _dummy_hash = (_hasher, _hasher.hash(secrets.token_urlsafe(16)))
    return _dummy_hash[1]


def needs_rehash(password_hash: str) -> bool:
    """Whether the hash was made with other parameters than the current ones: after a
    successful `verify_password`, hash the password again and store the new hash. True
    also for a hash that cannot be read (it should be replaced too)."""
    if not isinstance(password_hash, str):
        return True
    try:
        return _hasher.check_needs_rehash(password_hash)
    except ValueError:  # InvalidHashError, and non-ASCII text
        return True


# --- sessions -------------------------------------------------------------------------------

SESSION_COOKIE: Final = "coffeetable_session"
SESSION_TTL: Final = timedelta(days=30)
GUEST_TTL: Final = timedelta(days=2)
SESSION_TOKEN_BYTES: Final = 32  # 256 bits of entropy; 43 characters in URL-safe base64


def new_session_token() -> str:
    """A new session token: 32 random bytes from `secrets`, URL-safe base64, no padding."""
    return secrets.token_urlsafe(SESSION_TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the database stores for a token: SHA-256 of its UTF-8 bytes, in lowercase hex.
    A fast hash is right here (unlike for passwords): the token has 256 random bits, so
    nobody can guess it from its hash."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def session_expires_at(*, guest: bool, now: datetime | None = None) -> datetime:
    """When a session begun `now` (default: the present, UTC) ends: `GUEST_TTL` for a guest,
    `SESSION_TTL` otherwise. Timezone-aware, as the storage layer requires."""
    if now is None:
        now = datetime.now(UTC)
    elif now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    return now + (GUEST_TTL if guest else SESSION_TTL)


def session_cookie(token: str, *, guest: bool, secure: bool = True) -> dict[str, Any]:
    """The cookie's attributes, named as Starlette's `Response.set_cookie` takes them:
    `response.set_cookie(**session_cookie(token, guest=False))`. HttpOnly (scripts cannot
    read it), SameSite=Lax (not sent on cross-site POSTs), Secure unless `secure=False`
    (plain-HTTP development only), and it lasts as long as the session."""
    ttl = GUEST_TTL if guest else SESSION_TTL
    return {
        "key": SESSION_COOKIE,
        "value": token,
        "max_age": int(ttl.total_seconds()),
        "path": "/",
        "secure": secure,
        "httponly": True,
        "samesite": "lax",
    }


# --- names ----------------------------------------------------------------------------------

MIN_NAME_LENGTH: Final = 3
MAX_NAME_LENGTH: Final = 20
NAME_PUNCTUATION: Final = frozenset("_-.")
RESERVED_NAMES: Final = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "server",
        "moderator",
        "guest",
        "bot",
        "coffeetable",
    }
)
RESERVED_PREFIXES: Final = ("guest", "bot")  # followed by "-", "_" or "."
GUEST_PREFIX: Final = "Guest-"
GUEST_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/l
GUEST_CODE_LENGTH: Final = 6

# The Default_Ignorable_Code_Point ranges of Unicode (DerivedCoreProperties.txt): characters
# that render as nothing. Most are format characters (category Cf, refused anyway), but some
# are letters or marks, such as the Hangul fillers and the variation selectors.
_INVISIBLE_RANGES: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_INVISIBLE_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MAX_MARKS_IN_A_ROW: Final = 3  # Thai and Indic clusters need 2 or 3; "Zalgo" text needs more
# Scripts that may share a name (Unicode TR 39, "highly restrictive"): Japanese, Korean and
# Chinese (Bopomofo) writing each mixes Han with its own script, and Latin with any of them.
_SCRIPT_MIXES: Final = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
# Letters that look like Latin ones, for comparing with the reserved names: "ВОТ" in
# Cyrillic capitals is "BOT" to the eye. Also digits used as letters ("r00t", "adm1n").
_LOOKALIKES: Final = str.maketrans(
    {
        **dict(zip("АВЕЅІЈКМНОРСТХУаеіјорсхуѕԁһӏ", "ABESIJKMHOPCTXYaeijopcxysdhl", strict=True)),
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοινρτυ", "ABEZHIKMNOPTYXoivptu", strict=True)),
        **dict(zip("013457", "oleast", strict=True)),
    }
)


def _is_invisible(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) in _INVISIBLE_CATEGORIES or any(
        low <= code <= high for low, high in _INVISIBLE_RANGES
    )


def _script(ch: str) -> str | None:
    """The script of a letter or mark, from the first word of its Unicode name ("LATIN SMALL
    LETTER A"); None for marks common to all scripts ("COMBINING ACUTE ACCENT")."""
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
    if word == "COMBINING":
        return None
    if word in ("CJK", "IDEOGRAPHIC"):
        return "HAN"
    if word == "KATAKANA-HIRAGANA":  # the prolonged sound mark
        return "KATAKANA"
    return word


def _skeleton(name: str) -> str:
    """`name` as compared with the reserved names: lookalikes made Latin, case folded, and
    "rn" read as "m"; separators are kept (callers drop them where they should not count)."""
    folded = name.translate(_LOOKALIKES).casefold()
    return folded.replace("rn", "m").translate(str.maketrans("1i|", "lll"))


_RESERVED_SKELETONS: Final = frozenset(_skeleton(name) for name in RESERVED_NAMES)


def _describe(ch: str) -> str:
    """A character for a message: its code point, after it the character itself if it shows
    on its own (not an invisible character, a space or a combining mark)."""
    code = f"U+{ord(ch):04X}"
    visible = unicodedata.category(ch)[0] in "LNPS" and not _is_invisible(ch)
    return f"{ch!r} ({code})" if visible else code


def check_name(name: str, *, allow_guest_prefix: bool = False) -> str:
    """The user name to store, normalised (Unicode NFKC, surrounding spaces removed), or
    `AuthError` saying what is wrong. The rules:

    - 3 to 20 characters;
    - letters of any script, the digits 0-9, "_", "-" and "."; no spaces, no symbols (so no
      "<", ">", "&" or quotes), no invisible, control or format characters (zero-width
      joiner, right-to-left override, ...); combining marks only on a letter, 3 at most;
    - starts with a letter or digit and has at least one letter (no all-digit names);
    - letters of one script, except the mixes of Latin, Han and Japanese, Korean or
      Bopomofo that TR 39 allows (so no Latin "Admin" with a Cyrillic "А");
    - not a reserved name (admin, root, bot, guest, ...), compared without regard to case,
      separators or common lookalikes ("B0T", "Ad-min"), and not starting with "guest" or
      "bot" followed by a separator: those names are the server's (`guest_name`).
      `allow_guest_prefix=True` lets the "guest" prefix through (for guest names only).

    Guest names come from `guest_name`, which makes valid ones by construction; the server
    need not pass them through here.
    """
    if not isinstance(name, str):
        raise AuthError("The name must be text.", "bad_type")
    if len(name) > 10 * MAX_NAME_LENGTH:  # bound the work on absurd input
        raise _too_long()
    name = unicodedata.normalize("NFKC", name).strip()

    marks_in_a_row = 0
    previous = ""
    for ch in name:
        category = unicodedata.category(ch)
        if _is_invisible(ch):
            raise AuthError(
                f"The name contains an invisible or control character ({_describe(ch)}).",
                "invisible_character",
            )
        if ch.isspace() or category == "Zs":
            raise AuthError("The name must not contain spaces.", "space")
        if category[0] == "M" and category != "Me":
            marks_in_a_row += 1
            if not previous or not (previous.isalpha() or marks_in_a_row > 1):
                raise AuthError(
                    f"The name has a combining mark ({_describe(ch)}) that is not on a letter.",
                    "bad_mark",
                )
            if marks_in_a_row > _MAX_MARKS_IN_A_ROW:
                raise AuthError(
                    f"The name has too many combining marks on one letter (at most {_MAX_MARKS_IN_A_ROW}).",
                    "bad_mark",
                )
        else:
            marks_in_a_row = 0
            letter = category[0] == "L" and not unicodedata.name(ch, "").startswith("MODIFIER")
            if not (letter or ch in "0123456789" or ch in NAME_PUNCTUATION):
                raise AuthError(
                    f"The character {_describe(ch)} is not allowed in a name: use letters, "
                    "digits, '_', '-' and '.'.",
                    "bad_character",
                )
        previous = ch

    if len(name) < MIN_NAME_LENGTH:
        raise AuthError(
            f"The name is too short: use at least {MIN_NAME_LENGTH} characters.", "too_short"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise _too_long()
    if name[0] in NAME_PUNCTUATION:
        raise AuthError("The name must start with a letter or digit.", "leading_punctuation")
    if not any(ch.isalpha() for ch in name):
        raise AuthError("The name must contain at least one letter.", "no_letter")

    scripts = {s for ch in name if not ch.isascii() for s in [_script(ch)] if s is not None}
    if any(ch.isascii() and ch.isalpha() for ch in name):
        scripts.add("LATIN")
    if len(scripts) > 1 and not any(scripts <= mix for mix in _SCRIPT_MIXES):
        raise AuthError(
            "The name mixes scripts ("
            + ", ".join(sorted(s.title() for s in scripts))
            + "): use letters of one script.",
            "mixed_scripts",
        )

    skeleton = _skeleton(name)
    if "".join(ch for ch in skeleton if ch not in NAME_PUNCTUATION) in _RESERVED_SKELETONS:
        raise AuthError(f"The name {name!r} is reserved.", "reserved")
    for prefix in RESERVED_PREFIXES:
        if prefix == "guest" and allow_guest_prefix:
            continue
        reserved = _skeleton(prefix)
        if skeleton.startswith(reserved) and skeleton[len(reserved) : len(reserved) + 1] in (
            NAME_PUNCTUATION
        ):
            raise AuthError(
                f"Names starting with {prefix.title()!r} and a separator are reserved.",
                "reserved",
            )
    return name


#: Characters a seat name of an imported record may have besides letters, digits and marks:
#: records name seats "Ana", "bot ismcts:medium" or "human:0".
SEAT_NAME_PUNCTUATION: Final = frozenset(" _-.:()#'")
MAX_SEAT_NAME_LENGTH: Final = 64


def check_seat_name(name: str) -> str:
    """A seat name of an imported record, normalised (NFKC, stripped), or `AuthError`: what
    `check_name` says about characters (letters, digits, combining marks on a letter, no
    invisible, control or format characters such as a right-to-left override, no symbols such
    as "<" or "&"), with spaces and ":()#'" allowed too, 1 to 64 characters, and not
    reserved."""
    if not isinstance(name, str):
        raise AuthError("The name must be text.", "bad_type")
    name = unicodedata.normalize("NFKC", name[: 10 * MAX_SEAT_NAME_LENGTH]).strip()
    if not name:
        raise AuthError("The name is empty.", "too_short")
    if len(name) > MAX_SEAT_NAME_LENGTH:
        raise AuthError(
            f"The name is too long: at most {MAX_SEAT_NAME_LENGTH} characters.", "too_long"
        )
    previous = ""
    for ch in name:
        category = unicodedata.category(ch)
        if _is_invisible(ch):
            raise AuthError(
                f"The name contains an invisible or control character ({_describe(ch)}).",
                "invisible_character",
            )
        if category[0] == "M":
            if not previous.isalpha():
                raise AuthError(
                    f"The name has a combining mark ({_describe(ch)}) that is not on a letter.",
                    "bad_mark",
                )
            continue
        if not (category[0] in "LN" or ch in SEAT_NAME_PUNCTUATION):
            raise AuthError(
                f"The character {_describe(ch)} is not allowed in a name.", "bad_character"
            )
        previous = ch
    return name


def _too_long() -> AuthError:
    return AuthError(f"The name is too long: use at most {MAX_NAME_LENGTH} characters.", "too_long")


_system_random = secrets.SystemRandom()


def guest_name(rng: random.Random | None = None) -> str:
    """A new guest's name, "Guest-" and 6 characters of `GUEST_ALPHABET` (e.g.
    "Guest-K7QM2X"): 32**6, about 10**9, names. Drawn with `secrets` unless `rng` is given;
    on a clash with a stored name (`DuplicateNameError`) draw another."""
    rng = rng or _system_random
    return GUEST_PREFIX + "".join(rng.choice(GUEST_ALPHABET) for _ in range(GUEST_CODE_LENGTH))


def display_name(name: str) -> str:
    """The name escaped for server-rendered HTML (text or a quoted attribute). Names that
    `check_name` accepts never change; this guards against anything older or stranger."""
    return html.escape(name, quote=True)


# --- rate limiting --------------------------------------------------------------------------


#: float rounding: 3 * (1/3) of a token is a whole token
_EPSILON: Final = 1e-9


def _refilled(tokens: float, then: float, now: float, rate: float, burst: int) -> float:
    """A bucket's tokens at `now`, given `tokens` at `then`: `rate` a second, up to `burst`."""
    return min(float(burst), tokens + max(0.0, now - then) * rate)


def _take(tokens: float) -> tuple[bool, float]:
    """Take one token if there is one: whether the action may go on, and the tokens left."""
    if tokens >= 1.0 - _EPSILON:
        return True, max(0.0, tokens - 1.0)
    return False, tokens


def _checked_rate(rate_per_second: float, burst: int) -> float:
    """A token bucket's rate as a float, once its settings are checked (ValueError)."""
    if not rate_per_second > 0:
        raise ValueError(f"rate_per_second must be positive, not {rate_per_second!r}")
    if burst < 1:
        raise ValueError(f"burst must be at least 1, not {burst!r}")
    return float(rate_per_second)


class RateLimiter:
    """A token bucket per key: each key may act `burst` times at once, and regains
    `rate_per_second` actions per second, up to `burst`.

    Memory is bounded: a key whose bucket has refilled is forgotten (it behaves exactly as a
    new key), and beyond `max_keys` keys the least recently used one is dropped, which
    forgives it. Not thread-safe: the server calls it from its one event loop only.

    >>> limiter = RateLimiter(rate_per_second=1.0, burst=2, clock=lambda: 0.0)
    >>> [limiter.allow("1.2.3.4") for _ in range(3)], limiter.retry_after("1.2.3.4")
    ([True, True, False], 1.0)
    """

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_keys: int = 100_000,
    ) -> None:
        if max_keys < 1:
            raise ValueError(f"max_keys must be at least 1, not {max_keys!r}")
        self.rate = _checked_rate(rate_per_second, burst)
        self.burst = burst
        self.max_keys = max_keys
        self._clock = clock
        self._refill_time = burst / self.rate  # from empty to full
        # key -> (tokens, when they were counted); least recently used first. Every update
        # moves its key to the end, so the times increase along the dict.
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        """How many keys are remembered."""
        return len(self._buckets)

    def _tokens(self, key: Hashable, now: float) -> float:
        bucket = self._buckets.get(key)
        if bucket is None:
            return float(self.burst)
        tokens, then = bucket
        return _refilled(tokens, then, now, self.rate, self.burst)

    def allow(self, key: Hashable) -> bool:
        """Take one token from the key's bucket if it has one: whether the action may go on."""
        now = self._clock()
        self._forget_idle(now)
        allowed, tokens = _take(self._tokens(key, now))
        self._buckets[key] = (tokens, now)
        self._buckets.move_to_end(key)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return allowed

    def retry_after(self, key: Hashable) -> float:
        """Seconds until `allow(key)` would succeed (0.0 if it would now); for a
        Retry-After header, round up. Takes no token."""
        missing = 1.0 - self._tokens(key, self._clock())
        return 0.0 if missing <= _EPSILON else missing / self.rate

    def reset(self, key: Hashable) -> None:
        """Forget the key: its bucket is full again (e.g. after a successful login)."""
        self._buckets.pop(key, None)

    def _forget_idle(self, now: float) -> None:
        while self._buckets:
            key, (_, then) = next(iter(self._buckets.items()))
            if now - then < self._refill_time:
                break  # the rest were used later still
            del self._buckets[key]


class TokenBucket:
    """One key's `RateLimiter`: `burst` actions at once, `rate_per_second` regained a second,
    up to `burst`; the same answers as `RateLimiter(...).allow(key)` for one key, without the
    keys' bookkeeping. A socket's own messages are counted by one (a move's message asks it
    once; docs/server.md, "The hot path, ninth pass").

    >>> bucket = TokenBucket(rate_per_second=1.0, burst=2, clock=lambda: 0.0)
    >>> [bucket.allow() for _ in range(3)]
    [True, True, False]
    """

    __slots__ = ("_clock", "_refill_time", "_then", "_tokens", "burst", "rate")

    def __init__(
        self, rate_per_second: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = _checked_rate(rate_per_second, burst)
        self.burst = burst
        self._clock = clock
        self._refill_time = burst / self.rate  # from empty to full
        self._tokens = float(burst)
        self._then = -math.inf  # full, whenever it is first asked

    def allow(self) -> bool:
        """Take one token if there is one: whether the action may go on."""
        now = self._clock()
        then = self._then
        if now - then >= self._refill_time:  # refilled (RateLimiter forgets the key)
            tokens = float(self.burst)
        else:
            tokens = _refilled(self._tokens, then, now, self.rate, self.burst)
        allowed, self._tokens = _take(tokens)
        self._then = now
        return allowed


async def user_of_token(storage: Storage, token: str | None) -> User | None:
    """The user of a session cookie's token: None for no token, an unknown or expired
    session, or a suspended account (every route and socket asks this)."""
    if not token or len(token) > 200:
        return None
    user = await storage.get_session_user(token_hash(token))
    return None if user is None or user.suspended else user
