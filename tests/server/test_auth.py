"""Tests of `coffeetable.server.auth`: passwords, session tokens, names, rate limiting.

Passwords are hashed with the cheap test parameters (`set_hash_cost("test")`) except where a
test is about the production parameters.
"""

from __future__ import annotations

import base64
import doctest
import hashlib
import html
import random
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from argon2 import PasswordHasher
from hypothesis import given
from hypothesis import strategies as st

from coffeetable.server import auth
from coffeetable.server.auth import (
    NAME_RULES,
    PASSWORD_RULES,
    SESSION_COOKIE,
    AuthError,
    RateLimiter,
    check_name,
    check_password,
    display_name,
    guest_name,
    hash_password,
    needs_rehash,
    new_session_token,
    token_hash,
    verify_password,
)


@pytest.fixture(autouse=True)
def cheap_hashes() -> Iterator[None]:
    previous = auth.set_hash_cost("test")
    yield
    auth.set_hash_cost(previous)


# --- passwords ------------------------------------------------------------------------------


def test_hash_and_verify_round_trip() -> None:
    stored = hash_password("correct horse")
    assert stored.startswith("$argon2id$v=19$")
    assert verify_password(stored, "correct horse")


def test_wrong_password_is_false() -> None:
    stored = hash_password("correct horse")
    assert not verify_password(stored, "correct hors")
    assert not verify_password(stored, "Correct horse")
    assert not verify_password(stored, "")


def test_two_hashes_of_one_password_differ() -> None:
    first, second = hash_password("same password"), hash_password("same password")
    assert first != second  # a new salt each time
    assert verify_password(first, "same password")
    assert verify_password(second, "same password")


def _absurd_memory_hash() -> str:
    return re.sub(r"m=\d+", "m=100000000", hash_password("password1"))  # 95 GiB


@pytest.mark.parametrize(
    "bad_hash",
    [
        "",
        "garbage",
        "$argon2id$v=19$m=65536,t=3,p=4$",
        "$argon2id$v=19$m=1,t=1,p=1$c2FsdHNhbHQ$aGFzaA",
        "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",  # bcrypt
        "$argon2id$v=19$m=8,t=1,p=1$ééé$ééé",
        "sha256:5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
    ],
)
def test_malformed_hash_is_false(bad_hash: str) -> None:
    assert not verify_password(bad_hash, "password1")
    assert needs_rehash(bad_hash)


def test_truncated_corrupt_or_absurd_hash_is_false() -> None:
    stored = hash_password("password1")
    assert not verify_password(stored[:-5], "password1")
    assert not verify_password(stored[:20], "password1")
    assert not verify_password(_absurd_memory_hash(), "password1")
    assert not verify_password(123, "password1")  # type: ignore[arg-type]


def test_no_hash_or_odd_password_is_false() -> None:
    stored = hash_password("password1")
    assert not verify_password(None, "password1")  # a guest, or no such user
    assert not verify_password(stored, None)  # type: ignore[arg-type]
    assert not verify_password(stored, "password1" * 100)


def test_needs_rehash_after_a_parameter_change() -> None:
    cheap = hash_password("password1")
    assert not needs_rehash(cheap)
    auth.set_hash_cost("production")
    assert needs_rehash(cheap)
    assert verify_password(cheap, "password1")  # old hashes still verify
    strong = hash_password("password1")
    assert not needs_rehash(strong)
    auth.set_hash_cost(PasswordHasher(time_cost=3, memory_cost=8, parallelism=1))
    assert needs_rehash(strong)
    assert needs_rehash(cheap)


def test_production_parameters() -> None:
    auth.set_hash_cost("production")
    assert auth.current_hasher() is auth.PRODUCTION_HASHER
    assert hash_password("password1").startswith("$argon2id$v=19$m=19456,t=2,p=1$")


def test_set_hash_cost_refuses_unknown_costs() -> None:
    with pytest.raises(ValueError, match="hash cost"):
        auth.set_hash_cost("cheap")  # type: ignore[arg-type]


