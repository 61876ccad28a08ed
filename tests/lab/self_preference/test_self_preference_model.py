"""The self-preference measurement model: its likelihood, gradient, grid and what it recovers.

Scores are drawn from the model itself (leniency, scale, quality, noise, rounding, the 0-5 bound),
so the planted values are known; the gradient is checked against finite differences of the
likelihood, the grid against a much finer one.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special

from vivid_inspect.lab.self_preference import model


def draw(n: int, *, seed: int = 0, scales=(1.4, 1.0, 0.7), quality=(3.6, 3.0, 2.4), noise=0.5, shift=None):
    rng = np.random.default_rng(seed)
    blocks = []
    for g, q in enumerate(quality):
        z = rng.normal(size=n)
        latent = np.array(
            [
                2.5 + s * (q - 2.5 + 0.8 * z) + noise * rng.normal(size=n) + (shift or {}).get((j, g), 0.0)
                for j, s in enumerate(scales)
            ]
        ).T
        blocks.append(np.clip(np.rint(latent), 0, 5))
    return blocks


def _data(blocks, whole, step=None):
    grid, log_weights = model._grid(whole)
    if step is not None:
        grid = np.arange(-6.5, 6.5 + step / 2, step)
        log_weights = -0.5 * grid**2 - special.logsumexp(-0.5 * grid**2)
    return model._Data(
        values=tuple(blocks),
        onehot=tuple(model._onehot(b, whole) for b in blocks),
        clusters=tuple(np.arange(b.shape[0]) for b in blocks),
        whole=whole,
        grid=grid,
        log_weights=log_weights,
    )


@pytest.mark.parametrize("continuous", [False, True], ids=["whole", "one-continuous-judge"])
def test_the_gradient_is_the_likelihoods(continuous: bool) -> None:
    blocks = draw(30, seed=5)
    whole = np.array([True, True, not continuous])
    if continuous:
        rng = np.random.default_rng(1)
        for block in blocks:
            block[:, 2] = np.clip(block[:, 2] + rng.uniform(-0.45, 0.45, size=block.shape[0]), 0, 5)
    free = np.eye(3, dtype=bool)
    free[0, 1] = True
    layout = model._Layout(free)
    data = _data(blocks, whole)
    theta = model._start(layout, data) + np.random.default_rng(2).normal(size=layout.size) * 0.1
    numeric = optimize.approx_fprime(theta, lambda x: model._objective(x, layout, data)[0], 1e-6)
    analytic = model._objective(theta, layout, data)[1]
    np.testing.assert_allclose(analytic, numeric, atol=2e-3 * max(1.0, float(np.abs(analytic).max())))
    # Each item's gradient sums to the likelihood's (the penalties are on the noises and spreads only).
    per_item = model._item_gradients(theta, layout, data).sum(axis=0)
    unpenalised = slice(0, layout.bounds[3])
    np.testing.assert_allclose(-per_item[unpenalised], analytic[unpenalised], atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("noise", [0.6, 0.1])
def test_the_grid_integrates_as_finely_as_a_grid_ten_times_finer(noise: float) -> None:
    # Three judges agreeing up to their rounding (noise 0.1) give the narrowest item posteriors.
    blocks = draw(40, seed=2, noise=noise)
    whole = np.ones(3, dtype=bool)
    layout = model._Layout(np.eye(3, dtype=bool))
    data = _data(blocks, whole)
    theta = optimize.minimize(
        model._objective, model._start(layout, data), args=(layout, data), jac=True, method="L-BFGS-B"
    ).x
    fine = _data(blocks, whole, step=0.01)
    assert model._objective(theta, layout, data)[0] == pytest.approx(
        model._objective(theta, layout, fine)[0], abs=1e-4
    )


@pytest.mark.slow
def test_a_large_folder_recovers_the_planted_scales_and_shift() -> None:
    blocks = draw(600, seed=3, shift={(1, 1): 0.5})
    fit = model.fit(blocks, [np.arange(600)] * 3, np.eye(3, dtype=bool), np.ones(3, dtype=bool))
    planted = np.array([1.4, 1.0, 0.7])
    np.testing.assert_allclose(fit.scale, planted / np.exp(np.log(planted).mean()), rtol=0.08)
    np.testing.assert_allclose(np.diag(fit.shift), [0.0, 0.5, 0.0], atol=0.12)
    assert np.all(np.diag(fit.shift_se) < 0.08)
    assert np.isnan(fit.shift[~np.eye(3, dtype=bool)]).all()
    assert np.abs(fit.residual[~np.eye(3, dtype=bool)]).max() < 0.05


@pytest.mark.parametrize("whole", [True, False], ids=["rounded", "continuous"])
def test_the_model_mean_of_a_cell_is_the_mean_of_its_bounded_scores(whole: bool) -> None:
    rng = np.random.default_rng(0)
    for center, sd in ((4.6, 1.2), (0.3, 0.8), (2.5, 0.5)):
        latent = rng.normal(center, sd, size=400_000)
        scores = np.clip(np.rint(latent) if whole else latent, 0, 5)
        assert model._cell_mean(center, sd, whole) == pytest.approx(scores.mean(), abs=0.01)


def test_linked_and_the_parts_of_the_fitted_cells() -> None:
    in_fit = np.array([[False, True, False], [True, False, False], [False, False, True]])
    judges, generators = model.component_labels(in_fit)
    assert judges[0] == generators[1] and judges[1] == generators[0] and judges[2] == generators[2]
    assert judges[0] != judges[2]
    assert model.linked(in_fit)[0, 1] and not model.linked(in_fit)[0, 0] and model.linked(in_fit)[2, 2]
