"""The measurement model behind ``vivid audit --from``: leniency, scale, quality and self-preference.

Every judge scores the same items of each generator (an item is one explanation: a sample and
epoch of one generation). An item ``u`` of generator ``g`` has a quality ``z`` (standard normal,
its own), and judge ``j`` reads it as the latent score

    y* = c[j] + s[j] * (q[g] + t[g] * z) + d[j, g] + e,      e ~ N(0, sigma[j, g]^2)

``c[j]`` is the judge's leniency, ``s[j]`` its scale (how widely it spreads what it sees, the same
for generators and for items), ``q[g]`` the generator's quality, ``t[g]`` how much its items differ,
``sigma[j, g]`` the judge's noise on that generator's items, and ``d[j, g]`` a shift of the cell's
own. ``d`` is free only where judge and generator may share a family (their own family, or a family
unknown on either side); elsewhere it is 0: those cells are what leniency, scale and quality are
fitted on. The score the log holds is ``y*`` rounded to a whole number and kept within 0-5 (a judge
whose scores are not all whole numbers: ``y*`` kept within 0-5), so a generator near the top is
compressed by the bound and the fit accounts for it: ``d`` is in score points before the bound.

Why this is identified: the scale cannot come from cell means (on 3 x 3 families with the own
family on the diagonal, six other-family means and seven free parameters), but an item's quality is
shared by every judge that scores it, so the judges' covariances across the items of a generator
give ``s[j] * t[g]`` (a one-factor model; three judges on one generator's items identify it, two
do not: one covariance and two variances cannot tell two scales from two noises). Given the
scales, the means of the other-family cells give leniency and quality where they link a judge to a
generator (see `linked`), and an own-family cell's shift is what remains. A shift that is the
same for every item, or noise unrelated to the item's quality, leaves the covariances as they are,
so a self-preferring judge does not move its own scale.

The fit is maximum likelihood with the item's quality integrated out on a fixed grid, with weak
normal penalties on the logarithms of the noises and item spreads (so a cell whose scores never
vary has a finite noise instead of none). The intervals are Wald intervals with a cluster-robust
(sandwich) variance, a cluster being one item of the data (its sample id in one data set): items are
independent of each other, whatever the generators share on one item. Their coverage is measured by
``bench/coverage_selfpref.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

SCORE_MIN, SCORE_MAX = 0.0, 5.0
"""The judges' score range: a latent score beyond it is read as the bound."""
_GRID_HALF_WIDTH = 6.5  # the item quality z is integrated over [-6.5, 6.5]
_WHOLE_STEP, _CONTINUOUS_STEP = 0.1, 0.05
# Weak penalties: log noise ~ N(log 0.6, 1.5^2), log item spread ~ N(0, 1.5^2). They keep a cell
# whose scores never vary (or a generator whose items are all alike) at a finite value.
_LOG_NOISE_PRIOR = (math.log(0.6), 1.5)
_LOG_SPREAD_PRIOR = (0.0, 1.5)
_LOG_2PI = math.log(2 * math.pi)


class ModelError(ValueError):
    """The fit did not settle: the message says which part of the design leaves it free."""


def linked(in_fit: np.ndarray) -> np.ndarray:
    """Which cells the fitted cells determine: judge and generator linked through them.

    Args:
        in_fit: ``[judge, generator]`` booleans, the cells leniency and quality are fitted on.

    Returns:
        ``[judge, generator]`` booleans: True where judge and generator are in one connected part
        of the bipartite graph whose edges are the fitted cells. Given the scales, the fitted means
        are ``c[j] + s[j] * q[g]``, additive in ``c / s`` and ``q`` after dividing by ``s``, so a cell
        is predicted exactly when this holds.
    """
    return component_labels(in_fit)[0][:, None] == component_labels(in_fit)[1][None, :]