def test_passwords_are_nfkc_normalised() -> None:
    composed, decomposed = "café-au-lait", "cafe\u0301-au-lait"
    assert verify_password(hash_password(composed), decomposed)
    assert verify_password(hash_password(decomposed), composed)


@pytest.mark.parametrize(
    "password", ["correct horse battery", "x7Gq!w2Lm9", "пароль из трёх слов", "🔑🍩🚲🌵🎻🦉📎🧊"]
)
def test_acceptable_passwords(password: str) -> None:
    check_password(password)
    assert verify_password(hash_password(password), password)


@pytest.mark.parametrize(
    "password", ["12345678", "password", "password1", " " * 8, "aaaaaaaa", "x" * 128, "qwertyuiop"]
)
def test_common_and_trivial_passwords_are_refused(password: str) -> None:
    with pytest.raises(AuthError) as refused:
        check_password(password)
    assert refused.value.code == "weak" and "guess" in str(refused.value)
    # hashing checks the length only (the policy is the registration's)
    assert verify_password(hash_password(password), password)


def test_a_password_made_of_the_name_is_weak() -> None:
    check_password("Zorblatquint")
    with pytest.raises(AuthError):
        check_password("Zorblatquint", ["Zorblatquint"])


@pytest.mark.parametrize(
    ("password", "code", "words"),
    [
        ("", "too_short", "too short: use at least 8 characters"),
        ("1234567", "too_short", "too short"),
        ("x" * 129, "too_long", "too long: use at most 128 characters"),
        (12345678, "bad_type", "must be text"),
    ],
)
def test_refused_passwords(password: str, code: str, words: str) -> None:
    with pytest.raises(AuthError, match=words) as caught:
        check_password(password)
    assert caught.value.code == code
    assert code in PASSWORD_RULES
    assert isinstance(caught.value, ValueError)
    with pytest.raises(AuthError):
        hash_password(password)


# --- sessions -------------------------------------------------------------------------------


def test_session_tokens_are_random_and_url_safe() -> None:
    tokens = {new_session_token() for _ in range(1000)}
    assert len(tokens) == 1000
    for token in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token)
        assert len(base64.urlsafe_b64decode(token + "=")) == 32  # 256 bits


def test_token_hash_is_stable_sha256_hex() -> None:
    assert token_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    token = new_session_token()
    assert token_hash(token) == token_hash(token) == hashlib.sha256(token.encode()).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", token_hash(token))
    assert token_hash(token) != token_hash(new_session_token())


def test_session_constants_and_cookie() -> None:
    assert SESSION_COOKIE == "coffeetable_session"
    assert auth.SESSION_TTL.total_seconds() == 30 * 86400
    assert auth.GUEST_TTL.total_seconds() == 2 * 86400
    cookie = auth.session_cookie("tok", guest=False)
    assert cookie == {
        "key": "coffeetable_session",
        "value": "tok",
        "max_age": 30 * 86400,
        "path": "/",
        "secure": True,
        "httponly": True,
        "samesite": "lax",
    }
    guest_cookie = auth.session_cookie("tok", guest=True, secure=False)
    assert guest_cookie["max_age"] == 2 * 86400
    assert guest_cookie["secure"] is False


def test_session_expiry() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert auth.session_expires_at(guest=False, now=now) == datetime(2026, 1, 31, tzinfo=UTC)
    assert auth.session_expires_at(guest=True, now=now) == datetime(2026, 1, 3, tzinfo=UTC)
    assert auth.session_expires_at(guest=True).tzinfo is not None
    with pytest.raises(ValueError, match="timezone-aware"):
        auth.session_expires_at(guest=False, now=datetime(2026, 1, 1))


# --- names ----------------------------------------------------------------------------------

