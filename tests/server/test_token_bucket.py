"""A socket's own message limit (`auth.TokenBucket`): the same answers as the site's
`RateLimiter` asked about one key, for every sequence of times."""

from __future__ import annotations

import random

import pytest

from coffeetable.server.auth import RateLimiter, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("seed", range(12))
def test_one_key_of_the_rate_limiter_and_the_bucket_answer_alike(seed: int) -> None:
    rng = random.Random(seed)
    rate = rng.choice([0.5, 1 / 3, 1.0, 2.5, 10.0, 20.0])
    burst = rng.choice([1, 2, 3, 5, 40])
    clock = Clock()
    limiter = RateLimiter(rate_per_second=rate, burst=burst, clock=clock)
    bucket = TokenBucket(rate_per_second=rate, burst=burst, clock=clock)
    answers = []
    for _ in range(3000):
        if rng.random() < 0.3:  # else at once: bursts that empty the bucket
            clock.now += rng.choice(
                [1e-9, rng.random() / rate, 1 / rate, burst / rate, rng.random() * 3 / rate]
            )
        expected = limiter.allow("ws")
        assert bucket.allow() is expected
        answers.append(expected)
    assert True in answers and False in answers  # the sequence tried both sides


def test_a_bucket_refuses_past_its_burst_and_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate_per_second=2.0, burst=3, clock=clock)
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5  # one token back
    assert [bucket.allow() for _ in range(2)] == [True, False]
    clock.now += 100.0  # full, not more
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]


def test_a_bucket_checks_its_settings() -> None:
    with pytest.raises(ValueError, match="positive"):
        TokenBucket(rate_per_second=0.0, burst=1)
    with pytest.raises(ValueError, match="at least 1"):
        TokenBucket(rate_per_second=1.0, burst=0)