def component_labels(in_fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The connected part of each judge and each generator in the graph of fitted cells."""
    n_judges, n_generators = in_fit.shape
    parent = list(range(n_judges + n_generators))  # union-find: judges, then generators

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in zip(*np.nonzero(in_fit), strict=True):
        parent[root(int(a))] = root(n_judges + int(b))
    roots = np.array([root(node) for node in range(n_judges + n_generators)])
    return roots[:n_judges], roots[n_judges:]


@dataclass(frozen=True)
class ModelFit:
    """The fitted model (arrays over judges ``J`` and generators ``G``).

    Attributes:
        leniency: ``c[j]``, the judge's latent score of its part's average generator.
        scale: ``s[j]``, relative to the judges' geometric mean (1).
        quality: ``q[g]``, centred on its part's generators (0 on average).
        spread: ``s * t[g]`` of the judges' geometric mean scale: how much the generator's items
            differ, in score points.
        noise: ``sigma[j, g]``.
        shift: ``d[j, g]`` where free and determined by the fitted cells; NaN elsewhere.
        shift_se: Its standard error (cluster-robust); NaN where ``shift`` is.
        scale_se: Standard error of ``log s[j]``.
        expected: ``[J, G]``: the mean score the model gives the cell without its shift, bound
            and rounding included.
        residual: Mean score minus the model's mean for fitted cells (the fit's check); NaN elsewhere.
        residual_se: Its standard error.
        clusters: Independent items (clusters) the variance is computed over.
        converged: Whether the optimiser met its tolerance.
    """

    leniency: np.ndarray
    scale: np.ndarray
    quality: np.ndarray
    spread: np.ndarray
    noise: np.ndarray
    shift: np.ndarray
    shift_se: np.ndarray
    scale_se: np.ndarray
    expected: np.ndarray
    residual: np.ndarray
    residual_se: np.ndarray
    clusters: int
    converged: bool

    def interval(self, value: np.ndarray, se: np.ndarray, coverage: float) -> tuple[np.ndarray, np.ndarray]:
        """A two-sided Wald interval at ``coverage``, with a t quantile on ``clusters - 1`` degrees."""
        quantile = float(stats.t.ppf(0.5 + coverage / 2, max(self.clusters - 1, 1)))
        return value - quantile * se, value + quantile * se

    def p_value(self, value: float, se: float) -> float:
        """The two-sided p-value of ``value = 0`` matching `interval`."""
        if se <= 0:
            return 0.0 if value else 1.0
        return float(2 * stats.t.sf(abs(value) / se, max(self.clusters - 1, 1)))


class _Layout:
    """Where each parameter sits in the optimiser's vector, and the fixed ones."""

    def __init__(self, free: np.ndarray) -> None:
        self.n_judges, self.n_generators = free.shape
        self.free = free
        judge_part, generator_part = component_labels(~free)
        # Location: per connected part, its first generator's quality is 0; a judge with no fitted
        # cell (a part of its own) has leniency 0. Shifts absorb the rest.
        self.reference_generators = {
            int(np.nonzero(generator_part == part)[0][0]) for part in set(generator_part.tolist())
        }
        self.lone_judges = {
            j for j in range(self.n_judges) if judge_part[j] not in set(generator_part.tolist())
        }
        self.c_index = [j for j in range(self.n_judges) if j not in self.lone_judges]
        self.q_index = [g for g in range(self.n_generators) if g not in self.reference_generators]
        self.cells = [(int(a), int(b)) for a, b in zip(*np.nonzero(free), strict=True)]
        sizes = [
            len(self.c_index),
            self.n_judges - 1,
            len(self.q_index),
            self.n_generators,
            self.n_judges * self.n_generators,
            len(self.cells),
        ]
        self.bounds = np.cumsum([0, *sizes])
        self.size = int(self.bounds[-1])
        self.judge_part = judge_part
        self.generator_part = generator_part

    def block(self, number: int, theta: np.ndarray) -> np.ndarray:
        return theta[self.bounds[number] : self.bounds[number + 1]]

    def unpack(self, theta: np.ndarray) -> tuple[np.ndarray, ...]:
        """``c[J], log s[J], q[G], log t[G], log sigma[J, G], d[J, G]`` from the vector."""
        c = np.zeros(self.n_judges)
        c[self.c_index] = self.block(0, theta)
        partial = self.block(1, theta)
        log_s = np.append(partial, -partial.sum())  # geometric mean 1
        q = np.zeros(self.n_generators)
        q[self.q_index] = self.block(2, theta)
        log_t = self.block(3, theta).copy()
        log_sigma = self.block(4, theta).reshape(self.n_judges, self.n_generators)
        d = np.zeros((self.n_judges, self.n_generators))
        for value, (a, b) in zip(self.block(5, theta), self.cells, strict=True):
            d[a, b] = value
        return c, log_s, q, log_t, log_sigma, d

    def pack_gradient(
        self, gc: np.ndarray, gs: np.ndarray, gq: np.ndarray, gt: np.ndarray, gsig: np.ndarray, gd: np.ndarray
    ) -> np.ndarray:
        """The vector's gradient from the gradients of the full arrays (leading axis kept)."""
        parts = [
            gc[..., self.c_index],
            gs[..., :-1] - gs[..., -1:],
            gq[..., self.q_index],
            gt,
            gsig.reshape(*gsig.shape[:-2], -1),
            np.stack([gd[..., a, b] for a, b in self.cells], axis=-1)
            if self.cells
            else np.zeros((*gd.shape[:-2], 0)),
        ]
        return np.concatenate(parts, axis=-1)