GOOD_NAMES = [
    ("Alice", "Alice"),
    ("  bob_99\t", "bob_99"),
    ("x.y-z_1", "x.y-z_1"),
    ("007bond", "007bond"),
    ("abc", "abc"),
    ("a" * 20, "a" * 20),
    ("ＡｌｉｃＥ", "AlicE"),  # full-width letters
    ("Ｂｏｂ１２", "Bob12"),  # and digits
    ("Zoe\u0308", "Zoë"),  # composed by NFKC
    ("ǅemal", "Džemal"),
    ("Müller", "Müller"),
    ("Straße", "Straße"),
    ("Иван", "Иван"),
    ("Ελένη", "Ελένη"),
    ("山田太郎", "山田太郎"),
    ("やまだタロウ", "やまだタロウ"),
    ("ヤマダー", "ヤマダー"),
    ("Taro山田", "Taro山田"),
    ("김철수", "김철수"),
    ("राहुल", "राहुल"),
    ("श्री", "श्री"),
    ("สมชาย", "สมชาย"),
    ("محمد", "محمد"),
    ("דוד", "דוד"),
    ("Botany", "Botany"),
    ("Guests", "Guests"),
    ("rooted", "rooted"),
    ("Bob.", "Bob."),
]


@pytest.mark.parametrize(("name", "normalised"), GOOD_NAMES)
def test_good_names(name: str, normalised: str) -> None:
    assert check_name(name) == normalised
    assert check_name(normalised) == normalised


BAD_NAMES = [
    # (name, code, words the message must contain)
    ("", "too_short", "too short: use at least 3 characters"),
    ("ab", "too_short", "too short"),
    ("  ab  ", "too_short", "too short"),
    ("a" * 21, "too_long", "too long: use at most 20 characters"),
    ("a" * 1000, "too_long", "too long"),
    ("<script>", "bad_character", "'<' (U+003C) is not allowed"),
    ("a>bc", "bad_character", "'>' (U+003E) is not allowed"),
    ("Tom&Jerry", "bad_character", "'&' (U+0026) is not allowed"),
    ('say"hi"', "bad_character", "'\"' (U+0022) is not allowed"),
    ("O'Brien", "bad_character", "U+0027) is not allowed"),
    ("a/b/c", "bad_character", "'/' (U+002F) is not allowed"),
    ("smile😀", "bad_character", "U+1F600) is not allowed"),
    ("abc٣", "bad_character", "U+0663) is not allowed"),  # Arabic-Indic three
    ("aʼbc", "bad_character", "U+02BC) is not allowed"),  # a modifier letter
    ("ann bob", "space", "must not contain spaces"),
    ("ann\u3000bob", "space", "must not contain spaces"),  # ideographic space
    ("ann\u00a0bob", "space", "must not contain spaces"),
    ("ab\u200dcd", "invisible_character", "invisible or control character (U+200D)"),  # ZWJ
    ("ab\u200bcd", "invisible_character", "invisible or control character (U+200B)"),
    ("abc\u202efed", "invisible_character", "invisible or control character (U+202E)"),  # RTL
    ("\u2067abc", "invisible_character", "(U+2067)"),  # right-to-left isolate
    ("Tom\u00adas", "invisible_character", "(U+00AD)"),  # soft hyphen
    ("ab\ufe0fc", "invisible_character", "(U+FE0F)"),  # variation selector
    ("\u3164\u3164\u3164", "invisible_character", "invisible"),  # Hangul filler
    ("ab\tc", "invisible_character", "(U+0009)"),
    ("ab\x00c", "invisible_character", "(U+0000)"),
    ("\u0301abc", "bad_mark", "combining mark (U+0301) that is not on a letter"),
    ("1\u0301abc", "bad_mark", "not on a letter"),
    ("aq\u0301\u0300\u0302\u0303b", "bad_mark", "too many combining marks"),
    ("_alice", "leading_punctuation", "must start with a letter or digit"),
    (".alice", "leading_punctuation", "must start with a letter or digit"),
    ("-alice", "leading_punctuation", "must start with a letter or digit"),
    ("12345", "no_letter", "at least one letter"),
    ("1-2-3", "no_letter", "at least one letter"),
    ("１２３４", "no_letter", "at least one letter"),  # full-width digits
    ("Аdmin", "mixed_scripts", "mixes scripts (Cyrillic, Latin)"),  # Cyrillic А
    ("pаypal", "mixed_scripts", "mixes scripts"),
    ("Ivan_Иван", "mixed_scripts", "mixes scripts"),
    ("김철수Иван", "mixed_scripts", "mixes scripts"),
    ("admin", "reserved", "'admin' is reserved"),
    ("ADMIN", "reserved", "is reserved"),
    ("Administrator", "reserved", "is reserved"),
    ("root", "reserved", "is reserved"),
    ("System", "reserved", "is reserved"),
    ("server", "reserved", "is reserved"),
    ("Moderator", "reserved", "is reserved"),
    ("guest", "reserved", "is reserved"),
    ("BOT", "reserved", "is reserved"),
    ("CoffeeTable", "reserved", "is reserved"),
    ("Coffee_Table", "reserved", "is reserved"),
    ("ａｄｍｉｎ", "reserved", "is reserved"),  # full-width
    ("adm1n", "reserved", "is reserved"),
    ("r00t", "reserved", "is reserved"),
    ("ВОТ", "reserved", "is reserved"),  # Cyrillic capitals
    ("Guest-K7QM2X", "reserved", "starting with 'Guest' and a separator are reserved"),
    ("guest-anna", "reserved", "starting with 'Guest'"),
    ("GUEST_anna", "reserved", "starting with 'Guest'"),
    ("bot-easy", "reserved", "starting with 'Bot' and a separator are reserved"),
    ("Bot.Alice", "reserved", "starting with 'Bot'"),
    ("b0t-x", "reserved", "starting with 'Bot'"),
    (None, "bad_type", "must be text"),
]


