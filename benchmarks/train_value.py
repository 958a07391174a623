"""Train a learned value on self-play positions (docs/bots.md, "The learned value").

    python3 benchmarks/train_value.py positions.npz [more.npz ...] --players 1 \\
        --hidden 32 --epochs 200 [--save 2]

Fits the final score of a seat from its features (benchmarks/selfplay.py writes them, for
the game named in the files: Café or Coffee Rush) with
three models, and reports each one's error on held-out games (a fifth of the deals, chosen
by the deal's number, never seen in training: positions of one game are alike, so a split by
position would flatter every model), at their turn ends (the positions bots compare); the
models learn from every step's position unless `--turn-ends-only`:

- `evaluation`: the hand-written evaluation, calibrated by a straight line (a x + b);
- `ridge`: ridge regression on all the features (closed form);
- `mlp`: one hidden layer of tanh units, trained by Adam on the mean squared error (numpy),
  with early stopping on a slice of the training games.

Errors are root mean squared, in points, overall and per round. `--judge N` (repeatable) also
reports the game's shipped model version N on the same held-out turn ends, with its bias
(its mean prediction less the mean final score): how a model fitted on one bot's games
judges another bot's positions. `--save N` writes the best
of ridge and mlp on the held-out games as the game's model (`cafe-value`, `rush-value`:
learned.DEFAULT_MODEL) version N into src/coffeetable/bots/models/ (`NAME-vN.json`, weights,
and `NAME-vN.toml`,
provenance: the command, the code's commit, the deck's sha256, the games, the date, the
errors). Needs numpy (the `rl` extra).
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import shlex
import sys
from typing import Any

import numpy as np
import numpy.typing as npt
from _provenance import commit

from coffeetable.bots.learned import DEFAULT_MODEL, FEATURES, ValueModel, load_model

Array = npt.NDArray[np.float64]
MODELS = pathlib.Path(__file__).resolve().parents[1] / "src" / "coffeetable" / "bots" / "models"
HELD_OUT = 5  # one deal in HELD_OUT is held out (by its number)


def read(paths: list[str], players: set[int], turn_ends_only: bool) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    sha = None
    game = None
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            d = {k: data[k] for k in data.files}
        name = str(d.get("game_name", "cafe"))  # files from before the name was kept: Café
        if game is not None and name != game:
            sys.exit(f"{path}: positions of {name}, the first file's are of {game}")
        game = name
        if name not in FEATURES or list(d["features"]) != list(FEATURES[name][0]):
            sys.exit(f"{path}: made with other features than this code's")
        if sha is not None and str(d["deck_sha256"]) != sha:
            sys.exit(f"{path}: another deck than the first file's")
        sha = str(d["deck_sha256"])
        parts.append(d)
    keys = ("x", "final", "margin", "win", "game", "seat", "round", "players", "turn_end")
    out = {k: np.concatenate([p[k] for p in parts]) for k in keys}
    keep = np.isin(out["players"], sorted(players))
    if turn_ends_only:
        keep &= out["turn_end"] == 1
    out = {k: v[keep] for k, v in out.items()}
    out["deck_sha256"] = sha
    out["game_name"] = game
    out["bots"] = sorted({str(b) for p in parts for b in p["bots"]})
    out["deals"] = len({int(g) for g in out["game"]})
    out["commands"] = [str(p["command"]) for p in parts if "command" in p]
    return out


def standardize(x: Array) -> tuple[Array, Array]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def fit_ridge(x: Array, y: Array, alpha: float = 1.0) -> tuple[Array, float]:
    """Weights and bias of ridge regression on standardized x."""
    y_mean = float(y.mean())
    a = x.T @ x + alpha * np.eye(x.shape[1])
    w = np.linalg.solve(a, x.T @ (y - y_mean))
    return w, y_mean


def fit_mlp(
    x: Array,
    y: Array,
    x_val: Array,
    y_val: Array,
    hidden: int,
    epochs: int,
    seed: int,
    lr: float = 3e-3,
    batch: int = 256,
    l2: float = 1e-4,
) -> tuple[list[tuple[Array, Array]], list[float]]:
    """A tanh MLP (one hidden layer) on standardized x and y, by Adam; the weights of the
    epoch with the lowest validation error, and the validation errors by epoch."""
    rng = np.random.default_rng(seed)
    n, d = x.shape
    params = [
        rng.normal(0, 1 / np.sqrt(d), (hidden, d)),
        np.zeros(hidden),
        rng.normal(0, 1 / np.sqrt(hidden), (1, hidden)),
        np.zeros(1),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    step = 0
    best = (np.inf, [p.copy() for p in params])
    history = []
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, yb = x[idx], y[idx]
            w1, c1, w2, c2 = params
            h = np.tanh(xb @ w1.T + c1)
            pred = (h @ w2.T + c2)[:, 0]
            err = (pred - yb) / len(idx)  # d(0.5 mse)/d pred
            g_w2 = err[None, :] @ h + l2 * w2
            g_c2 = np.array([err.sum()])
            dh = err[:, None] * w2 * (1 - h * h)
            g_w1 = dh.T @ xb + l2 * w1
            g_c1 = dh.sum(axis=0)
            step += 1
            for i, g in enumerate((g_w1, g_c1, g_w2, g_c2)):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                m_hat = m[i] / (1 - b1**step)
                v_hat = v[i] / (1 - b2**step)
                params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
        val = float(np.sqrt(np.mean((mlp_predict(params, x_val) - y_val) ** 2)))
        history.append(val)
        if val < best[0]:
            best = (val, [p.copy() for p in params])
    w1, c1, w2, c2 = best[1]
    return [(w1, c1), (w2, c2)], history


def mlp_predict(params: list[Array], x: Array) -> Array:
    w1, c1, w2, c2 = params
    return (np.tanh(x @ w1.T + c1) @ w2.T + c2)[:, 0]


def rmse(pred: Array, y: Array) -> float:
    return float(np.sqrt(np.mean((pred - y) ** 2)))


def by_round(pred: Array, y: Array, rounds: npt.NDArray[np.int32]) -> dict[int, float]:
    return {int(r): round(rmse(pred[rounds == r], y[rounds == r]), 3) for r in np.unique(rounds)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="+")
    parser.add_argument("--players", default="1", help="player counts to fit, e.g. 1 or 2,3,4")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--alpha", type=float, default=1.0, help="ridge penalty")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--turn-ends-only", action="store_true", help="train on turn ends only")
    parser.add_argument(
        "--save", type=int, metavar="VERSION", help="write the game's model NAME-vVERSION"
    )
    parser.add_argument(
        "--judge",
        type=int,
        action="append",
        default=[],
        metavar="VERSION",
        help="also report the game's shipped model NAME-vVERSION on the held-out turn ends",
    )
    args = parser.parse_args(argv)
    players = {int(p) for p in args.players.split(",")}
    data = read(args.files, players, args.turn_ends_only)
    x = data["x"].astype(np.float64)
    y = data["final"].astype(np.float64)
    if len(y) < 50:
        sys.exit(f"{len(y)} positions: too few to fit anything")
    games = data["game"]
    held_games = games % HELD_OUT == 0
    held = held_games & (data["turn_end"] == 1)  # errors are measured where bots use them
    val_slice = games % HELD_OUT == 1  # early stopping, taken from the training games
    train = ~held_games & ~val_slice
    mean, scale = standardize(x[~held_games])
    z = (x - mean) / scale
    y_mean, y_scale = float(y[~held_games].mean()), float(y[~held_games].std() or 1.0)
    t = (y - y_mean) / y_scale
    rounds = data["round"]
    results: dict[str, dict[str, Any]] = {}
    # the hand-written evaluation, calibrated by a line on the training games
    e = x[:, 0]
    a, b = np.polyfit(e[~held_games], y[~held_games], 1)
    calibrated = a * e + b
    results["evaluation"] = {
        "rmse": rmse(calibrated[held], y[held]),
        "rounds": by_round(calibrated[held], y[held], rounds[held]),
    }
    results["evaluation raw"] = {"rmse": rmse(e[held], y[held])}
    w, c = fit_ridge(z[~held_games], t[~held_games], args.alpha)
    ridge_pred = (z @ w + c) * y_scale + y_mean
    results["ridge"] = {
        "rmse": rmse(ridge_pred[held], y[held]),
        "rounds": by_round(ridge_pred[held], y[held], rounds[held]),
    }
    # with selfplay.py --others: the other seats where a turn ends (a search's leaves)
    held_others = held_games & (data["turn_end"] == 2)
    layers, history = fit_mlp(
        z[train], t[train], z[val_slice], t[val_slice], args.hidden, args.epochs, args.seed
    )
    flat = [layers[0][0], layers[0][1], layers[1][0], layers[1][1]]
    mlp_pred = mlp_predict(flat, z) * y_scale + y_mean
    results["mlp"] = {
        "rmse": rmse(mlp_pred[held], y[held]),
        "rounds": by_round(mlp_pred[held], y[held], rounds[held]),
        "best_epoch": int(np.argmin(history)) + 1,
    }
    print(
        f"{len(y)} positions from {data['deals']} games (players {sorted(players)}; bots {', '.join(data['bots'])}); "
        f"held out {len({int(g) for g in games[held]})} games ({int(held.sum())} turn ends); "
        f"final score mean {y.mean():.2f}, stdev {y.std():.2f}"
    )
    if held_others.any():
        for name, pred in (("evaluation", calibrated), ("ridge", ridge_pred), ("mlp", mlp_pred)):
            print(
                f"  {name:15s} held-out RMSE {rmse(pred[held_others], y[held_others]):.3f} "
                f"at the other seats' turn ends ({int(held_others.sum())})"
            )
    for version in args.judge:
        model = load_model(DEFAULT_MODEL[data["game_name"]], version)
        if model is None or list(model.features) != list(FEATURES[data["game_name"]][0]):
            sys.exit(f"no {DEFAULT_MODEL[data['game_name']]}-v{version} with these features")
        if model.deck_sha256 != data["deck_sha256"]:
            sys.exit(f"{model.label} was fitted for another deck")
        judged = np.array([model.predict([float(v) for v in row]) for row in x[held]])
        results[model.label] = {
            "rmse": rmse(judged, y[held]),
            "rounds": by_round(judged, y[held], rounds[held]),
            "bias": float(np.mean(judged - y[held])),
        }
    for name, r in results.items():
        rounds_text = ", ".join(f"r{k} {v}" for k, v in r.get("rounds", {}).items())
        print(
            f"  {name:15s} held-out RMSE {r['rmse']:.3f}"
            + (f", bias {r['bias']:+.2f}" if "bias" in r else "")
            + (f"  ({rounds_text})" if rounds_text else "")
        )
    if args.save is None:
        return
    game = data["game_name"]
    features = FEATURES[game][0]
    name = DEFAULT_MODEL[game]
    use_mlp = results["mlp"]["rmse"] <= results["ridge"]["rmse"]
    if use_mlp:
        model_layers = [(layers[0][0], layers[0][1]), (layers[1][0], layers[1][1])]
    else:
        model_layers = [(w[None, :], np.array([c]))]
    kind = f"mlp {len(features)}-{args.hidden}-1 (tanh), Adam" if use_mlp else "ridge regression"
    model = ValueModel(
        name=name,
        version=args.save,
        game=game,
        features=features,
        deck_sha256=data["deck_sha256"],
        players=tuple(sorted(players)),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        layers=tuple(
            (tuple(tuple(float(v) for v in row) for row in wl), tuple(float(v) for v in bl))
            for wl, bl in model_layers
        ),
        target_mean=y_mean,
        target_scale=y_scale,
        provenance={},
    )
    model.check()
    check = model.predict([float(v) for v in x[0]])
    expected = (mlp_pred if use_mlp else ridge_pred)[0]
    assert abs(check - expected) < 1e-6 * max(1.0, abs(expected)), (check, expected)
    stem = MODELS / f"{name}-v{args.save}"
    stem.with_suffix(".json").write_text(json.dumps(model.to_json()) + "\n", encoding="utf-8")
    chosen = "mlp" if use_mlp else "ridge"
    lines = [
        f"# provenance of {name}-v{args.save}.json (written by benchmarks/train_value.py)",
        f'model = "{kind}"',
        'target = "the seat\'s final score (points), from its features after each of its steps"',
        f'command = "{shlex.join(["python3", "benchmarks/train_value.py", *(argv if argv is not None else sys.argv[1:])])}"',
        f'commit = "{commit()}"',
        f'deck_sha256 = "{data["deck_sha256"]}"',
        f"players = {sorted(players)}",
        f"games = {data['deals']}",
        f"selfplay = {json.dumps(data['commands'], ensure_ascii=False)}",
        f"positions = {len(y)}",
        f"bots = {json.dumps(data['bots'])}",
        f'date = "{datetime.date.today().isoformat()}"',
        f"held_out_games = {len({int(g) for g in games[held]})}",
        f"held_out_rmse = {results[chosen]['rmse']:.4f}",
        f"held_out_rmse_ridge = {results['ridge']['rmse']:.4f}",
        f"held_out_rmse_evaluation = {results['evaluation']['rmse']:.4f}",
        f"final_score_stdev = {float(y.std()):.4f}",
    ]
    stem.with_suffix(".toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {stem}.json and .toml ({chosen})")


if __name__ == "__main__":
    main()