def _log_interval(alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log(Phi(beta) - Phi(alpha))`` and its derivatives in the mean and in log sigma.

    ``alpha`` and ``beta`` are the standardised interval ends ``(bound - mean) / sigma``; either
    may be infinite. Returns ``(log p, d log p / d mean * sigma, d log p / d log sigma)``.
    """
    upper = alpha > 0  # both ends in the upper tail: use the survival function for precision
    lo = np.where(upper, -beta, alpha)
    hi = np.where(upper, -alpha, beta)
    log_hi = special.log_ndtr(hi)
    log_lo = special.log_ndtr(lo)
    log_p = log_hi + np.log1p(-np.exp(np.minimum(log_lo - log_hi, -1e-300)))
    log_pdf_a = np.where(np.isfinite(alpha), -0.5 * alpha**2 - 0.5 * _LOG_2PI, -np.inf)
    log_pdf_b = np.where(np.isfinite(beta), -0.5 * beta**2 - 0.5 * _LOG_2PI, -np.inf)
    ratio_a = np.exp(log_pdf_a - log_p)
    ratio_b = np.exp(log_pdf_b - log_p)
    d_mean = ratio_a - ratio_b
    with np.errstate(invalid="ignore"):
        d_log_sigma = np.where(np.isfinite(alpha), alpha * ratio_a, 0.0) - np.where(
            np.isfinite(beta), beta * ratio_b, 0.0
        )
    return log_p, d_mean, d_log_sigma


def _whole_tables(mean: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log probability of each whole score 0-5 on each grid node, and its derivatives.

    Args:
        mean: ``[..., K]`` latent means.
        sigma: Noise, broadcastable to ``mean`` without its last axis.

    Returns:
        ``[..., K, 6]`` arrays: log p, d log p / d mean, d log p / d log sigma.
    """
    levels = np.arange(int(SCORE_MIN), int(SCORE_MAX) + 1, dtype=float)
    low = np.where(levels <= SCORE_MIN, -np.inf, levels - 0.5)
    high = np.where(levels >= SCORE_MAX, np.inf, levels + 0.5)
    scale = np.asarray(sigma)[..., None, None]
    alpha = (low - mean[..., None]) / scale
    beta = (high - mean[..., None]) / scale
    log_p, d_mean, d_log_sigma = _log_interval(alpha, beta)
    return log_p, d_mean / scale, d_log_sigma


def _continuous_terms(
    values: np.ndarray, mean: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log density of continuous scores (a score at 0 or 5 is "at or beyond" it), and derivatives.

    Args:
        values: ``[n]`` one judge's scores of one generator's items.
        mean: ``[K]`` the latent mean on each grid node.
        sigma: The cell's noise.

    Returns:
        ``[n, K]`` arrays: log p, d log p / d mean, d log p / d log sigma.
    """
    inside = (values > SCORE_MIN) & (values < SCORE_MAX)
    r = (values[:, None] - mean[None, :]) / sigma
    log_p = -0.5 * r**2 - math.log(sigma) - 0.5 * _LOG_2PI
    d_mean = r / sigma
    d_log_sigma = r**2 - 1
    if not inside.all():
        at_low = values <= SCORE_MIN
        alpha = np.where(at_low[:, None], -np.inf, (SCORE_MAX - mean[None, :]) / sigma)
        beta = np.where(at_low[:, None], (SCORE_MIN - mean[None, :]) / sigma, np.inf)
        lp, dm, dls = _log_interval(alpha, beta)
        log_p = np.where(inside[:, None], log_p, lp)
        d_mean = np.where(inside[:, None], d_mean, dm / sigma)
        d_log_sigma = np.where(inside[:, None], d_log_sigma, dls)
    return log_p, d_mean, d_log_sigma


@dataclass(frozen=True)
class _Data:
    values: tuple[np.ndarray, ...]  # per generator, [n_g, J]
    onehot: tuple[np.ndarray, ...]  # per generator, [n_g, J_whole * 6]: which whole score each judge gave
    clusters: tuple[np.ndarray, ...]  # per generator, [n_g] cluster codes
    whole: np.ndarray  # [J]
    grid: np.ndarray
    log_weights: np.ndarray


def _onehot(values: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """``[n, J_whole * 6]``: 1 where the judge (of the whole-number judges) gave that score."""
    levels = np.clip(np.rint(values[:, whole]), SCORE_MIN, SCORE_MAX).astype(int)
    size = int(SCORE_MAX - SCORE_MIN) + 1
    out = np.zeros((values.shape[0], levels.shape[1] * size))
    rows = np.repeat(np.arange(values.shape[0]), levels.shape[1])
    columns = (np.arange(levels.shape[1]) * size + levels).ravel()
    out[rows, columns] = 1.0
    return out


def _objective(theta: np.ndarray, layout: _Layout, data: _Data) -> tuple[float, np.ndarray]:
    """Negative penalised log likelihood and its gradient."""
    value, gradient, _ = _evaluate(theta, layout, data, per_item=False)
    return value, gradient


def _item_gradients(theta: np.ndarray, layout: _Layout, data: _Data) -> np.ndarray:
    """``[items, parameters]``: each item's log likelihood gradient (no penalty), generators in order."""
    return np.concatenate(_evaluate(theta, layout, data, per_item=True)[2], axis=0)


def _evaluate(
    theta: np.ndarray, layout: _Layout, data: _Data, *, per_item: bool
) -> tuple[float, np.ndarray, list[np.ndarray]]:
    """Negative penalised log likelihood, its gradient, and (``per_item``) each item's gradient.

    Whole scores take six values, so each judge's log probability of each score on each grid node
    is computed once per cell, and an item's log likelihood is a product of its scores' rows: a
    matrix product of the items' one-hot scores with that table.
    """
    c, log_s, q, log_t, log_sigma, d = layout.unpack(theta)
    s, t, sigma = np.exp(log_s), np.exp(log_t), np.exp(log_sigma)
    n_judges, n_generators = layout.n_judges, layout.n_generators
    z = data.grid
    k = z.size
    # [J, G, K]: every cell's latent mean on every grid node.
    mean = c[:, None, None] + s[:, None, None] * (q[None, :, None] + t[None, :, None] * z) + d[:, :, None]
    whole = np.nonzero(data.whole)[0]
    others = np.nonzero(~data.whole)[0]
    if whole.size:
        # [J_whole, G, 6, K]
        lp_t, dm_t, dls_t = (np.moveaxis(a, -1, -2) for a in _whole_tables(mean[whole], sigma[whole]))
        lp_t = np.maximum(lp_t, -1e10)  # a 0 in the one-hot matrix must not meet -inf
    total = 0.0
    gc, gs = np.zeros(n_judges), np.zeros(n_judges)
    gq, gt = np.zeros(n_generators), np.zeros(n_generators)
    gsig, gd = np.zeros((n_judges, n_generators)), np.zeros((n_judges, n_generators))
    items: list[np.ndarray] = []
    for g, values in enumerate(data.values):
        n = values.shape[0]
        log_joint = np.broadcast_to(data.log_weights, (n, k)).copy()
        if whole.size:
            log_joint += data.onehot[g] @ lp_t[:, g].reshape(-1, k)
        continuous = [_continuous_terms(values[:, j], mean[j, g], float(sigma[j, g])) for j in others]
        for lp, _, _ in continuous:
            log_joint += lp
        top = log_joint.max(axis=1, keepdims=True)
        weights = np.exp(log_joint - top)
        norm = weights.sum(axis=1, keepdims=True)
        total += float((np.log(norm) + top).sum())
        post = weights / norm  # each item's posterior over the grid
        # e_mu[n, j] = E[d log p / d mean], e_muz the same times z, e_ls for log sigma.
        if per_item:
            e_mu, e_muz, e_ls = np.zeros((n, n_judges)), np.zeros((n, n_judges)), np.zeros((n, n_judges))
            if whole.size:
                picked = data.onehot[g].reshape(n, whole.size, -1)  # [n, J_whole, 6]
                e_mu[:, whole] = np.einsum("nk,njv,jvk->nj", post, picked, dm_t[:, g])
                e_muz[:, whole] = np.einsum("nk,njv,jvk->nj", post * z, picked, dm_t[:, g])
                e_ls[:, whole] = np.einsum("nk,njv,jvk->nj", post, picked, dls_t[:, g])
            for j, (_, dm, dls) in zip(others, continuous, strict=True):
                e_mu[:, j], e_muz[:, j], e_ls[:, j] = (
                    (post * dm).sum(1),
                    (post * dm * z).sum(1),
                    (post * dls).sum(1),
                )
            iq = np.zeros((n, n_generators))
            iq[:, g] = e_mu @ s
            it = np.zeros((n, n_generators))
            it[:, g] = t[g] * (e_muz @ s)
            isig = np.zeros((n, n_judges, n_generators))
            isig[:, :, g] = e_ls
            idd = np.zeros((n, n_judges, n_generators))
            idd[:, :, g] = e_mu
            items.append(layout.pack_gradient(e_mu, s * (q[g] * e_mu + t[g] * e_muz), iq, it, isig, idd))
            continue
        sum_mu, sum_muz, sum_ls = np.zeros(n_judges), np.zeros(n_judges), np.zeros(n_judges)
        if whole.size:
            # Posterior mass per (judge, score) and node: [J_whole, 6, K].
            mass = (data.onehot[g].T @ post).reshape(whole.size, -1, k)
            sum_mu[whole] = (mass * dm_t[:, g]).sum(axis=(1, 2))
            sum_muz[whole] = (mass * dm_t[:, g] * z).sum(axis=(1, 2))
            sum_ls[whole] = (mass * dls_t[:, g]).sum(axis=(1, 2))
        for j, (_, dm, dls) in zip(others, continuous, strict=True):
            sum_mu[j], sum_muz[j], sum_ls[j] = (post * dm).sum(), (post * dm * z).sum(), (post * dls).sum()
        gc += sum_mu
        gs += s * (q[g] * sum_mu + t[g] * sum_muz)
        gq[g] += float(sum_mu @ s)
        gt[g] += float(t[g] * (sum_muz @ s))
        gsig[:, g] += sum_ls
        gd[:, g] += sum_mu
    if per_item:
        return math.nan, np.zeros(0), items
    # The penalties (their negative log density, up to a constant).
    noise_mean, noise_sd = _LOG_NOISE_PRIOR
    spread_mean, spread_sd = _LOG_SPREAD_PRIOR
    penalty = 0.5 * float((((log_sigma - noise_mean) / noise_sd) ** 2).sum())
    penalty += 0.5 * float((((log_t - spread_mean) / spread_sd) ** 2).sum())
    gsig -= (log_sigma - noise_mean) / noise_sd**2
    gt -= (log_t - spread_mean) / spread_sd**2
    gradient = layout.pack_gradient(gc, gs, gq, gt, gsig, gd)
    return -(total - penalty), -gradient, items


def _grid(whole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The quality grid and its log weights (a standard normal, trapezoid rule).

    A step of 0.1 integrates an item's likelihood to 1e-6 even when three judges agree up to their
    rounding (tests/lab/self_preference/test_self_preference_model.py); continuous scores, whose densities can be
    narrower, get 0.05.
    """
    step = _WHOLE_STEP if whole.all() else _CONTINUOUS_STEP
    grid = np.arange(-_GRID_HALF_WIDTH, _GRID_HALF_WIDTH + step / 2, step)
    log_weights = -0.5 * grid**2
    log_weights -= special.logsumexp(log_weights)
    return grid, log_weights


def _start(layout: _Layout, data: _Data) -> np.ndarray:
    """Starting values from moments: scales from score spreads, then means, then noises."""
    n_judges, n_generators = layout.n_judges, layout.n_generators
    means = np.array([v.mean(axis=0) for v in data.values]).T  # [J, G]
    spreads = np.array([v.std(axis=0) for v in data.values]).T
    log_scale = np.log(np.maximum(spreads.mean(axis=1), 0.2))
    log_scale -= log_scale.mean()
    s = np.exp(log_scale)
    # Means over the fitted cells of c + s q: one pass of averaging on the rescaled means.
    fitted = ~layout.free
    scaled = means / s[:, None]
    q = np.array(
        [
            scaled[fitted[:, g], g].mean() if fitted[:, g].any() else scaled[:, g].mean()
            for g in range(n_generators)
        ]
    )
    for part in set(layout.generator_part.tolist()):
        members = layout.generator_part == part
        q[members] -= q[members][0]
    c = np.array(
        [
            (means[j, fitted[j]] - s[j] * q[fitted[j]]).mean() if fitted[j].any() else 0.0
            for j in range(n_judges)
        ]
    )
    c[list(layout.lone_judges)] = 0.0
    d = np.where(layout.free, means - c[:, None] - s[:, None] * q[None, :], 0.0)
    covariances = []
    for values in data.values:
        if values.shape[0] > 2:
            cov = np.cov(values.T)
            off = cov[~np.eye(n_judges, dtype=bool)].reshape(n_judges, n_judges - 1)
            covariances.append(max(float(off.mean()), 0.05))
        else:
            covariances.append(0.5)
    log_t = 0.5 * np.log(np.array(covariances))
    log_sigma = np.full((n_judges, n_generators), _LOG_NOISE_PRIOR[0])
    return np.concatenate(
        [
            c[layout.c_index],
            log_scale[:-1],
            q[layout.q_index],
            log_t,
            log_sigma.ravel(),
            np.array([d[a, b] for a, b in layout.cells]),
        ]
    )


def _hessian(theta: np.ndarray, layout: _Layout, data: _Data) -> np.ndarray:
    """The objective's Hessian by central differences of its gradient."""
    size = theta.size
    hessian = np.zeros((size, size))
    for i in range(size):
        step = 1e-4 * max(1.0, abs(theta[i]))
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        hessian[:, i] = (_objective(up, layout, data)[1] - _objective(down, layout, data)[1]) / (2 * step)
    return (hessian + hessian.T) / 2


def _cell_mean(center: float, sd: float, whole: bool) -> float:
    """The mean score of a normal latent score read within 0-5 (rounded when ``whole``)."""
    if whole:
        levels = np.arange(int(SCORE_MIN), int(SCORE_MAX) + 1, dtype=float)
        edges = (levels[:-1] + 0.5 - center) / sd
        below = special.ndtr(edges)  # P(score <= level) for levels 0..4
        return float(SCORE_MAX - below.sum())

    def positive_part(m: float) -> float:  # E[max(X, 0)] for X ~ N(m, sd^2)
        return m * special.ndtr(m / sd) + sd * math.exp(-0.5 * (m / sd) ** 2) / math.sqrt(2 * math.pi)

    return SCORE_MIN + positive_part(center - SCORE_MIN) - positive_part(center - SCORE_MAX)


def _expected(theta: np.ndarray, layout: _Layout, data: _Data) -> np.ndarray:
    """``[J, G]``: each cell's model mean score without its shift."""
    c, log_s, q, log_t, log_sigma, _ = layout.unpack(theta)
    s, t, sigma = np.exp(log_s), np.exp(log_t), np.exp(log_sigma)
    out = np.zeros((layout.n_judges, layout.n_generators))
    for j in range(layout.n_judges):
        for g in range(layout.n_generators):
            sd = math.sqrt((s[j] * t[g]) ** 2 + sigma[j, g] ** 2)
            out[j, g] = _cell_mean(float(c[j] + s[j] * q[g]), sd, bool(data.whole[j]))
    return out


def fit(
    values: Sequence[np.ndarray], clusters: Sequence[np.ndarray], free: np.ndarray, whole: np.ndarray
) -> ModelFit:
    """Fit the model.

    Args:
        values: Per generator, ``[n_g, J]``: every judge's score of each of its items (0-5).
        clusters: Per generator, ``[n_g]`` integer codes: items with one code are one independent
            unit (the same sample of one data set, across generators and epochs).
        free: ``[J, G]``: cells with a shift of their own (own or unknown family).
        whole: ``[J]``: the judge's scores are whole numbers (read as rounded).

    Returns:
        The fit.

    Raises:
        ModelError: If the optimiser finds no maximum or the variance is not determined.
    """
    layout = _Layout(free)
    whole = np.asarray(whole, dtype=bool)
    grid, log_weights = _grid(whole)
    arrays = tuple(np.asarray(v, dtype=float) for v in values)
    data = _Data(
        values=arrays,
        onehot=tuple(_onehot(v, whole) for v in arrays),
        clusters=tuple(np.asarray(c) for c in clusters),
        whole=whole,
        grid=grid,
        log_weights=log_weights,
    )
    start = _start(layout, data)
    result = optimize.minimize(
        _objective, start, args=(layout, data), jac=True, method="L-BFGS-B", options={"maxiter": 2000}
    )
    theta = result.x
    hessian = _hessian(theta, layout, data)
    eigenvalues = np.linalg.eigvalsh(hessian)
    if not np.all(np.isfinite(eigenvalues)) or eigenvalues.min() <= 1e-8 * max(eigenvalues.max(), 1.0):
        raise ModelError("the likelihood is flat in some direction: the design does not determine the fit")
    bread = np.linalg.inv(hessian)
    per_item = _item_gradients(theta, layout, data)
    codes = np.concatenate(data.clusters)
    unique, inverse = np.unique(codes, return_inverse=True)
    scores = np.zeros((unique.size, layout.size))
    np.add.at(scores, inverse, per_item)
    scores -= scores.mean(axis=0)
    n_clusters = unique.size
    correction = n_clusters / max(n_clusters - 1, 1)
    influence = scores @ bread  # each cluster's pull on the estimate (H^-1 times its score)
    covariance = correction * influence.T @ influence
    c, log_s, q, log_t, log_sigma, d = layout.unpack(theta)
    s = np.exp(log_s)
    # Shift's variance: the d block of the covariance, in the layout's cell order.
    shift = np.full(free.shape, np.nan)
    shift_se = np.full(free.shape, np.nan)
    determined = linked(~free)
    start_d = layout.bounds[5]
    for k, (a, b) in enumerate(layout.cells):
        if determined[a, b]:
            shift[a, b] = d[a, b]
            shift_se[a, b] = math.sqrt(max(covariance[start_d + k, start_d + k], 0.0))
    scale_se = _scale_se(covariance, layout)
    expected = _expected(theta, layout, data)
    residual, residual_se = _residuals(theta, layout, data, expected, influence, inverse, correction)
    # Display: centre each part's qualities, moving its leniencies to match (the fit is unchanged).
    leniency, quality = c.copy(), q.copy()
    for part in set(layout.generator_part.tolist()):
        members = layout.generator_part == part
        offset = quality[members].mean()
        quality[members] -= offset
        leniency[layout.judge_part == part] += s[layout.judge_part == part] * offset
    return ModelFit(
        leniency=leniency,
        scale=s,
        quality=quality,
        spread=np.exp(log_t),
        noise=np.exp(log_sigma),
        shift=shift,
        shift_se=shift_se,
        scale_se=scale_se,
        expected=expected,
        residual=residual,
        residual_se=residual_se,
        clusters=int(n_clusters),
        converged=bool(result.success),
    )


def _scale_se(covariance: np.ndarray, layout: _Layout) -> np.ndarray:
    """Standard errors of ``log s[j]`` (the last is minus the sum of the others)."""
    block = covariance[layout.bounds[1] : layout.bounds[2], layout.bounds[1] : layout.bounds[2]]
    n = layout.n_judges
    transform = np.vstack([np.eye(n - 1), -np.ones((1, n - 1))])
    full = transform @ block @ transform.T
    return np.sqrt(np.maximum(np.diag(full), 0.0))


def _residuals(
    theta: np.ndarray,
    layout: _Layout,
    data: _Data,
    expected: np.ndarray,
    influence: np.ndarray,
    inverse: np.ndarray,
    correction: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Fitted cells' mean minus model mean, and its standard error (delta method, by cluster)."""
    fitted = ~layout.free
    residual = np.full(fitted.shape, np.nan)
    residual_se = np.full(fitted.shape, np.nan)
    if not fitted.any():
        return residual, residual_se
    step = 1e-5
    gradient = np.zeros((*fitted.shape, theta.size))
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        gradient[..., i] = (_expected(up, layout, data) - _expected(down, layout, data)) / (2 * step)
    offsets = np.cumsum([0, *(v.shape[0] for v in data.values)])
    for j, g in zip(*np.nonzero(fitted), strict=True):
        values = data.values[g][:, j]
        residual[j, g] = float(values.mean() - expected[j, g])
        # Each cluster's pull on the cell mean, less its pull through the fitted parameters.
        own = np.zeros(influence.shape[0])
        np.add.at(own, inverse[offsets[g] : offsets[g + 1]], (values - values.mean()) / values.size)
        pull = own - influence @ gradient[j, g]
        residual_se[j, g] = math.sqrt(correction * float(pull @ pull))
    return residual, residual_se