@pytest.mark.parametrize(("name", "code", "words"), BAD_NAMES)
def test_bad_names(name: str, code: str, words: str) -> None:
    with pytest.raises(AuthError) as caught:
        check_name(name)
    assert caught.value.code == code
    assert code in NAME_RULES  # the rules the server names in its answers
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_guest_names() -> None:
    names = {guest_name() for _ in range(200)}
    assert len(names) > 190
    for name in names:
        assert re.fullmatch(r"Guest-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}", name)
        assert not set(name[6:]) & set("0O1lI")
        with pytest.raises(AuthError, match="reserved"):
            check_name(name)  # nobody registers a guest's name
        assert check_name(name, allow_guest_prefix=True) == name


def test_guest_name_with_a_seeded_rng_is_reproducible() -> None:
    assert guest_name(random.Random(7)) == guest_name(random.Random(7))
    assert guest_name(random.Random(7)) != guest_name(random.Random(8))


def test_guest_prefix_exception_is_narrow() -> None:
    assert check_name("Guest-Anna", allow_guest_prefix=True) == "Guest-Anna"
    for name in ["guest", "bot-easy", "admin", "Guest<x>"]:
        with pytest.raises(AuthError):
            check_name(name, allow_guest_prefix=True)


def test_display_name_escapes_html() -> None:
    assert display_name("Alice") == "Alice"
    assert display_name('<b>"T&J\'s"</b>') == "&lt;b&gt;&quot;T&amp;J&#x27;s&quot;&lt;/b&gt;"


_NAME_ALPHABET = "abcXYZ019_-.éßИвΩ山やヤ김ा\u0301 <&\"'\u200d\u202e\uff21"
_name_candidates = st.one_of(
    st.text(max_size=25),
    st.text(alphabet=_NAME_ALPHABET, max_size=25),
    st.text(alphabet=st.characters(categories=["L", "M", "Nd", "Pc", "Pd"]), max_size=25),
    st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{2,19}", fullmatch=True),
)


@given(_name_candidates, st.booleans())
def test_accepted_names_are_fixed_points_and_html_safe(name: str, guest_prefix: bool) -> None:
    try:
        accepted = check_name(name, allow_guest_prefix=guest_prefix)
    except AuthError:
        return
    assert check_name(accepted, allow_guest_prefix=guest_prefix) == accepted
    assert html.escape(accepted) == accepted == display_name(accepted)
    assert unicodedata.normalize("NFKC", accepted) == accepted == accepted.strip()
    assert 3 <= len(accepted) <= 20


# --- rate limiting --------------------------------------------------------------------------


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_burst_then_refused() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_second=0.5, burst=3, clock=clock)
    assert [limiter.allow("ip") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("other")  # keys have their own buckets


def test_refill_and_retry_after() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_second=0.5, burst=2, clock=clock)
    assert limiter.retry_after("ip") == 0.0
    assert limiter.allow("ip")
    assert limiter.retry_after("ip") == 0.0
    assert limiter.allow("ip")
    assert limiter.retry_after("ip") == pytest.approx(2.0)
    clock.advance(0.5)
    assert limiter.retry_after("ip") == pytest.approx(1.5)
    assert not limiter.allow("ip")
    assert limiter.retry_after("ip") == pytest.approx(1.5)  # a refused call costs nothing
    clock.advance(1.5)
    assert limiter.retry_after("ip") == 0.0
    assert limiter.allow("ip")
    assert not limiter.allow("ip")
    clock.advance(3600)  # refills up to the burst, no further
    assert [limiter.allow("ip") for _ in range(3)] == [True, True, False]


def test_fractional_rates_refill_exactly() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_second=1 / 3, burst=1, clock=clock)
    for _ in range(50):
        assert limiter.allow("k")
        assert not limiter.allow("k")
        clock.advance(1.0)
        clock.advance(1.0)
        clock.advance(1.0)


def test_retry_after_takes_no_token_and_remembers_nothing() -> None:
    limiter = RateLimiter(rate_per_second=1, burst=1, clock=FakeClock())
    for _ in range(5):
        assert limiter.retry_after("k") == 0.0
    assert len(limiter) == 0
    assert limiter.allow("k")


def test_idle_keys_are_forgotten() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_second=1, burst=5, clock=clock)
    for key in range(100):
        limiter.allow(key)
    assert len(limiter) == 100
    clock.advance(4.9)  # not full yet
    limiter.allow("new")
    assert len(limiter) == 101
    clock.advance(0.1)  # the first 100 have refilled: forgetting them changes nothing
    limiter.allow("new")
    assert len(limiter) == 1


def test_key_cap_drops_the_least_recently_used() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_second=0.001, burst=1, clock=clock, max_keys=3)
    for key in "abc":
        assert limiter.allow(key)
    assert not limiter.allow("a")  # "a" is now the most recently used
    assert limiter.allow("d")  # drops "b"
    assert len(limiter) == 3
    assert limiter.retry_after("a") > 0
    assert limiter.retry_after("b") == 0.0  # forgotten: forgiven
    assert limiter.retry_after("c") > 0
    for number in range(10_000):
        limiter.allow(number)
    assert len(limiter) == 3


def test_reset_forgives_a_key() -> None:
    limiter = RateLimiter(rate_per_second=0.1, burst=1, clock=FakeClock())
    assert limiter.allow("user:1")
    assert not limiter.allow("user:1")
    limiter.reset("user:1")
    limiter.reset("never seen")
    assert limiter.allow("user:1")


@pytest.mark.parametrize(
    ("rate", "burst", "max_keys"), [(0, 1, 10), (-1.0, 1, 10), (1.0, 0, 10), (1.0, 1, 0)]
)
def test_rate_limiter_refuses_nonsense(rate: float, burst: int, max_keys: int) -> None:
    with pytest.raises(ValueError):
        RateLimiter(rate, burst, max_keys=max_keys)


def test_docstring_examples() -> None:
    result = doctest.testmod(auth, raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0
